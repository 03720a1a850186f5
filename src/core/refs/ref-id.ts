import { canonicalJson } from '../util/canonical-json.js';
import { sha256Hex } from '../util/hash.js';

/** Length of a refId in hex characters (64 bits). */
export const REF_ID_LENGTH = 16;

/**
 * A short, stable identifier of a tool: a hash of its server, its name and its input schema
 * in canonical form (key order does not matter). It changes when the schema changes, which
 * is how a toolset notices that a tool is no longer the one that was chosen.
 *
 * `sha256` (hex) is the core's pure JavaScript one unless a faster one is given (the
 * gateway passes Node's); the id is the same either way.
 *
 * @example refId('github', 'create_issue', { type: 'object' }) // 16 hex characters
 */
export function refId(
  server: string,
  name: string,
  inputSchema: unknown,
  sha256: (text: string) => string = sha256Hex,
): string {
  return sha256(canonicalJson([server, name, inputSchema ?? null])).slice(0, REF_ID_LENGTH);
}
