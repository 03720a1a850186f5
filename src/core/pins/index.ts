/** Tool pins: canonical definitions, drift graded by safety, and the suspicious-text scan. */
export type { DefinitionField, DefinitionHasher, ToolDefinition } from './definition.js';
export {
  DEFINITION_FIELDS,
  canonicalDefinition,
  definitionHash,
  toolDefinition,
} from './definition.js';
export type { Drift, DriftGrade, FieldChange } from './drift.js';
export {
  DRIFT_GRADES,
  RENAME_SIMILARITY,
  compareTool,
  diffDefinitions,
  findRenames,
  removedTool,
} from './drift.js';
export type { DriftAction, PinningMode } from './policy.js';
export { driftAction, needsPerson, withPinnedValues } from './policy.js';
export type { FindingKind, ScanContext, TextFinding } from './scan.js';
export { otherToolNames, scanDefinition, scanText } from './scan.js';
