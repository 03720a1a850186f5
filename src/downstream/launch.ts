/**
 * How a stdio server's process is started, and starting them early: `hintgate serve` starts
 * each configured stdio server as soon as it has read its config, while its own modules are
 * still loading (about 150 ms of a start on a quiet machine), and each server's transport
 * then takes over the process started for it instead of starting another.
 *
 * A process started early is taken over only by a transport that would have started exactly
 * the same one (command, arguments, directory, environment), only once, and only while it
 * runs; anything else starts its own, and {@link endEarly} ends what nobody took.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { isDeepStrictEqual } from 'node:util';
import type { Config } from '../config/schema.js';
import { registerGroup, signalGroup, unregisterGroup } from './process-group.js';

/** Variables a spawned server inherits from the gateway; everything else must be configured. */
const INHERITED_ENV = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TERM',
  'TMPDIR',
  'TEMP',
  'TMP',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_DATA_HOME',
  'npm_config_cache',
  'SYSTEMROOT',
  'APPDATA',
  'LOCALAPPDATA',
  'PROGRAMFILES',
  'USERPROFILE',
  'COMSPEC',
  'PATHEXT',
];

/** One server process to start. */
export interface Launch {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string | undefined;
  /** The whole environment it gets. */
  readonly env: Readonly<Record<string, string>>;
}

/** A server's environment: the inherited variables of `base`, then its own `env`. */
export function serverEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  env: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const inherited: Record<string, string> = {};
  for (const key of INHERITED_ENV) {
    const value = base[key];
    if (value !== undefined) inherited[key] = value;
  }
  return { ...inherited, ...env };
}

/**
 * Starts a server's process: pipes for stdin, stdout and stderr, as the leader of a process
 * group of its own (so that closing it ends what it started). Throws as `spawn` does.
 */
export function spawnServer(launch: Launch): ChildProcess {
  return spawn(launch.command, [...launch.args], {
    cwd: launch.cwd,
    env: launch.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
    windowsHide: true,
  });
}

/** A process started early, and what became of it so far. */
interface Early {
  readonly launch: Launch;
  readonly child: ChildProcess;
  /** It exited, or could not start. */
  ended: boolean;
}

/** Processes started early and not taken yet, by server name. */
const early = new Map<string, Early>();

/**
 * The processes `hintgate serve` can start before anything else: the enabled stdio servers
 * of `config` without replicas (a replica's process is started under a name of its own).
 */
export function earlyLaunches(
  config: Config,
  base: Readonly<Record<string, string | undefined>>,
): Map<string, Launch> {
  const launches = new Map<string, Launch>();
  for (const [name, server] of Object.entries(config.mcpServers)) {
    if (!server.enabled || server.disabled === true || server.command === undefined) continue;
    if (server.replicas.length > 0) continue;
    launches.set(name, {
      command: server.command,
      args: server.args,
      cwd: server.cwd,
      env: serverEnvironment(base, server.env),
    });
  }
  return launches;
}

/** Starts each launch now, for its server's transport to take over. */
export function startEarly(launches: ReadonlyMap<string, Launch>): void {
  for (const [server, launch] of launches) {
    let child: ChildProcess;
    try {
      child = spawnServer(launch);
    } catch {
      // The transport starts it again and reports why it cannot.
      continue;
    }
    // Node gives a process its pid only once it has started; the 'spawn' event follows a
    // tick later, and a gateway whose modules are all loaded (the bundle) may take the
    // process before that tick.
    const pid = child.pid;
    const entry: Early = { launch, child, ended: pid === undefined };
    if (pid !== undefined) registerGroup(pid);
    child.once('error', () => (entry.ended = true));
    child.once('exit', () => (entry.ended = true));
    early.get(server)?.child.kill('SIGKILL');
    early.set(server, entry);
  }
}

/**
 * The process started early for `server`, if it was started as `launch` would start it and
 * is running; it is the caller's from then on. A process that does not match is ended.
 */
export function takeEarly(server: string, launch: Launch): ChildProcess | undefined {
  const entry = early.get(server);
  if (entry === undefined) return undefined;
  early.delete(server);
  const same =
    entry.launch.command === launch.command &&
    isDeepStrictEqual([...entry.launch.args], [...launch.args]) &&
    entry.launch.cwd === launch.cwd &&
    isDeepStrictEqual({ ...entry.launch.env }, { ...launch.env });
  if (same && !entry.ended) return entry.child;
  end(entry);
  return undefined;
}

/** Ends every process started early that no transport took. */
export function endEarly(): void {
  for (const entry of early.values()) end(entry);
  early.clear();
}

/** Ends a process started early, and its group. */
function end(entry: Early): void {
  const pid = entry.child.pid;
  if (pid === undefined || entry.ended) return;
  signalGroup(pid, 'SIGKILL');
  unregisterGroup(pid);
}
