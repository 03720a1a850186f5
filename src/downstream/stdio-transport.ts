import type { ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, createWriteStream, mkdirSync, openSync } from 'node:fs';
import { redactCommandLine } from '../core/util/redact.js';
import type { WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { DownstreamError } from '../mcp/rpc-errors.js';
import type { JsonObject, RpcMessage } from '../mcp/json-rpc.js';
import { invalidMessageReason, isJsonObject } from '../mcp/json-rpc.js';
import { LineReader, LineWriter } from '../mcp/line-framing.js';
import {
  isGroupAlive,
  registerGroup,
  signalGroup,
  unregisterGroup,
  waitForGroupExit,
} from './process-group.js';
import { serverEnvironment, spawnServer, takeEarly } from './launch.js';

/** Lines of stdout that are not JSON-RPC tolerated before the connection is failed. */
export const DEFAULT_MAX_GARBAGE_LINES = 20;

/** How a server process is started. */
export interface ChildProcessTransportOptions {
  /** The server's name, for messages. */
  readonly server: string;
  readonly command: string;
  readonly args: readonly string[];
  /** Variables set on top of the inherited ones. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string | undefined;
  /** The file that receives the server's stderr and hintgate's notes about its stdout. */
  readonly logFile: string;
  /** Each step of closing (stdin end, SIGTERM) waits this long before the next. */
  readonly closeGraceMs?: number;
  /** Non-JSON-RPC stdout lines tolerated (logged and marked) before failing the connection. */
  readonly maxGarbageLines?: number;
  /** Process environment to inherit from; the CLI passes `process.env`. */
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
}

/** How the process ended. */
export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The last lines the server wrote to stderr. */
  readonly stderrTail: string;
  /** The process ended because hintgate closed the connection. */
  readonly requested: boolean;
}

/**
 * A downstream stdio transport of hintgate's own (the SDK `Transport` interface): the server
 * is spawned as the leader of its own process group, its stderr goes to a per-server log
 * file (never to the gateway's stdout), stdout is read as newline-delimited JSON-RPC, and
 * `close()` ends stdin, waits, then SIGTERMs and finally SIGKILLs the whole group.
 *
 * Lines on stdout that are not JSON-RPC are written to the log marked
 * `[hintgate] non-JSON-RPC stdout line` and tolerated up to `maxGarbageLines`; past that the
 * connection fails with `DOWNSTREAM_PROTOCOL`. A JSON object carrying the id of a request
 * but no valid result or error becomes an error response for that id at once, so the
 * request fails clearly instead of timing out.
 *
 * An `interceptor` may claim messages before the SDK sees them (the raw call lane).
 */
