import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { afterEach, describe, expect, it } from 'vitest';
import { DeferredStore } from '../../src/store/deferred.js';
import { acquireLock, readLock } from '../../src/store/lock.js';
import { SNAPSHOT_FILE, StartReads, loadSnapshot, saveSnapshot } from '../../src/store/snapshot.js';
import type { Store } from '../../src/store/store.js';
import { openStore } from '../../src/store/store.js';
import type { StoreEvent } from '../../src/store/types.js';
import { preparedDataDir } from './helpers/harness.js';

const VERSION = '9.9.9';
const TOOL = { namespacedName: 'echo.add' };

/** A store's data directory after one run that set an override and read what a start reads. */
async function dataDirAfterOneRun(): Promise<{ dataDir: string; reads: StartReads }> {
  const dataDir = await preparedDataDir();
  const reads = new StartReads(undefined);
  const store = new DeferredStore('pglite', dataDir, openStore({ kind: 'pglite', dataDir }), {
    startReads: reads,
  });
  await store.setOverride(TOOL, { title: 'Sum' });
  await store.getGlobalOverrides();
  await store.listPins();
  await store.getDefaultToolset();
  const answers = await reads.snapshot(await store.opened);
  await store.close();
  expect(saveSnapshot(dataDir, VERSION, answers)).toBe(true);
  return { dataDir, reads };
}

/** A store on `dataDir` opened lazily, answering from its snapshot; counts its opens. */
function lazyStore(dataDir: string): { store: DeferredStore; opens: () => number } {
  let opens = 0;
  const store = new DeferredStore(
    'pglite',
    dataDir,
    () => {
      opens++;
      return openStore({ kind: 'pglite', dataDir });
    },
    { startReads: new StartReads(loadSnapshot(dataDir, VERSION)) },
  );
  return { store, opens: () => opens };
}

