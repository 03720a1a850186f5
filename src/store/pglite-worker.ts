/**
 * The embedded database on a thread of its own. PGlite is PostgreSQL compiled to
 * WebAssembly: every statement runs on the thread that holds it. In the gateway's thread,
 * the audit log's inserts (about 30 µs a record) took CPU from every call in flight and
 * halved throughput; in a worker they cost the gateway one message per batch.
 *
 * The worker holds the one PGlite instance and runs what the main thread asks: a query or
 * a script, outside or inside a transaction it keeps open by id until the main thread
 * commits or rolls it back (PGlite runs one transaction at a time, so others queue). Rows,
 * parameters and errors cross as structured clones (dates, bigints and parsed JSON intact);
 * an error keeps its message and SQLSTATE `code`, so the store classifies it as before. If the
 * worker dies, every pending and later call fails with "pglite is closed", which the store
 * reports as STORE_UNAVAILABLE.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { getPriority, setPriority } from 'node:os';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Sql } from './sql.js';
import { copyStatement } from './sql.js';

/**
 * Where the database runs: a thread of this process, or a child process of its own. In a
 * process, everything PGlite allocated (its WebAssembly heap and code, about 130 MiB, and
 * several hundred MiB while the first run creates the database) is returned to the system
 * when it is closed; a thread's is only partly, as the process's allocator keeps it.
 */
export type PgliteHost = 'thread' | 'process';

// The script's opening for each host: the same `parentPort` and `workerData` for the rest.
const THREAD_PRELUDE = `const { parentPort, workerData } = require('node:worker_threads');`;
const PROCESS_PRELUDE = `
const parentPort = { postMessage: (m) => process.send(m), on: (e, f) => process.on(e, f) };
const workerData = JSON.parse(process.env.HINTGATE_PGLITE_WORKER);
// Ctrl-C and service managers signal the whole process group: the store outlives the
// signal so the gateway can write its last records, and ends when the gateway lets go.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => undefined);
// The gateway is gone (even by kill -9), or closed its end: the database goes with it.
process.on('disconnect', () => process.exit(0));
`;

// Plain CommonJS, evaluated as the worker's script: it needs no build step, so the same
// code runs from the compiled package and under the test runner.
const WORKER_SOURCE = `
const { PGlite } = require(workerData.module);
let db;
let nextTx = 1;
const open = new Map();
const reply = (id, value) => parentPort.postMessage({ id, ok: true, value });
const field = (error, key) =>
  error !== null && typeof error === 'object' && typeof error[key] === 'string' ? error[key] : undefined;
const fail = (id, error) =>
  parentPort.postMessage({
    id,
    ok: false,
    error: {
      message: field(error, 'message') ?? String(error),
      code: field(error, 'code'),
      detail: field(error, 'detail'),
      hint: field(error, 'hint'),
    },
  });
const on = (tx) => {
  if (tx === undefined) return db;
  const entry = open.get(tx);
  if (entry === undefined) throw new Error('transaction ' + tx + ' is over');
  return entry.tx;
};
async function handle(m) {
  switch (m.op) {
    case 'open':
      // Settings as start parameters: PGlite would rewrite postgresql.conf for postgresqlconf.
      db = await PGlite.create({
        dataDir: m.dataDir,
        startParams: [...PGlite.defaultStartParams, ...m.settings.flatMap((s) => ['-c', s])],
      });
      return undefined;
    case 'query':
      return (await on(m.tx).query(m.text, m.params)).rows;
    case 'exec':
      await on(m.tx).exec(m.text);
      return undefined;
    case 'copy':
      // COPY ... FROM '/dev/blob' reads the blob given with the statement.
      await on(m.tx).query(m.text, [], { blob: new Blob([m.data]) });
      return undefined;
    case 'begin': {
      const id = nextTx++;
      let entered;
      const started = new Promise((resolve) => (entered = resolve));
      const done = db.transaction(
        (tx) =>
          new Promise((resolve, reject) => {
            open.set(id, { tx, resolve, reject, done });
            entered();
          }),
      );
      await Promise.race([started, done]);
      return id;
    }
    case 'commit': {
      const entry = open.get(m.tx);
      if (entry === undefined) throw new Error('transaction ' + m.tx + ' is over');
      entry.resolve();
      try {
        await entry.done;
      } finally {
        open.delete(m.tx);
      }
      return undefined;
    }
    case 'rollback': {
      const entry = open.get(m.tx);
      if (entry === undefined) return undefined;
      entry.reject(new Error('rolled back'));
      await entry.done.catch(() => undefined);
      open.delete(m.tx);
      return undefined;
    }
    case 'close':
      // A transaction left open would hold close() forever: roll each one back first.
      for (const entry of open.values()) entry.reject(new Error('the store is closing'));
      await Promise.all([...open.values()].map((entry) => entry.done.catch(() => undefined)));
      open.clear();
      await db?.close();
      return undefined;
    default:
      throw new Error('unknown operation ' + m.op);
  }
}
parentPort.on('message', (m) => {
  handle(m).then((value) => reply(m.id, value), (error) => fail(m.id, error));
});
`;

