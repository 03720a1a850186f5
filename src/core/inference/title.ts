/**
 * A readable title from a tool name: `delete_user_account` → "Delete User Account".
 */
import { splitNameParts } from './tokenize.js';

/** Words written in capitals in a title. */
const ACRONYMS: ReadonlySet<string> = new Set(
  `api url uri id http https sql json xml html css ui ssh dns ip aws gcp mcp llm ai pr cpu gpu
   io os db jwt csv pdf sdk cli ci vm dsn uuid uid rpc ttl tls ssl smtp ec2 s3 sms otp crm
   seo kpi qa gql`
    .split(/\s+/)
    .filter((word) => word.length > 0),
);

/** Plurals of acronyms, written with a lower-case s (`IDs`, `URLs`). */
const ACRONYM_PLURALS: ReadonlyMap<string, string> = new Map(
  [...ACRONYMS].map((word) => [`${word}s`, `${word.toUpperCase()}s`]),
);

function titleWord(part: string, lower: string): string {
  if (ACRONYMS.has(lower)) return lower.toUpperCase();
  const plural = ACRONYM_PLURALS.get(lower);
  if (plural !== undefined) return plural;
  // A word already written in capitals (HTTP, PDF) keeps them.
  if (part.length > 1 && part !== lower && part === part.toUpperCase()) return part;
  return lower.charAt(0).toUpperCase() + lower.slice(1);
}

/**
 * Humanizes a tool name into a title: words split as `splitNameParts` splits them, each
 * capitalized, known acronyms in capitals. Returns `undefined` for a name with no words.
 *
 * @example humanizeName('getHTTPResponse') // 'Get HTTP Response'
 */
export function humanizeName(name: string): string | undefined {
  const parts = splitNameParts(name);
  return titleFromParts(
    parts,
    parts.map((part) => part.toLowerCase()),
  );
}

/**
 * A title from a name already split by `splitNameParts`, with the same words in lower
 * case (`lower[i]` is `parts[i]` lowered).
 */
export function titleFromParts(
  parts: readonly string[],
  lower: readonly string[],
): string | undefined {
  if (parts.length === 0) return undefined;
  let title = titleWord(parts[0] as string, lower[0] as string);
  for (let i = 1; i < parts.length; i++) {
    title += ` ${titleWord(parts[i] as string, lower[i] as string)}`;
  }
  return title;
}
