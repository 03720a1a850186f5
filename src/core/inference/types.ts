import type { ToolAnnotations } from '../annotations/types.js';

/** A tool definition as inference reads it. */
export interface ToolDefinitionInput {
  readonly name: string;
  readonly description?: string | undefined;
  /** A JSON Schema object, as MCP tools carry it; anything else is ignored. */
  readonly inputSchema?: unknown;
}

/** The part of a tool definition a reason was found in. */
export type EvidencePart = 'name' | 'description' | 'schema' | 'method' | 'argument';

/**
 * Why inference set one field: which word of which part matched which rule, and how
 * strongly it points the way it does.
 */
export interface InferenceReason {
  readonly part: EvidencePart;
  /** The word or phrase that matched, as written in the part. */
  readonly word: string;
  /** The rule that fired, e.g. `destructive-verb`, `negated-write`, `http-get`. */
  readonly rule: string;
  /**
   * `strong` when the evidence is the tool's leading verb or an explicit statement;
   * `weak` for a word found elsewhere. Conflict detection only acts on strong evidence.
   */
  readonly strength: 'strong' | 'weak';
  /**
   * True when the evidence is clear enough to overrule a server's declared value of the
   * field: the tool's main verb, in verb position, clearly contradicting it (`delete_repo`
   * declared read-only), or an argument that runs arbitrary code or SQL. Only such
   * evidence makes a conflict; other disagreements are notes.
   */
  readonly decisive?: boolean;
  /** One readable sentence, e.g. `name word "delete" is a destructive verb`. */
  readonly text: string;
}

/** What inference concluded: the annotations it set and, per field set, the reason. */
export interface InferenceResult {
  readonly annotations: ToolAnnotations;
  readonly reasons: Readonly<Partial<Record<string, InferenceReason>>>;
}