/** Where PGlite's `COPY … FROM` reads the blob given with the statement. */
export const PGLITE_COPY_SOURCE = "'/dev/blob'";

/** What the worker answers one request with. */
interface Reply {
  readonly id: number;
  readonly ok: boolean;
  readonly value?: unknown;
  readonly error?: {
    readonly message: string;
    readonly code?: string;
    readonly detail?: string;
    readonly hint?: string;
  };
}

/** A request to the worker, without its id. */
type Request =
  | { readonly op: 'open'; readonly dataDir: string; readonly settings: readonly string[] }
  | {
      readonly op: 'query';
      readonly tx?: number;
      readonly text: string;
      readonly params: unknown[];
    }
  | { readonly op: 'exec'; readonly tx?: number; readonly text: string }
  | { readonly op: 'copy'; readonly tx?: number; readonly text: string; readonly data: string }
  | { readonly op: 'begin' }
  | { readonly op: 'commit' | 'rollback'; readonly tx: number }
  | { readonly op: 'close' };

/** An error from the worker: its message, and its SQLSTATE, detail and hint when it had them. */
class WorkerQueryError extends Error {
  readonly code: string | undefined;
  readonly detail: string | undefined;
  readonly hint: string | undefined;
  constructor(error: Reply['error']) {
    super(
      [error?.message ?? 'failed', error?.detail, error?.hint && `hint: ${error.hint}`]
        .filter(Boolean)
        .join('; '),
    );
    this.name = 'PGliteError';
    this.code = error?.code;
    this.detail = error?.detail;
    this.hint = error?.hint;
  }
}

/** How long closing may wait for the database before the thread is ended anyway. */
const CLOSE_TIMEOUT_MS = 10_000;

/** How much of the store process's stderr its end's message keeps (its last characters). */
export const STDERR_TAIL_CHARS = 2_000;

/** What {@link PgliteWorker} needs of a thread or a child process. */
interface Host {
  post(message: unknown): void;
  on(event: 'message', listener: (reply: Reply) => void): void;
  /** Told once, with why, when the thread or process has ended or could not start. */
  onEnd(listener: (why: string) => void): void;
  /** The child process's id (a thread has none). */
  readonly pid: number | undefined;
  /** Resolves once the process has exited (or could not start); a thread's never does. */
  readonly exited: Promise<void>;
  ref(): void;
  unref(): void;
  terminate(): Promise<void>;
}

function threadHost(module: string): Host {
  const worker = new Worker(`${THREAD_PRELUDE}\n${WORKER_SOURCE}`, {
    eval: true,
    workerData: { module },
  });
  return {
    post: (message) => worker.postMessage(message),
    on: (event: string, listener: (arg: never) => void) => {
      worker.on(event, listener as (arg: unknown) => void);
    },
    onEnd: (listener) => {
      worker.on('error', (error) => listener(error.message));
      worker.on('exit', (code) => listener(`its thread exited (code ${code})`));
    },
    pid: undefined,
    exited: new Promise(() => undefined),
    ref: () => worker.ref(),
    unref: () => worker.unref(),
    terminate: async () => {
      await worker.terminate();
    },
  };
}

/** How long an ending store process run with `--cpu-prof` has to write its profile. */
const PROFILE_EXIT_MS = 5_000;

/**
 * Node options of the store process, which runs one WebAssembly PostgreSQL and a message
 * loop: no use for V8's default helper threads (one per core, each with its own stacks and
 * allocator arena) nor for 16 MiB young-generation semi-spaces. `--liftoff-only` keeps
 * PostgreSQL's WebAssembly in V8's baseline code, never compiled again by the optimizing
 * compiler: that second compilation of a 10 MB module cost more CPU than it saved in a
 * process that is closed when idle and opened again (40,000 audit rows after an open: 26-31
 * µs a row against 43, the open 0.3-0.45 s of CPU against 0.55-0.7) and 40-80 MiB of memory
 * (130 MiB open, 185 at work, against 170 and 230-265). Past about 100,000 rows in one
 * process, optimized code would be the faster (200,000 rows: 35 µs a row against 26).
 */
export const STORE_NODE_FLAGS: readonly string[] = [
  '--v8-pool-size=1',
  '--max-semi-space-size=2',
  '--liftoff-only',
];

/** Its environment besides the worker's data: glibc's allocator with 2 arenas, not 8 per core. */
export const STORE_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };

/** The options of `node --cpu-prof` that take a value, given as `--option=value` or apart. */
const CPU_PROF_VALUED = new Set(['--cpu-prof-dir', '--cpu-prof-interval', '--cpu-prof-name']);

