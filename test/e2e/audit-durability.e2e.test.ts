import type { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, describe, expect, it } from 'vitest';
import { AUDIT_FLUSH_WINDOW_MS } from '../../src/gateway/call-policy.js';
import { fixtureServer, scratchDir, writeConfig } from '../helpers/config.js';
import { LOOSE, connectStdio, newClient } from '../helpers/gateway.js';
import { ROOT, requireBuiltCli } from '../helpers/paths.js';
import type { TestStorage } from '../helpers/store.js';
import { storeSpec, testStorage } from '../helpers/store.js';
import { waitForRelease } from '../helpers/toolsets.js';
import { STORE_KINDS } from '../store/helpers/harness.js';
import { MAX_AUDIT_LIMIT } from '../../src/store/audit.js';

/** Calls kept in flight at once: the audit log batches them as a busy client's would be. */
const IN_FLIGHT = 16;

interface Gateway {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  readonly pid: number;
  readonly exited: Promise<void>;
  stderr(): string;
}

interface Acknowledged {
  /** The call's argument, which its audit record keeps. */
  readonly text: string;
  /** When its answer arrived (epoch ms). */
  readonly at: number;
}

const storages: TestStorage[] = [];
afterAll(async () => {
  for (const storage of storages) await storage.cleanup();
});

/**
 * A stdio gateway with the echo fixture server; with `ownGroup`, leading a process group of
 * its own (as a shell's foreground job or a service is), so a signal can reach all of it.
 */
async function start(storage: TestStorage, { ownGroup = false } = {}): Promise<Gateway> {
  const config = writeConfig(
    scratchDir(),
    { echo: fixtureServer('echo') },
    { dataDir: storage.dataDir, store: storeSpec(storage) },
  );
  const { client, transport, stderr } = ownGroup
    ? await connectInOwnGroup(config)
    : await connectStdio(config, 'v2-legacy');
  const pid = transport.pid;
  if (pid === null) throw new Error('the gateway process has no pid');
  const exited = new Promise<void>((resolve) => {
    client.onclose = () => resolve();
  });
  // Calls go through once the echo server is listed.
  await client.request({ method: 'tools/list', params: {} }, LOOSE);
  return { client, transport, pid, exited, stderr };
}

/** `setsid` runs the gateway in place (same pid) as the leader of a new session and group. */
async function connectInOwnGroup(
  config: string,
): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: 'setsid',
    args: [process.execPath, requireBuiltCli(), 'serve', '--config', config],
    cwd: ROOT,
    stderr: 'pipe',
  });
  let text = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const client = newClient('v2-legacy');
  await client.connect(transport);
  return { client, transport, stderr: () => text };
}

/**
 * Keeps {@link IN_FLIGHT} calls going until `stop()` says so (or the gateway goes away),
 * each with an argument of its own; resolves with the calls that were answered.
 */
async function callUntil(
  client: Client,
  tag: string,
  stop: (answered: number) => boolean,
): Promise<Acknowledged[]> {
  const answered: Acknowledged[] = [];
  let next = 0;
  let gone = false;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (!gone && !stop(answered.length)) {
        const text = `${tag}-${next++}`;
        try {
          await client.request(
            { method: 'tools/call', params: { name: 'echo_echo', arguments: { text } } },
            LOOSE,
          );
          answered.push({ text, at: Date.now() });
        } catch {
          gone = true;
        }
      }
    }),
  );
  return answered;
}

/** The arguments of the audit records of calls tagged `tag`, from the store. */
async function recordedTexts(storage: TestStorage, tag: string): Promise<Set<string>> {
  if (storage.kind === 'pglite') await waitForRelease(storage.dataDir);
  const store = await storage.open();
  try {
    // Every record, page by page (newest first, at most 10,000 a query): a busy run makes
    // more calls than one page holds.
    const texts = new Set<string>();
    let until: string | undefined;
    for (;;) {
      const records = await store.queryAudit({
        tool: 'echo_echo',
        limit: MAX_AUDIT_LIMIT,
        ...(until === undefined ? {} : { until }),
      });
      for (const record of records) {
        const text = (record.arguments as { text?: unknown } | undefined)?.text;
        if (typeof text === 'string' && text.startsWith(`${tag}-`)) texts.add(text);
      }
      const oldest = records.at(-1);
      if (records.length < MAX_AUDIT_LIMIT || oldest === undefined) return texts;
      // The oldest page's millisecond again (`until` is exclusive): nothing falls between.
      const next = new Date(Date.parse(oldest.time) + 1).toISOString();
      if (next === until) throw new Error('more than a page of records in one millisecond');
      until = next;
    }
  } finally {
    await store.close();
  }
}

