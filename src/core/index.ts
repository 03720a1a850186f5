/**
 * The `hintgate` library entry: the annotation model and its pure functions. No I/O, no
 * transports; safe to load anywhere.
 */
export type {
  AnnotatedValue,
  AnnotationConflict,
  AnnotationExtensions,
  AnnotationSource,
  Complexity,
  ExtensionField,
  HintField,
  McpAnnotationField,
  McpToolAnnotations,
  Provenance,
  SecurityLevel,
  ToolAnnotations,
  Trust,
} from './annotations/types.js';
export {
  ANNOTATION_SOURCES,
  COMPLEXITY_LEVELS,
  EXTENSION_FIELDS,
  HINT_FIELDS,
  MCP_ANNOTATION_FIELDS,
  SECURITY_LEVELS,
  SOURCE_RANK,
  SPEC_DEFAULTS,
  isExtensionField,
  isHintField,
} from './annotations/types.js';
export type { BuiltAnnotations, ToolAnnotationsInput } from './annotations/builder.js';
export { toolAnnotations } from './annotations/builder.js';
export type { AnnotationLayer, MergedAnnotations } from './annotations/merge.js';
export { mergeAnnotations } from './annotations/merge.js';
export type { ConflictInput } from './annotations/conflicts.js';
export { detectConflicts } from './annotations/conflicts.js';
export type { EffectiveAnnotations, EffectiveAnnotationsInput } from './annotations/effective.js';
export { completeHints, resolveEffectiveAnnotations } from './annotations/effective.js';
export type { Finding, ValidationResult } from './annotations/validate.js';
export { validateAnnotations } from './annotations/validate.js';
export type { SafetyLevel } from './annotations/safety.js';
export {
  effectiveHint,
  getToolSafetyLevel,
  isSafeToRetry,
  requiresConfirmation,
} from './annotations/safety.js';
export { getAnnotationSummary } from './annotations/summary.js';
export type {
  AnnotatableTool,
  AnnotatedTool,
  AnnotationFilter,
  CreateAnnotatedToolOptions,
} from './annotations/tools.js';
export { createAnnotatedTool, filterToolsByAnnotations } from './annotations/tools.js';
export type {
  EvidencePart,
  InferenceReason,
  InferenceResult,
  ToolDefinitionInput,
} from './inference/types.js';
export { inferAnnotations } from './inference/infer.js';
export { inferFromHttpMethod } from './inference/http-method.js';
export { tokenizeName } from './inference/tokenize.js';
export type { FlattenedNames, NameCollision, NamePrefix } from './refs/names.js';
export {
  MAX_FLATTENED_NAME_LENGTH,
  flattenNames,
  flattenToolName,
  flattenToolNames,
  namespacedName,
  splitNamespacedName,
} from './refs/names.js';
export { REF_ID_LENGTH, refId } from './refs/ref-id.js';
export type { NoteProblem, ToolNote } from './notes/notes.js';
export {
  NOTES_HEADING,
  NOTE_LIMITS,
  formatNotesForLLM,
  hydrateDescription,
  validateNote,
  validateNoteName,
} from './notes/notes.js';
export type { HintgateErrorCode } from './errors.js';
export { HintgateError, errorMessage, isHintgateError } from './errors.js';
export { canonicalJson } from './util/canonical-json.js';
export type { ToolDefinition, ToolListParse } from './tools/tool-list.js';
export { parseToolList } from './tools/tool-list.js';
export type { ConfirmMode, ConfirmPolicy, ConfirmPolicyLayer, Decision } from './policy/decide.js';
export { DEFAULT_CONFIRM_POLICY, decide, layerConfirmPolicy } from './policy/decide.js';
export type {
  ActionEffect,
  BoundAdjustment,
  BoundedResolution,
  CallHints,
  ClassifierKind,
  ClassifierResult,
  CompileRulesResult,
  CompiledRule,
  DetectedClassifier,
  DynamicOrigin,
  DynamicResolution,
  DynamicRule,
  ResolveDynamicInput,
  RuleError,
  RuleMatch,
} from './dynamic/index.js';
export {
  boundResolution,
  classifyAction,
  classifyHttpRequest,
  classifyShell,
  classifySql,
  compileRules,
  detectArgumentClassifiers,
  dynamicRuleSchema,
  dynamicRulesSchema,
  evaluateRules,
  resolveDynamicAnnotations,
  worstCase,
  worstCaseForTool,
} from './dynamic/index.js';
export type {
  DefinitionHasher,
  Drift,
  DriftAction,
  DriftGrade,
  FieldChange,
  FindingKind,
  PinningMode,
  ScanContext,
  TextFinding,
  ToolDefinition as PinnedDefinition,
} from './pins/index.js';
export {
  canonicalDefinition,
  compareTool,
  definitionHash,
  diffDefinitions,
  driftAction,
  findRenames,
  scanDefinition,
  scanText,
  toolDefinition,
  withPinnedValues,
} from './pins/index.js';
