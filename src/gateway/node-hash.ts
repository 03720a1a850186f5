import { createHash } from 'node:crypto';

/** SHA-256 (hex) through Node: several times faster than the core's pure JavaScript one. */
export function nodeSha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
