import { LOG_LEVEL_META_KEY } from '../mcp/era.js';
import type { JsonObject } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';

/** MCP's log levels, least severe first (RFC 5424's). */
const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
const SEVERITY = new Map(LEVELS.map((level, index) => [level, index]));

/** True for one of MCP's log level names. */
export function isLogLevel(value: unknown): value is string {
  return typeof value === 'string' && SEVERITY.has(value);
}

/**
 * Whether a server's log message goes to a client that asked for `threshold` (a 2025 client
 * with `logging/setLevel`, a 2026 client in each request's envelope): never when it did not
 * ask; a message without a known level passes once it asked.
 */
export function logPasses(message: JsonObject, threshold: string | undefined): boolean {
  if (threshold === undefined) return false;
  const level = SEVERITY.get(String(message['level']));
  const floor = SEVERITY.get(threshold);
  return level === undefined || floor === undefined || level >= floor;
}

/** The log level a 2026 request's envelope asks for, if any. */
export function envelopeLogLevel(params: JsonObject): string | undefined {
  const meta = params['_meta'];
  if (!isJsonObject(meta)) return undefined;
  const level = meta[LOG_LEVEL_META_KEY];
  return isLogLevel(level) ? level : undefined;
}