/**
 * The `--cpu-prof` options among a process's `execArgv`, for the store process: a gateway run
 * with them profiles its store too, into the same directory (where the CPU of a call goes is
 * in both). `--cpu-prof-name` is left out: the store's profile would overwrite the gateway's.
 */
export function storeProfilingFlags(execArgv: readonly string[]): string[] {
  const flags: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    if (!arg.startsWith('--cpu-prof')) continue;
    const name = arg.split('=', 1)[0]!;
    const apart = CPU_PROF_VALUED.has(name) && !arg.includes('=');
    const value = apart ? execArgv[++i] : undefined;
    if (name === '--cpu-prof-name') continue;
    flags.push(arg);
    if (value !== undefined) flags.push(value);
  }
  return flags;
}

/**
 * The store process's niceness: its work (starting, copying the audit journal, checking the
 * start snapshot) is done in the background of the calls it records, and on a machine whose
 * cores are all busy with clients, the gateway and its servers, it gets the CPU they leave
 * rather than a share taken from them (a nice 10 process gets about a tenth of a core
 * against one at 0). Alone, it runs at full speed.
 */
export const STORE_NICENESS = 10;

/** Lowers the store process's priority to {@link STORE_NICENESS}; nothing if not allowed. */
function lowerPriority(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    // Relative to the gateway's own: a gateway already run under `nice` keeps its store below it.
    setPriority(pid, Math.min(19, getPriority() + STORE_NICENESS));
  } catch {
    // A process already gone (it failed to start: said by its 'error' event) or a platform
    // that refuses: it runs at the gateway's priority.
  }
}

function processHost(module: string, execPath: string): Host {
  const profiling = storeProfilingFlags(process.execArgv);
  // Structured clones over the IPC channel, as between threads (dates, bigints intact).
  const script = `${PROCESS_PRELUDE}\n${WORKER_SOURCE}`;
  const child: ChildProcess = spawn(execPath, [...STORE_NODE_FLAGS, ...profiling, '-e', script], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'advanced',
    // Only what it needs: the gateway's environment may hold servers' secrets.
    env: { ...STORE_ENV, HINTGATE_PGLITE_WORKER: JSON.stringify({ module }) },
  });
  lowerPriority(child.pid);
  // The end of what it wrote to stderr, for the message that says it ended.
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL_CHARS);
  });
  const name = () => `the store process${child.pid === undefined ? '' : ` (pid ${child.pid})`}`;
  const withStderr = (why: string) => {
    const tail = stderr.trim();
    return tail === '' ? why : `${why}; its stderr: ${tail}`;
  };
  // A process that could not start emits 'error' and 'close', never 'exit'.
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('close', () => resolve());
    child.once('error', () => {
      if (child.pid === undefined) resolve();
    });
  });
  return {
    post: (message) => {
      if (child.send === undefined || !child.connected) throw new Error(`${name()} has exited`);
      child.send(message as never);
    },
    on: (event: string, listener: (arg: never) => void) => {
      child.on(event, listener as (arg: unknown) => void);
    },
    onEnd: (listener) => {
      child.on('error', (error) =>
        listener(
          child.pid === undefined
            ? `cannot start the store process: ${error.message}`
            : `${name()} failed: ${error.message}`,
        ),
      );
      // 'close' comes after its stderr has been read to the end.
      child.on('close', (code: number | null, signal: NodeJS.Signals | null) => {
        if (child.pid === undefined) return;
        listener(
          withStderr(
            signal === null
              ? `${name()} exited with code ${code}`
              : `${name()} was killed by ${signal}`,
          ),
        );
      });
    },
    get pid() {
      return child.pid;
    },
    exited,
    ref: () => {
      child.ref();
      child.channel?.ref();
      (child.stderr as { ref?: () => void } | null)?.ref?.();
    },
    unref: () => {
      child.unref();
      child.channel?.unref();
      (child.stderr as { unref?: () => void } | null)?.unref?.();
    },
    terminate: async () => {
      // Never started: nothing to end.
      if (child.pid === undefined) return;
      if (child.exitCode === null && child.signalCode === null) {
        // Waiting for its exit keeps this process alive (an unref'd child would not).
        child.ref();
        if (profiling.length > 0 && child.connected) {
          // It exits by itself once the channel closes, writing its profile on the way.
          child.disconnect();
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([
            exited,
            new Promise((resolve) => (timer = setTimeout(resolve, PROFILE_EXIT_MS))),
          ]);
          clearTimeout(timer);
        }
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
      await exited;
    },
  };
}

/** Told of a store process's life (see {@link PgliteWorker.open}). */
export interface PgliteProcessHooks {
  /** The process has started, and has not yet opened the database. */
  readonly onSpawn?: (pid: number) => void;
  /** The process has exited, however it ended. */
  readonly onExit?: (pid: number) => void;
}