function missing(acknowledged: readonly Acknowledged[], recorded: Set<string>): string[] {
  return acknowledged.filter((call) => !recorded.has(call.text)).map((call) => call.text);
}

describe.each(STORE_KINDS)(
  'audit records of a stdio gateway that is stopped (%s store)',
  (kind) => {
    it.each(['SIGTERM', 'SIGINT', 'stdin closed'] as const)(
      'keeps the record of every answered call when stopped by %s with calls in flight',
      async (how) => {
        const storage = await testStorage(kind);
        storages.push(storage);
        const gateway = await start(storage);
        const tag = `stop-${how.replace(' ', '-')}`;
        let stopped = false;
        const calls = callUntil(gateway.client, tag, (answered) => {
          // Stopped while calls are still in flight: those get no answer, so no promise.
          if (answered >= 300 && !stopped) {
            stopped = true;
            // The client's close ends the gateway's stdin first (its stderr says which it saw).
            if (how === 'stdin closed') void gateway.transport.close();
            else process.kill(gateway.pid, how);
          }
          return stopped;
        });
        const acknowledged = await calls;
        await gateway.exited;
        await gateway.client.close();
        expect(acknowledged.length).toBeGreaterThanOrEqual(300);
        const recorded = await recordedTexts(storage, tag);
        expect(missing(acknowledged, recorded), gateway.stderr()).toEqual([]);
        expect(gateway.stderr()).toContain(`shutting down (${how})`);
        // Nothing recorded that was not asked for.
        expect(recorded.size).toBeLessThanOrEqual(acknowledged.length + IN_FLIGHT);
      },
      60_000,
    );

    it('keeps the record of every answered call when its whole process group gets SIGINT (Ctrl-C)', async () => {
      const storage = await testStorage(kind);
      storages.push(storage);
      const gateway = await start(storage, { ownGroup: true });
      const tag = 'group-SIGINT';
      let stopped = false;
      const acknowledged = await callUntil(gateway.client, tag, (answered) => {
        if (answered >= 300 && !stopped) {
          stopped = true;
          // What a terminal's Ctrl-C does: every process of the group (the embedded store's
          // process and the servers included) gets the signal at once.
          process.kill(-gateway.pid, 'SIGINT');
        }
        return stopped;
      });
      await gateway.exited;
      await gateway.client.close();
      expect(acknowledged.length).toBeGreaterThanOrEqual(300);
      const recorded = await recordedTexts(storage, tag);
      expect(missing(acknowledged, recorded), gateway.stderr()).toEqual([]);
      expect(gateway.stderr()).toContain('shutting down (SIGINT)');
    }, 60_000);

    it('loses no record written before the last committed batch when killed by SIGKILL', async () => {
      const storage = await testStorage(kind);
      storages.push(storage);
      const gateway = await start(storage);
      const tag = 'killed';
      const started = Date.now();
      // Long enough for several flushes to commit, then killed in the middle of the calls.
      const calls = callUntil(gateway.client, tag, () => Date.now() - started > 6_000);
      const kill = new Promise<number>((resolve) =>
        setTimeout(() => {
          process.kill(gateway.pid, 'SIGKILL');
          resolve(Date.now());
        }, 3_000),
      );
      const [acknowledged, killedAt] = await Promise.all([calls, kill]);
      await gateway.exited;
      await gateway.client.close();
      const recorded = await recordedTexts(storage, tag);
      // None at all would mean the store never took a batch: the gateway's stderr says why.
      expect(
        recorded.size,
        `no record of ${acknowledged.length} calls; stderr:\n${gateway.stderr()}`,
      ).toBeGreaterThan(0);
      // A record is durable once its batch has committed, and batches commit one after
      // another in the order the calls ended: the latest recorded call shows how far the
      // store got (on a loaded machine a write may take longer than the window, so the
      // kill's time does not). Every call answered a window or more before it must be there.
      const lastRecordedAt = Math.max(
        ...acknowledged.filter((call) => recorded.has(call.text)).map((call) => call.at),
      );
      const before = acknowledged.filter(
        (call) => call.at < lastRecordedAt - AUDIT_FLUSH_WINDOW_MS,
      );
      expect(
        missing(before, recorded),
        `last recorded call answered ${killedAt - lastRecordedAt} ms before the kill`,
      ).toEqual([]);
    }, 60_000);
  },
);
