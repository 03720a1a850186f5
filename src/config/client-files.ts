import { createHash } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
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

/** The file names MCP clients keep their own server lists in. */
const CLIENT_FILES: readonly { readonly name: string; readonly folder?: string }[] = [
  { name: 'claude_desktop_config.json' },
  { name: 'mcp.json', folder: '.cursor' },
  { name: 'mcp.json', folder: '.vscode' },
  { name: 'cline_mcp_settings.json' },
];

/**
 * True for an MCP client's own config file used as hintgate's: one at a client's place and
 * name (`claude_desktop_config.json`, `.cursor/mcp.json`, `.vscode/mcp.json`), or holding a
 * client's own keys (`globalShortcut`, VS Code's `servers`, …).
 */
export function isClientFile(file: string, raw: unknown): boolean {
  const name = basename(file);
  const folder = basename(dirname(file));
  if (CLIENT_FILES.some((known) => known.name === name && (known.folder ?? folder) === folder))
    return true;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return false;
  return Object.keys(raw).some((key) => isClientTopLevelKey(key) || key === 'servers');
}

/**
 * The user's own data folder for hintgate: `$XDG_DATA_HOME/hintgate` (else
 * `~/.local/share/hintgate`) on Linux, `~/Library/Application Support/hintgate` on macOS,
 * `%LOCALAPPDATA%\hintgate` on Windows. Undefined without a home directory.
 */
export function userDataDir(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
): string | undefined {
  const get = (key: string) => (env[key] === '' ? undefined : env[key]);
  const home = get('HOME') ?? get('USERPROFILE');
  if (platform === 'win32') {
    const local =
      get('LOCALAPPDATA') ?? (home === undefined ? undefined : join(home, 'AppData', 'Local'));
    return local === undefined ? undefined : join(local, 'hintgate');
  }
  if (home === undefined) return undefined;
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'hintgate');
  return join(get('XDG_DATA_HOME') ?? join(home, '.local', 'share'), 'hintgate');
}

/**
 * The data directory of a client's config file used as it is: in the user's data folder,
 * one per file (its name and a hash of its path), never beside the client's own file.
 */
export function clientDataDir(file: string, userDir: string): string {
  const hash = createHash('sha256').update(file).digest('hex').slice(0, 8);
  const stem = basename(file)
    .replace(/\.[^.]*$/, '')
    .replace(/[^A-Za-z0-9_-]/g, '-');
  const folder = basename(dirname(file))
    .replace(/^\./, '')
    .replace(/[^A-Za-z0-9_-]/g, '-');
  return join(userDir, `${folder}-${stem}-${hash}`);
}