/** PGlite running in a worker thread or a child process ({@link PgliteHost}). */
export class PgliteWorker {
  readonly #worker: Host;
  readonly #pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  #next = 1;
  #gone: Error | undefined;

  private constructor(host: PgliteHost, execPath: string) {
    const module = createRequire(import.meta.url).resolve('@electric-sql/pglite');
    this.#worker = host === 'process' ? processHost(module, execPath) : threadHost(module);
    // Held while a call is pending (a command waiting on the store must not exit), not while
    // idle (an idle database thread keeps no process alive).
    this.#worker.unref();
    this.#worker.on('message', (reply: Reply) => {
      const pending = this.#pending.get(reply.id);
      if (pending === undefined) return;
      this.#pending.delete(reply.id);
      if (this.#pending.size === 0) this.#worker.unref();
      if (reply.ok) pending.resolve(reply.value);
      else pending.reject(new WorkerQueryError(reply.error));
    });
    this.#worker.onEnd((why) => this.#end(why));
  }

  /**
   * Starts a worker and opens the database in `dataDir` there, with PostgreSQL `settings`
   * (`name=value`) as start parameters. A process runs `execPath` (this Node by default);
   * `hooks` hear of it before it touches the data directory, and once it has exited.
   */
  static async open(
    dataDir: string,
    settings: readonly string[] = [],
    host: PgliteHost = 'process',
    execPath: string = process.execPath,
    hooks: PgliteProcessHooks = {},
  ): Promise<PgliteWorker> {
    const worker = new PgliteWorker(host, execPath);
    try {
      const pid = worker.pid;
      if (pid !== undefined) {
        hooks.onSpawn?.(pid);
        const { onExit } = hooks;
        if (onExit !== undefined) void worker.#worker.exited.then(() => onExit(pid));
      }
      await worker.#call({ op: 'open', dataDir, settings });
    } catch (error) {
      await worker.#worker.terminate();
      throw error;
    }
    return worker;
  }

  /** Why the database can no longer be used (closed, or its process ended), once it cannot. */
  get gone(): Error | undefined {
    return this.#gone;
  }

  /** The store process's id (undefined on a thread, or when it could not start). */
  get pid(): number | undefined {
    return this.#worker.pid;
  }

  /** Runs statements outside any transaction. */
  readonly sql: Sql = this.#sqlOf(undefined);

  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  async transaction<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    const tx = (await this.#call({ op: 'begin' })) as number;
    let result: T;
    try {
      result = await fn(this.#sqlOf(tx));
    } catch (error) {
      await this.#call({ op: 'rollback', tx }).catch(() => undefined);
      throw error;
    }
    await this.#call({ op: 'commit', tx });
    return result;
  }

  /** Closes the database (within {@link CLOSE_TIMEOUT_MS}) and ends the thread. */
  async close(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      if (this.#gone === undefined) {
        await Promise.race([
          this.#call({ op: 'close' }),
          new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_TIMEOUT_MS))),
        ]);
      }
    } finally {
      clearTimeout(timer);
      await this.#worker.terminate();
      this.#end();
    }
  }

  #sqlOf(tx: number | undefined): Sql {
    const scope = tx === undefined ? {} : { tx };
    return {
      query: async <R>(text: string, params: readonly unknown[] = []): Promise<R[]> =>
        (await this.#call({ op: 'query', ...scope, text, params: [...params] })) as R[],
      exec: async (text: string): Promise<void> => {
        await this.#call({ op: 'exec', ...scope, text });
      },
      copyFrom: async (table: string, columns: readonly string[], data: string): Promise<void> => {
        const text = copyStatement(table, columns, PGLITE_COPY_SOURCE);
        await this.#call({ op: 'copy', ...scope, text, data });
      },
    };
  }

  #call(request: Request): Promise<unknown> {
    if (this.#gone !== undefined) return Promise.reject(this.#gone);
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      if (this.#pending.size === 0) this.#worker.ref();
      this.#pending.set(id, { resolve, reject });
      try {
        this.#worker.post({ id, ...request });
      } catch (error) {
        this.#pending.delete(id);
        if (this.#pending.size === 0) this.#worker.unref();
        // A channel already closed: its process is ending ('close' will say how).
        const why = error instanceof Error ? error.message : String(error);
        this.#end(why);
        reject(this.#gone ?? new Error(`pglite is closed: ${why}`));
      }
    });
  }

  /** Fails every pending and later call: with `why` it ended, without it was closed. */
  #end(why?: string): void {
    this.#gone ??= new Error(why === undefined ? 'pglite is closed' : `pglite is closed: ${why}`);
    for (const pending of this.#pending.values()) pending.reject(this.#gone);
    this.#pending.clear();
  }
}
