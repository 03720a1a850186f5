/**
 * The `hintgate/mcp` entry: dynamic annotations for authors of MCP servers and clients
 * built with the MCP TypeScript SDK. On the server, `addDynamicAnnotations` serves the
 * proposal's `tools/annotations` and the tool-resolution extension's `tools/resolve` from
 * one resolver per tool; on the client, `preflight` asks for a call's annotations and
 * `callToolSafely` asks a person before a destructive call. The wire helpers below them are
 * exported for servers and gateways that answer these requests their own way.
 *
 * @example
 * import { addDynamicAnnotations, callToolSafely } from 'hintgate/mcp';
 */
export type { DynamicClient, ListOptions } from './dynamic-tools.js';
export { forgetListedTools, listToolsAsSent } from './dynamic-tools.js';
export type {
  CallToolResultLike,
  CallToolSafelyOptions,
  ConfirmRequest,
  PreflightAnnotations,
  PreflightError,
  PreflightErrorKind,
  PreflightOptions,
  PreflightResult,
  SafeCallOutcome,
} from './dynamic-client.js';
export { callToolSafely, preflight } from './dynamic-client.js';
export type { DynamicAnnotationsOptions } from './dynamic-server.js';
export { addDynamicAnnotations } from './dynamic-server.js';
export type {
  AnnotationResolver,
  DynamicAnswer,
  DynamicAnswerInput,
  ResolverContext,
} from './dynamic-answer.js';
export { answerDynamicRequest } from './dynamic-answer.js';
export type { ArgumentsCheck } from './dynamic-validate.js';
export { validateArguments } from './dynamic-validate.js';
export { boundViolations, completeHints, staticHints } from './dynamic-bound.js';
export type {
  AnnotationsResult,
  ArgumentIssue,
  Checked,
  DynamicMarkers,
  DynamicMethod,
  DynamicParams,
  HintsInput,
  ResolveResult,
  ResolveResultProblem,
  ResolvedHints,
  ToolResolutionCapabilities,
} from './dynamic-wire.js';
export {
  DYNAMIC_ERROR,
  TOOLS_ANNOTATIONS_METHOD,
  TOOLS_RESOLVE_METHOD,
  TOOL_RESOLUTION_EXTENSION,
  annotationsResult,
  declaresDynamicAnnotations,
  declaresToolResolution,
  exceedsBoundError,
  hasDynamicAnnotations,
  invalidArgumentsError,
  invalidParamsError,
  isResolvableTool,
  malformedResolutionError,
  markDynamicTool,
  missingCapabilityError,
  notDynamicError,
  readAnnotationsResult,
  readDynamicParams,
  readHints,
  readResolveResult,
  resolveResult,
  resolverFailedError,
  toolResolutionCapabilities,
  unknownToolError,
} from './dynamic-wire.js';
