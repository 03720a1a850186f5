import { join } from 'node:path';

/** An MCP client whose config file `hintgate init` can start from. */
export interface ClientConfigPlace {
  /** The client, as people name it. */
  readonly client: string;
  /** The file, absolute. */
  readonly path: string;
}

/**
 * Where MCP clients keep their server lists, most specific first: the project's own
 * (`.cursor/mcp.json`, `.vscode/mcp.json`), then the user's Claude Desktop and Cursor files
 * for this platform. Only places; whether a file is there is the caller's question.
 */
export function clientConfigPlaces(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  platform: NodeJS.Platform = process.platform,
): ClientConfigPlace[] {
  // An empty variable counts as unset, as shells treat it.
  const get = (name: string) => (env[name] === '' ? undefined : env[name]);
  const home = get('HOME') ?? get('USERPROFILE');
  const places: ClientConfigPlace[] = [
    { client: 'Cursor (project)', path: join(cwd, '.cursor', 'mcp.json') },
    { client: 'VS Code (project)', path: join(cwd, '.vscode', 'mcp.json') },
  ];
  if (home === undefined) return places;
  const claude =
    platform === 'darwin'
      ? join(home, 'Library', 'Application Support', 'Claude')
      : platform === 'win32'
        ? join(get('APPDATA') ?? join(home, 'AppData', 'Roaming'), 'Claude')
        : join(get('XDG_CONFIG_HOME') ?? join(home, '.config'), 'Claude');
  places.push(
    { client: 'Claude Desktop', path: join(claude, 'claude_desktop_config.json') },
    { client: 'Cursor', path: join(home, '.cursor', 'mcp.json') },
  );
  return places;
}
