/**
 * The suspicious-text scanner: text in a tool's definition that speaks to the model rather
 * than describing the tool (a poisoned description). Every string a model reads is scanned:
 * the title, the description, and every string inside the input and output schemas
 * (property descriptions, titles, defaults, enum values).
 */
import type { ToolDefinition } from './definition.js';

/** What a finding is about. */
export type FindingKind =
  | 'hidden-instructions'
  | 'override-instructions'
  | 'secrecy'
  | 'sensitive-file'
  | 'other-tool'
  | 'invisible-unicode'
  | 'long-base64';

/** One piece of suspicious text. */
export interface TextFinding {
  readonly kind: FindingKind;
  /** Where: `description`, `title`, `inputSchema.properties.id.description`, … */
  readonly field: string;
  /** The text around the match, invisible characters written as `\u{…}`. */
  readonly excerpt: string;
  /** Why it is suspicious, in words. */
  readonly message: string;
}

/** What the scan knows beyond the definition. */
export interface ScanContext {
  /**
   * Names of other servers' tools (namespaced `server.tool` and flattened `server_tool`,
   * and plain names distinctive enough to be a reference): a description naming one is
   * steering the model toward another server.
   */
  readonly otherTools?: ReadonlySet<string>;
}

interface Pattern {
  readonly kind: FindingKind;
  readonly regex: RegExp;
  readonly message: string;
}

const PATTERNS: readonly Pattern[] = [
  {
    kind: 'hidden-instructions',
    regex:
      /<\s*\/?\s*(important|system|instructions?|hidden|secret|admin|assistant|context|prompt|sys|critical|note[_-]?to[_-]?(?:ai|model|assistant))\b[^>]*>|<!--|\[\/?INST\]|<\|im_(?:start|end)\|>/i,
    message: 'a tag that hides instructions to the model',
  },
  {
    kind: 'override-instructions',
    regex:
      /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+)*(?:previous|prior|above|earlier|other|system|original)\s+(?:instructions?|prompts?|rules|messages|directions|guidelines)/i,
    message: 'tells the model to set aside its instructions',
  },
  {
    kind: 'secrecy',
    regex:
      /\b(?:do\s+not|don['’]?t|never|must\s+not)\s+(?:tell|inform|mention|reveal|notify|show|alert|let)\s+(?:this\s+(?:to\s+)?)?(?:the\s+)?user|\bwithout\s+(?:telling|informing|notifying|alerting)\s+the\s+user|\b(?:keep|hide)\s+(?:this|it)\s+(?:secret\s+)?from\s+the\s+user/i,
    message: 'tells the model to keep something from the user',
  },
  {
    kind: 'sensitive-file',
    regex:
      /(?:~|\$HOME|%USERPROFILE%|\/home\/[^/\s]+|\/Users\/[^/\s]+|\/root)[/\\]\.(?:ssh|aws|gnupg|kube|docker|azure|netrc|npmrc|pypirc|git-credentials|config[/\\]gcloud)\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\/etc\/(?:passwd|shadow|sudoers)\b|(?:^|[\s'"`(])\.env\b|\bmcp\.json\b|claude_desktop_config\.json/i,
    message: 'refers to a file holding credentials or configuration',
  },
  {
    kind: 'invisible-unicode',
    regex:
      /[\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/u,
    message: 'invisible or bidirectional Unicode characters',
  },
  {
    kind: 'long-base64',
    regex: /[A-Za-z0-9+/_-]{80,}={0,2}/,
    message: 'a long base64 string (encoded content the user cannot read)',
  },
];

/** Base64 worth a finding mixes letters of both cases and digits (not a long word or hex). */
function looksEncoded(text: string): boolean {
  return /[a-z]/.test(text) && /[A-Z]/.test(text) && /[0-9]/.test(text);
}

const EXCERPT_RADIUS = 40;

function excerpt(text: string, index: number, length: number): string {
  const start = Math.max(0, index - EXCERPT_RADIUS);
  const end = Math.min(text.length, index + Math.min(length, 80) + EXCERPT_RADIUS);
  const slice = text
    .slice(start, end)
    .replace(
      /[\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/gu,
      (char) => `\\u{${(char.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`,
    );
  return `${start > 0 ? '…' : ''}${slice}${end < text.length ? '…' : ''}`;
}

/** Scans one string; `field` names where it is. */
export function scanText(text: string, field: string, context: ScanContext = {}): TextFinding[] {
  const findings: TextFinding[] = [];
  for (const pattern of PATTERNS) {
    const match = pattern.regex.exec(text);
    if (match === null) continue;
    if (pattern.kind === 'long-base64' && !looksEncoded(match[0])) continue;
    findings.push({
      kind: pattern.kind,
      field,
      excerpt: excerpt(text, match.index, match[0].length),
      message: pattern.message,
    });
  }
  const others = context.otherTools;
  if (others !== undefined && others.size > 0) {
    for (const word of text.split(/[^A-Za-z0-9_.-]+/)) {
      const name = word.replace(/^[.-]+|[.-]+$/g, '');
      if (name === '' || !others.has(name)) continue;
      findings.push({
        kind: 'other-tool',
        field,
        excerpt: excerpt(text, text.indexOf(name), name.length),
        message: `names "${name}", a tool of another server`,
      });
      break;
    }
  }
  return findings;
}

/** Every string in a JSON value, with its path. */
function eachString(
  value: unknown,
  path: string,
  visit: (text: string, path: string) => void,
  depth = 0,
): void {
  if (depth > 64) return;
  if (typeof value === 'string') {
    visit(value, path);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => eachString(item, `${path}[${index}]`, visit, depth + 1));
    return;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, member] of Object.entries(value)) {
      eachString(member, `${path}.${key}`, visit, depth + 1);
    }
  }
}

/** Scans every text of a definition a model reads. */
export function scanDefinition(
  definition: ToolDefinition,
  context: ScanContext = {},
): TextFinding[] {
  const findings: TextFinding[] = [];
  const visit = (text: string, field: string): void => {
    findings.push(...scanText(text, field, context));
  };
  if (definition.title !== undefined) visit(definition.title, 'title');
  const annotationTitle = definition.annotations?.['title'];
  if (typeof annotationTitle === 'string') visit(annotationTitle, 'annotations.title');
  if (definition.description !== undefined) visit(definition.description, 'description');
  eachString(definition.inputSchema, 'inputSchema', visit);
  eachString(definition.outputSchema, 'outputSchema', visit);
  return findings;
}

/**
 * The names in `tools` (other servers' tools, by server) a description could use to point
 * at them: namespaced and flattened forms always, plain names only when distinctive (a
 * separator and at least 8 characters) and not also a name of `ownTools`.
 */
export function otherToolNames(
  tools: Iterable<{ readonly server: string; readonly name: string }>,
  server: string,
  ownTools: ReadonlySet<string>,
): Set<string> {
  const names = new Set<string>();
  for (const tool of tools) {
    if (tool.server === server) continue;
    names.add(`${tool.server}.${tool.name}`);
    names.add(`${tool.server}_${tool.name}`);
    if (tool.name.length >= 8 && /[_-]/.test(tool.name) && !ownTools.has(tool.name))
      names.add(tool.name);
  }
  return names;
}
