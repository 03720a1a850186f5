import type { RestrictedArguments } from '../config/policy-schema.js';
import type { AuditWriter } from '../store/store.js';
import { auditRecordOf } from './audit-record.js';
import type { CallRecorder, FinishedCall } from './pipeline/audit.js';

/** Options of {@link AuditLog}. */
export interface AuditLogOptions {
  /** How `restricted` tools' arguments are kept, per tool. */
  readonly restrictedArguments: (server: string, tool: string) => RestrictedArguments;
  /** How long finished calls wait before their records are built (default 50 ms). */
  readonly delayMs?: number;
  /** Build at once when this many wait (default 1,000). */
  readonly maxPending?: number;
}

/**
 * The audit step's recorder: `record` only keeps the finished call (one array push), and a
 * timer builds the records (redaction included) and hands them to the store's batched
 * {@link AuditWriter}, which writes them in the background. So neither building nor
 * writing a record ever delays a call's answer.
 */
export class AuditLog implements CallRecorder {
  private pending: FinishedCall[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly delayMs: number;
  private readonly maxPending: number;

  constructor(
    private readonly writer: AuditWriter,
    private readonly options: AuditLogOptions,
  ) {
    this.delayMs = options.delayMs ?? 50;
    this.maxPending = options.maxPending ?? 1_000;
  }

  record(call: FinishedCall): void {
    this.pending.push(call);
    if (this.pending.length >= this.maxPending) {
      clearTimeout(this.timer);
      this.timer = undefined;
      setImmediate(() => this.build());
    } else if (this.timer === undefined) {
      this.timer = setTimeout(() => this.build(), this.delayMs);
      this.timer.unref();
    }
  }

  /** Builds what waits and writes everything to the store. */
  async flush(): Promise<void> {
    this.build();
    await this.writer.flush();
  }

  /** Flushes and closes the writer. */
  async close(): Promise<void> {
    this.build();
    await this.writer.close();
  }

  /** Records dropped (the store could not keep up, or failed). */
  get dropped(): number {
    return this.writer.dropped;
  }

  private build(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const calls = this.pending;
    if (calls.length === 0) return;
    this.pending = [];
    for (const call of calls) {
      this.writer.write(auditRecordOf(call, this.options.restrictedArguments));
    }
  }
}