export class ChildProcessTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined;
  /** Claims a message before the SDK sees it; returns true when it did. */
  interceptor: ((message: RpcMessage) => boolean) | undefined;
  /** Present (always null) so the SDK treats this as a stdio transport: no sibling probe. */
  readonly stderr = null;

  private child: ChildProcess | undefined;
  private writer: LineWriter | undefined;
  private readonly reader = new LineReader();
  private log: WriteStream | undefined;
  private started: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private closedNotified = false;
  private exitInfo: ChildExit | undefined;
  private readonly exited: Promise<void>;
  private resolveExited!: () => void;
  private stderrTail = '';
  private garbageLines = 0;
  private readonly garbageSamples: string[] = [];
  private failureValue: DownstreamError | undefined;

  constructor(private readonly options: ChildProcessTransportOptions) {
    this.exited = new Promise((resolve) => {
      this.resolveExited = resolve;
    });
  }

  /** The server process id (its group id too), once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** How the process ended, once it has. */
  get exit(): ChildExit | undefined {
    return this.exitInfo;
  }

  /** Why hintgate gave up on the connection (a protocol violation), if it did. */
  get failure(): DownstreamError | undefined {
    return this.failureValue;
  }

  /** A sentence about the stdout lines that were not JSON-RPC, or undefined when none were. */
  get garbageSummary(): string | undefined {
    if (this.garbageLines === 0) return undefined;
    const sample = this.garbageSamples.map((line) => JSON.stringify(line)).join(', ');
    return `it wrote ${this.garbageLines} line(s) to stdout that are not JSON-RPC (e.g. ${sample})`;
  }

  start(): Promise<void> {
    this.started ??= this.spawnChild();
    return this.started;
  }

  private spawnChild(): Promise<void> {
    const { command, args, cwd, logFile } = this.options;
    // The log holds what the server prints: its owner's alone (0600, in a 0700 directory).
    mkdirSync(dirname(logFile), { recursive: true, mode: 0o700 });
    closeSync(openSync(logFile, 'a', 0o600));
    chmodSync(logFile, 0o600);
    this.log = createWriteStream(logFile, { flags: 'a', mode: 0o600 });
    this.log.on('error', () => undefined);
    this.note(`starting: ${redactCommandLine([command, ...args])}`);
    const launch = {
      command,
      args,
      cwd,
      env: serverEnvironment(this.options.baseEnv ?? process.env, this.options.env),
    };
    return new Promise((resolve, reject) => {
      // The process `hintgate serve` started for this server while loading, if it is this one.
      const adopted = takeEarly(this.options.server, launch);
      let child: ChildProcess;
      try {
        child = adopted ?? spawnServer(launch);
      } catch (error) {
        reject(this.spawnFailure(error));
        return;
      }
      this.child = child;
      child.once('error', (error) => {
        if (child.pid === undefined) {
          reject(this.spawnFailure(error));
          this.finish({ code: null, signal: null, stderrTail: '', requested: false });
          return;
        }
        this.onerror?.(error);
      });
      const spawned = (): void => {
        if (child.pid !== undefined) registerGroup(child.pid);
        resolve();
      };
      if (adopted === undefined) child.once('spawn', spawned);
      else spawned();
      child.once('exit', (code, signal) => {
        this.note(`exited (${signal ?? `code ${String(code)}`})`);
        this.finish({
          code,
          signal,
          stderrTail: this.stderrTail.trim(),
          requested: this.closing !== undefined,
        });
      });
      const stdin = child.stdin;
      const stdout = child.stdout;
      const stderr = child.stderr;
      if (stdin === null || stdout === null || stderr === null) return;
      stdin.on('error', () => undefined); // EPIPE after a crash surfaces as the exit instead.
      this.writer = new LineWriter(stdin, (error) => this.onerror?.(error));
      stdout.on('data', (chunk: Buffer) => this.onStdout(chunk));
      stderr.on('data', (chunk: Buffer) => {
        this.log?.write(chunk);
        this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-2000);
      });
    });
  }

  private spawnFailure(error: unknown): DownstreamError {
    const code = (error as NodeJS.ErrnoException).code;
    const { server, command } = this.options;
    const why =
      code === 'ENOENT'
        ? `command not found: "${command}"`
        : code === 'EACCES'
          ? `command not executable: "${command}"`
          : `could not start "${command}": ${(error as Error).message}`;
    this.note(why);
    return new DownstreamError('DOWNSTREAM_UNAVAILABLE', server, why, undefined, { cause: error });
  }

  private onStdout(chunk: Buffer): void {
    const ok = this.reader.push(chunk, this.onLine);
    if (!ok) this.fail('wrote a line longer than 64 MiB to stdout');
  }

  private readonly onLine = (line: string): void => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.garbage(line, 'not JSON');
      return;
    }
    const reason = invalidMessageReason(value);
    if (reason !== undefined) {
      this.garbage(line, reason);
      const id = isJsonObject(value) ? value['id'] : undefined;
      if (
        (typeof id === 'string' || typeof id === 'number') &&
        !('method' in (value as JsonObject))
      ) {
        // A broken answer to a request: fail that request now rather than let it time out.
        this.deliver({
          jsonrpc: '2.0',
          id,
          error: {
            code: -32012,
            message: `server "${this.options.server}" sent an invalid JSON-RPC response: ${reason}`,
          },
        });
      }
      return;
    }
    this.deliver(value as RpcMessage);
  };

  private deliver(message: RpcMessage): void {
    if (this.interceptor?.(message) === true) return;
    this.onmessage?.(message as JSONRPCMessage);
  }

  private garbage(line: string, reason: string): void {
    this.garbageLines++;
    const shown = line.length > 200 ? `${line.slice(0, 200)}…` : line;
    if (this.garbageSamples.length < 3) this.garbageSamples.push(shown);
    this.note(`non-JSON-RPC stdout line (${reason}): ${shown}`);
    const max = this.options.maxGarbageLines ?? DEFAULT_MAX_GARBAGE_LINES;
    if (this.garbageLines > max) {
      this.fail(`does not speak JSON-RPC on stdout: ${this.garbageSummary ?? ''}`);
    }
  }

  private fail(why: string): void {
    if (this.failureValue !== undefined) return;
    const error = new DownstreamError(
      'DOWNSTREAM_PROTOCOL',
      this.options.server,
      `server "${this.options.server}" ${why}`,
    );
    this.failureValue = error;
    this.note(why);
    this.onerror?.(error);
    void this.close();
  }

  /** Writes a line to the server's log, marked as hintgate's. */
  note(text: string): void {
    this.log?.write(`[hintgate ${new Date().toISOString()}] ${text}\n`);
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.sendRaw(JSON.stringify(message));
    return Promise.resolve();
  }

  /** Writes one already-serialized message; the fast path's entry. */
  sendRaw(line: string): void {
    if (this.writer === undefined || this.closing !== undefined || this.exitInfo !== undefined) {
      throw (
        this.failureValue ??
        new DownstreamError(
          'DOWNSTREAM_UNAVAILABLE',
          this.options.server,
          `server "${this.options.server}" is not running`,
        )
      );
    }
    this.writer.write(line);
  }

  /**
   * Ends stdin, waits up to the grace period for the server to exit, then SIGTERMs the
   * whole group, waits again, then SIGKILLs it. Resolves once every process is gone.
   */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    const grace = this.options.closeGraceMs ?? 2000;
    const child = this.child;
    const pid = child?.pid;
    if (child !== undefined && pid !== undefined) {
      this.writer?.close();
      child.stdin?.end();
      if (!(await this.waitExit(grace))) signalGroup(pid, 'SIGTERM');
      if (!(await this.waitExit(grace))) signalGroup(pid, 'SIGKILL');
      await this.waitExit(grace);
      await this.reapGroup(pid, grace);
    }
    this.finish(
      this.exitInfo ?? {
        code: null,
        signal: null,
        stderrTail: this.stderrTail.trim(),
        requested: true,
      },
    );
    await new Promise<void>((resolve) => {
      if (this.log === undefined) resolve();
      else this.log.end(resolve);
    });
  }

  /** Processes the server left behind in its group (an npx wrapper's child) are ended too. */
  private async reapGroup(pid: number, grace: number): Promise<void> {
    if (isGroupAlive(pid)) {
      signalGroup(pid, 'SIGTERM');
      if (!(await waitForGroupExit(pid, grace))) {
        signalGroup(pid, 'SIGKILL');
        await waitForGroupExit(pid, grace);
      }
    }
    unregisterGroup(pid);
  }

  private waitExit(timeoutMs: number): Promise<boolean> {
    if (this.exitInfo !== undefined) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      void this.exited.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private finish(exit: ChildExit): void {
    if (this.exitInfo === undefined) {
      this.exitInfo = exit;
      this.resolveExited();
      this.reader.clear();
      const pid = this.child?.pid;
      // A crash can leave the server's own children behind: end the group in the background.
      if (pid !== undefined && this.closing === undefined) {
        void this.reapGroup(pid, this.options.closeGraceMs ?? 2000);
      }
    }
    if (!this.closedNotified) {
      this.closedNotified = true;
      this.onclose?.();
    }
  }
}
