import type { ConfigIssue } from './issues.js';

/**
 * The top-level keys of MCP clients' own config files, which hintgate reads unchanged:
 * Claude Desktop's settings beside `mcpServers` (and its `dxt:` extension keys), and VS
 * Code's `inputs` (prompted values hintgate cannot ask for). They are accepted and ignored;
 * any other unknown key still fails with its path.
 */
const CLIENT_TOP_LEVEL_KEYS = new Set([
  'globalShortcut',
  'preferences',
  'isUsingBuiltInNodeForMcp',
  'isDxtAutoUpdatesEnabled',
  'isDxtEnabled',
  'extensions',
  'inputs',
]);
const CLIENT_KEY_PREFIXES = ['dxt:'];

/** True for a top-level key that belongs to an MCP client's own config file. */
export function isClientTopLevelKey(key: string): boolean {
  return CLIENT_TOP_LEVEL_KEYS.has(key) || CLIENT_KEY_PREFIXES.some((p) => key.startsWith(p));
}

/**
 * A parsed config file with the clients' own keys taken out, and VS Code's `servers` block
 * (`.vscode/mcp.json`) read as `mcpServers`. A file holding both blocks is an issue: which
 * one is meant cannot be told.
 */
export function withoutClientKeys(raw: unknown, issues: ConfigIssue[]): unknown {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!isClientTopLevelKey(key)) copy[key] = value;
  }
  if ('servers' in copy) {
    if ('mcpServers' in copy) {
      issues.push({
        path: 'servers',
        message: 'both "servers" (VS Code) and "mcpServers" are given; keep one',
      });
    } else copy['mcpServers'] = copy['servers'];
    delete copy['servers'];
  }
  return copy;
}