describe('the start snapshot', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('answers the next start as the store would, until anything opens the database', async () => {
    const { dataDir } = await dataDirAfterOneRun();
    dirs.push(dataDir);
    const saved = loadSnapshot(dataDir, VERSION);
    expect(saved?.get('getGlobalOverrides[]')).toEqual([
      expect.objectContaining({ tool: TOOL, annotations: { title: 'Sum' } }),
    ]);
    expect(saved?.get('listPins[]')).toEqual([]);
    expect(saved?.has('getDefaultToolset[]')).toBe(true);
    // Opening the database (even only to read) rewrites its control file.
    const store = await openStore({ kind: 'pglite', dataDir });
    await store.listToolsets();
    expect(loadSnapshot(dataDir, VERSION)).toBeUndefined();
    await store.close();
    expect(loadSnapshot(dataDir, VERSION)).toBeUndefined();
  });

  it('is not read by another version, nor when its file is damaged', async () => {
    const { dataDir } = await dataDirAfterOneRun();
    dirs.push(dataDir);
    expect(loadSnapshot(dataDir, '1.0.0')).toBeUndefined();
    writeFileSync(join(dataDir, SNAPSHOT_FILE), 'not a snapshot');
    expect(loadSnapshot(dataDir, VERSION)).toBeUndefined();
    rmSync(join(dataDir, SNAPSHOT_FILE));
    expect(loadSnapshot(dataDir, VERSION)).toBeUndefined();
  });

  it('is not taken of a database still open, and an earlier one is removed', async () => {
    const { dataDir } = await dataDirAfterOneRun();
    dirs.push(dataDir);
    const store = await openStore({ kind: 'pglite', dataDir });
    try {
      await store.listToolsets();
      expect(saveSnapshot(dataDir, VERSION, new Map())).toBe(false);
      expect(existsSync(join(dataDir, SNAPSHOT_FILE))).toBe(false);
    } finally {
      await store.close();
    }
  });

  it('is not taken while anything else holds the data directory', async () => {
    const { dataDir } = await dataDirAfterOneRun();
    dirs.push(dataDir);
    const lock = acquireLock(dataDir);
    try {
      expect(saveSnapshot(dataDir, VERSION, new Map())).toBe(false);
      expect(existsSync(join(dataDir, SNAPSHOT_FILE))).toBe(false);
    } finally {
      lock.release();
    }
  });

  it('answers kept reads without opening a lazy store; anything else opens it', async () => {
    const { dataDir } = await dataDirAfterOneRun();
    dirs.push(dataDir);
    const { store, opens } = lazyStore(dataDir);
    try {
      expect(await store.getGlobalOverrides()).toEqual([
        expect.objectContaining({ annotations: { title: 'Sum' } }),
      ]);
      expect(await store.listPins()).toEqual([]);
      expect(opens()).toBe(0);
      expect(store.current).toBeUndefined();
      // Not in the snapshot: waits for the store, which it opens.
      expect(await store.listPins({ server: 'echo' })).toEqual([]);
      expect(opens()).toBe(1);
      expect(store.current).toBeDefined();
    } finally {
      await store.close();
    }
  });

  it("ends a lazy store's process once the snapshot is confirmed; the next statement starts one", async () => {
    const { dataDir } = await dataDirAfterOneRun();
    dirs.push(dataDir);
    const { store } = lazyStore(dataDir);
    try {
      store.open();
      await store.opened;
      await expect.poll(() => readLock(dataDir)?.storePid, { timeout: 10_000 }).toBeDefined();
      // Checked, and nothing else asked for the store: its process ends.
      await expect.poll(() => readLock(dataDir)?.storePid, { timeout: 10_000 }).toBeUndefined();
      await store.appendAudit([{ tool: 'echo_add', decision: 'allow', outcome: 'ok' }]);
      expect(readLock(dataDir)?.storePid).toBeUndefined();
      expect(await store.queryAudit({})).toEqual([expect.objectContaining({ tool: 'echo_add' })]);
      expect(readLock(dataDir)?.storePid).toBeDefined();
    } finally {
      await store.close();
    }
  });

  it('closes a lazy store never opened without opening it, ending every wait for it', async () => {
    const { dataDir } = await dataDirAfterOneRun();
    dirs.push(dataDir);
    const { store, opens } = lazyStore(dataDir);
    expect(store.begun).toBe(false);
    await store.listPins();
    await store.close();
    await expect(store.opened).rejects.toThrow(/closed before it was opened/);
    store.open();
    expect(opens()).toBe(0);
    // Nothing opened the database: the snapshot still holds.
    expect(loadSnapshot(dataDir, VERSION)).toBeDefined();
  });

  it('tells listeners to reread everything when the store contradicts an answer', async () => {
    const { dataDir } = await dataDirAfterOneRun();
    dirs.push(dataDir);
    // A snapshot that says there are no overrides, under the database's true stamp.
    const saved = new Map(loadSnapshot(dataDir, VERSION));
    saved.set('getGlobalOverrides[]', []);
    const file = deserializeFile(dataDir);
    writeFileSync(join(dataDir, SNAPSHOT_FILE), serialize({ ...file, reads: saved }));
    const warnings: string[] = [];
    const reads = new StartReads(loadSnapshot(dataDir, VERSION));
    const store = new DeferredStore(
      'pglite',
      dataDir,
      () => openStore({ kind: 'pglite', dataDir }),
      { startReads: reads, onWarning: (message) => warnings.push(message) },
    );
    const events: StoreEvent[] = [];
    store.watch((event) => events.push(event));
    try {
      expect(await store.getGlobalOverrides()).toEqual([]);
      store.open();
      await expect.poll(() => events, { timeout: 10_000 }).toContainEqual({ kind: 'resync' });
      expect(warnings.join('\n')).toMatch(/snapshot differed/);
      expect(await store.getGlobalOverrides()).toHaveLength(1);
      // The next snapshot is read afresh, not copied from the wrong one.
      const next = await reads.snapshot(await store.opened);
      expect(next.get('getGlobalOverrides[]')).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
});

describe('StartReads', () => {
  /** A store answering a kept read from a counter, to see whether it is read again. */
  function countingStore(): { store: Store; reads: () => number } {
    let count = 0;
    const store = {
      getDefaultToolset: () => {
        count++;
        return Promise.resolve(undefined);
      },
    } as unknown as Store;
    return { store, reads: () => count };
  }

  it('keeps what the store answered while nothing could change it', async () => {
    const reads = new StartReads(undefined);
    const key = reads.keyOf('getDefaultToolset', []);
    expect(key).toBe('getDefaultToolset[]');
    reads.answered(key as string, { kind: 'none', updatedAt: 'then' });
    // Audit records and approvals change no kept answer.
    expect(reads.keyOf('appendAudit', [[]])).toBeUndefined();
    expect(reads.keyOf('createApproval', [{}])).toBeUndefined();
    const { store, reads: count } = countingStore();
    expect((await reads.snapshot(store)).get('getDefaultToolset[]')).toEqual({
      kind: 'none',
      updatedAt: 'then',
    });
    expect(count()).toBe(0);
  });

  it.each([
    ['a write through it', (reads: StartReads) => reads.keyOf('setDefaultToolset', [{}])],
    ['a method it does not know', (reads: StartReads) => reads.keyOf('somethingNew', [])],
    ['a change heard from the store', (reads: StartReads) => reads.heard({ kind: 'overrides' })],
  ])('reads every answer again after %s', async (_what, change) => {
    const reads = new StartReads(undefined);
    reads.answered(reads.keyOf('getDefaultToolset', []) as string, { kind: 'none' });
    change(reads);
    const { store, reads: count } = countingStore();
    expect((await reads.snapshot(store)).get('getDefaultToolset[]')).toBeUndefined();
    expect(count()).toBe(1);
  });

  it("reads the snapshot's answers again if they were not checked against the store", async () => {
    const reads = new StartReads(new Map([['getDefaultToolset[]', { kind: 'none' }]]));
    reads.early('getDefaultToolset[]');
    const { store, reads: count } = countingStore();
    expect((await reads.snapshot(store)).get('getDefaultToolset[]')).toBeUndefined();
    expect(count()).toBe(1);
  });

  it('counts the calls and events that may change an answer', () => {
    const reads = new StartReads(undefined);
    reads.keyOf('listPins', []);
    reads.keyOf('appendAudit', [[]]);
    reads.heard({ kind: 'approval', id: 'a', status: 'approved' });
    expect(reads.changes).toBe(0);
    reads.keyOf('savePins', [[]]);
    reads.heard({ kind: 'pins', server: 'echo' });
    expect(reads.changes).toBe(2);
  });

  it('takes a read with its arguments left out and given as undefined for one', () => {
    const reads = new StartReads(undefined);
    expect(reads.keyOf('listPins', [undefined])).toBe(reads.keyOf('listPins', []));
    expect(reads.keyOf('getToolset', ['calm'])).toBe('getToolset["calm"]');
  });
});

function deserializeFile(dataDir: string): Record<string, unknown> {
  return deserialize(readFileSync(join(dataDir, SNAPSHOT_FILE))) as Record<string, unknown>;
}
