/**
 * Pins in the running gateway: every listing of a server is re-checked against its pins
 * (at start, on list_changed, on reconnect) before the catalog serves it; what drifted is
 * saved to the store and recorded in the audit log; a person's decision (the CLI, the API,
 * another replica) arrives as a `pins` store event and is applied at once.
 */
import type { Config } from '../../config/schema.js';
import { errorMessage } from '../../core/errors.js';
import type { ScanContext } from '../../core/pins/scan.js';
import { otherToolNames } from '../../core/pins/scan.js';
import type { JsonObject } from '../../mcp/json-rpc.js';
import type { AuditRecordInput, Store } from '../../store/store.js';
import type { CheckResult, DriftEvent, PinSettings } from './book.js';
import { PinBook } from './book.js';

/** What a {@link PinGuard} needs from the gateway. */
export interface PinGuardOptions {
  readonly config: Config;
  readonly store: Store;
  /** Every tool the catalog serves now (for references to other servers' tools). */
  readonly tools: () => Iterable<{ readonly server: string; readonly name: string }>;
  readonly log: (line: string) => void;
}

/** The audit record of a drift, or of a person's decision on one. */
export function driftRecord(server: string, event: DriftEvent): AuditRecordInput {
  const { drift } = event;
  const name = `${server}.${event.tool}`;
  const grades = drift.grades.length === 0 ? 'first-sight' : drift.grades.join(',');
  const findings = drift.findings.map((finding) => `${finding.field}: ${finding.message}`);
  const renamed = drift.renamedFrom === undefined ? '' : ` (renamed from ${drift.renamedFrom})`;
  return {
    tool: name,
    namespacedName: name,
    server,
    decision: `pin:${event.action}`,
    outcome: grades,
    error: `${drift.kind} tool${renamed}: ${grades}${findings.length > 0 ? `; ${findings.join('; ')}` : ''}`,
    arguments: {
      drift: {
        kind: drift.kind,
        grades: drift.grades,
        changes: drift.changes.map((change) => ({ path: change.path, grade: change.grade })),
        findings: drift.findings,
        ...(drift.renamedFrom === undefined ? {} : { renamedFrom: drift.renamedFrom }),
      },
    },
  };
}

/**
 * Runs {@link PinBook} re-checks for the gateway: after the store's pins are loaded, one
 * server at a time in listing order; saves and records in the background (a store that
 * cannot be reached loses a record, never a listing: the book keeps what it decided).
 */
export class PinGuard {
  readonly book = new PinBook();
  private loaded: Promise<void> | undefined;
  private readonly chains = new Map<string, Promise<unknown>>();
  private saving: Promise<void> = Promise.resolve();

  constructor(private readonly options: PinGuardOptions) {}

  /** Loads every pin from the store (once). */
  start(): Promise<void> {
    this.loaded ??= this.options.store.listPins().then((pins) => {
      const byServer = new Map<string, typeof pins>();
      for (const pin of pins) byServer.set(pin.server, [...(byServer.get(pin.server) ?? []), pin]);
      for (const [server, list] of byServer) this.book.load(server, list);
    });
    return this.loaded;
  }

  /** The policy of one server: its own `pinning` keys, else the global ones. */
  settings(server: string): PinSettings {
    const global = this.options.config.pinning;
    const own = this.options.config.mcpServers[server]?.pinning;
    return {
      mode: own?.mode ?? global.mode,
      trustOnFirstUse: own?.trustOnFirstUse ?? global.trustOnFirstUse,
    };
  }

  /** Re-checks a server's listing; resolves with what to serve. */
  check(server: string, tools: readonly JsonObject[]): Promise<CheckResult> {
    return this.serially(server, async () => {
      // Hashed now, while the pins may still be loading (at start, with the store opening
      // beside a dozen starting processes): the check then waits for nothing but them.
      this.book.prepare(server, tools);
      await this.start();
      const result = this.book.check(server, tools, this.settings(server), () =>
        this.scanContext(server, tools),
      );
      this.persist(server, result);
      return result;
    });
  }

  /** Reads a server's pins from the store again (a person decided); then re-check it. */
  reload(server: string): Promise<void> {
    return this.serially(server, async () => {
      await this.start();
      await this.saving;
      this.book.load(server, await this.options.store.listPins({ server }));
    });
  }

  /** Waits for the saves and records started so far. */
  flushed(): Promise<void> {
    return this.saving;
  }

  private serially<T>(server: string, task: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(server) ?? Promise.resolve();
    const next = previous.then(task, task);
    this.chains.set(
      server,
      next.catch(() => undefined),
    );
    return next;
  }

  private scanContext(server: string, tools: readonly JsonObject[]): ScanContext {
    const own = new Set<string>();
    for (const tool of tools) if (typeof tool['name'] === 'string') own.add(tool['name']);
    return { otherTools: otherToolNames(this.options.tools(), server, own) };
  }

  private persist(server: string, result: CheckResult): void {
    const { store, log } = this.options;
    if (result.writes.length === 0 && result.events.length === 0) return;
    for (const event of result.events) {
      if (event.action === 'trusted' || event.drift.kind === 'removed') continue;
      log(
        `pins: ${server}.${event.tool} ${event.drift.kind}: ${event.drift.grades.join(', ')} -> ${event.action}`,
      );
    }
    const writes = result.writes;
    const records = result.events
      .filter((event) => event.action !== 'trusted')
      .map((event) => driftRecord(server, event));
    const trusted = result.events.length - records.length;
    if (trusted > 0) {
      // First sight: one record for the server, not one per tool.
      records.push({
        tool: `${server}.*`,
        server,
        decision: 'pin:trusted',
        outcome: 'first-sight',
        error: `${trusted} tool(s) pinned at first sight`,
      });
    }
    this.saving = this.saving.then(async () => {
      try {
        if (writes.length > 0) await store.savePins(writes);
        if (records.length > 0) await store.appendAudit(records);
      } catch (error) {
        log(`pins: could not save ${server}'s pins: ${errorMessage(error)}`);
      }
    });
  }
}
