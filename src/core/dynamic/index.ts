/**
 * Dynamic annotations: argument classifiers (SQL, shell, HTTP, action values), their
 * detection from a tool's input schema, declarative rules, and the resolution of one
 * call's annotations within the tool's static bounds. Pure: no I/O.
 */
export type { CallHints, ClassifierResult } from '../classify/hints.js';
export { worstHints } from '../classify/hints.js';
export { classifySql } from '../classify/sql.js';
export { classifyShell } from '../classify/shell.js';
export type { HttpMethodEffect } from '../classify/http.js';
export { classifyHttpRequest, httpMethodEffect } from '../classify/http.js';
export type { ActionEffect } from '../classify/action.js';
export { actionEffect, classifyAction } from '../classify/action.js';
export type { ClassifierKind, DetectOptions, DetectedClassifier } from './detect.js';
export { detectArgumentClassifiers } from './detect.js';
export type { JsonPointer, PointerError } from './json-pointer.js';
export {
  formatJsonPointer,
  isPointerError,
  parseJsonPointer,
  resolveJsonPointer,
} from './json-pointer.js';
export type {
  CompileRulesResult,
  CompiledRule,
  DynamicRule,
  RuleError,
  RuleMatch,
} from './rules.js';
export {
  compileRules,
  dynamicRuleSchema,
  dynamicRulesSchema,
  evaluateRules,
  jsonEqual,
  ruleAppliesTo,
  rulesForTool,
} from './rules.js';
export type {
  BoundAdjustment,
  BoundedResolution,
  DynamicOrigin,
  DynamicResolution,
  ResolveDynamicInput,
} from './resolve.js';
export {
  boundResolution,
  resolveDynamicAnnotations,
  staticHint,
  worstCase,
  worstCaseForTool,
} from './resolve.js';
