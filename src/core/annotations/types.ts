/**
 * The annotation model: the MCP `ToolAnnotations` fields, hintgate's extensions, and the
 * provenance every effective value carries.
 */

/** The four boolean hints of the MCP specification. */
export const HINT_FIELDS = [
  'readOnlyHint',
  'destructiveHint',
  'idempotentHint',
  'openWorldHint',
] as const;
export type HintField = (typeof HINT_FIELDS)[number];

/** Every field of MCP's `ToolAnnotations`. */
export const MCP_ANNOTATION_FIELDS = ['title', ...HINT_FIELDS] as const;
export type McpAnnotationField = (typeof MCP_ANNOTATION_FIELDS)[number];

/** hintgate's extension fields; they travel to MCP clients under `_meta`, never in `annotations`. */
export const EXTENSION_FIELDS = [
  'requiresConfirmation',
  'tags',
  'estimatedDuration',
  'rateLimitHint',
  'costHint',
  'complexity',
  'auditRequired',
  'securityLevel',
] as const;
export type ExtensionField = (typeof EXTENSION_FIELDS)[number];

export const COMPLEXITY_LEVELS = ['simple', 'medium', 'complex'] as const;
export type Complexity = (typeof COMPLEXITY_LEVELS)[number];

export const SECURITY_LEVELS = ['public', 'internal', 'restricted'] as const;
export type SecurityLevel = (typeof SECURITY_LEVELS)[number];

/** The annotation fields defined by the MCP specification. */
export interface McpToolAnnotations {
  /** A human-readable title for the tool. */
  title?: string;
  /** The tool does not modify its environment. Spec default: false. */
  readOnlyHint?: boolean;
  /** The tool may perform destructive updates (meaningful only when not read-only). Spec default: true. */
  destructiveHint?: boolean;
  /** Repeating a call with the same arguments has no further effect. Spec default: false. */
  idempotentHint?: boolean;
  /** The tool interacts with an open world of external entities. Spec default: true. */
  openWorldHint?: boolean;
}

/** hintgate's extensions to the MCP fields. */
export interface AnnotationExtensions {
  /** A person must confirm a call before it runs. */
  requiresConfirmation?: boolean;
  /** Free labels for filtering and grouping. */
  tags?: readonly string[];
  /** Typical duration of a call, in milliseconds. */
  estimatedDuration?: number;
  /** The most calls per minute the tool should receive. */
  rateLimitHint?: number;
  /** Relative cost units of one call. */
  costHint?: number;
  /** How involved a call is. */
  complexity?: Complexity;
  /** Calls must be recorded in full for compliance. */
  auditRequired?: boolean;
  /** Access classification. */
  securityLevel?: SecurityLevel;
}

/**
 * Annotations as hintgate handles them: the MCP fields, the extensions, and any other key a
 * server sent, kept as it came.
 */
export interface ToolAnnotations extends McpToolAnnotations, AnnotationExtensions {
  readonly [key: string]: unknown;
}

/**
 * Where an effective value came from, lowest precedence first. A higher source wins field
 * by field.
 */
export const ANNOTATION_SOURCES = [
  'spec-default',
  'inferred',
  'server-default',
  'declared',
  'override',
  'dynamic',
] as const;
export type AnnotationSource = (typeof ANNOTATION_SOURCES)[number];

/** The rank of each source: the higher, the stronger. */
export const SOURCE_RANK: Readonly<Record<AnnotationSource, number>> = {
  'spec-default': 0,
  inferred: 1,
  'server-default': 2,
  declared: 3,
  override: 4,
  dynamic: 5,
};

/** The MCP specification's defaults for the four hints. */
export const SPEC_DEFAULTS: Readonly<Required<Pick<McpToolAnnotations, HintField>>> = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

/** A value together with where it came from. */
export interface AnnotatedValue<T = unknown> {
  readonly value: T;
  readonly source: AnnotationSource;
  /** Why it has this value, for inferred and dynamic values. */
  readonly reason?: string;
}

/** The source (and reason, where one exists) of each field of a set of annotations. */
export type Provenance = Readonly<Record<string, AnnotatedValue>>;

/** A trust level for a downstream server's declared annotations. */
export type Trust = 'trusted' | 'untrusted';

/**
 * A declared value that relaxes safety against strong contrary evidence (a tool named
 * `delete_repo` declared read-only by an untrusted server).
 */
export interface AnnotationConflict {
  readonly field: HintField;
  /** The value the server declared. */
  readonly declared: boolean;
  /** The value hintgate's own reading of the tool gives. */
  readonly inferred: boolean;
  /** The value policy acts on: the conservative one. */
  readonly resolved: boolean;
  /** Why hintgate disagrees, in words. */
  readonly reason: string;
}

/** True when `field` is one of the four MCP boolean hints. */
export function isHintField(field: string): field is HintField {
  return (HINT_FIELDS as readonly string[]).includes(field);
}

/** True when `field` is one of hintgate's extension fields. */
export function isExtensionField(field: string): field is ExtensionField {
  return (EXTENSION_FIELDS as readonly string[]).includes(field);
}
