import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalog } from '../../../src/gateway/catalog.js';
import { META_TOOLS } from '../../../src/gateway/meta-tools/index.js';
import type { ConfigurationMode } from '../../../src/gateway/toolsets/service.js';
import { ToolsetService } from '../../../src/gateway/toolsets/service.js';
import type { NotifyTarget } from '../../../src/gateway/toolsets/slots.js';
import { emptySession } from '../../../src/front/session.js';
import type { SessionInfo } from '../../../src/front/session.js';
import type { Store } from '../../../src/store/store.js';
import { waitFor } from '../../helpers/processes.js';
import type { TestStorage } from '../../helpers/store.js';
import { testStorage } from '../../helpers/store.js';
import { STORE_KINDS } from '../../store/helpers/harness.js';

const tool = (name: string) => ({
  name,
  description: `${name} tool`,
  inputSchema: { type: 'object' },
});

function catalogOf(): Catalog {
  const catalog = new Catalog();
  catalog.setServer('linear', [tool('create_issue'), tool('list_issues')], { trust: 'untrusted' });
  catalog.setServer('files', [tool('read_file')], { trust: 'untrusted' });
  return catalog;
}

const legacy = (id: string): SessionInfo => ({ ...emptySession(id, 'http'), era: 'legacy' });
const modern = (principal: string | undefined): SessionInfo => ({
  ...emptySession('http', 'http'),
  era: 'modern',
  principal,
});

/** A service with a recorder of whom it notified. */
function serviceOf(
  store: Store,
  options: { defaultToolset?: string; mode?: ConfigurationMode } = {},
): { service: ToolsetService; notified: (target: NotifyTarget) => boolean[]; catalog: Catalog } {
  const catalog = catalogOf();
  const calls: ((target: NotifyTarget) => boolean)[] = [];
  const service = new ToolsetService({
    store,
    catalog,
    defaultToolset: options.defaultToolset,
    configurationMode: options.mode ?? 'always',
    localTools: META_TOOLS,
    notify: (affects) => calls.push(affects),
  });
  return { service, catalog, notified: (target) => calls.map((affects) => affects(target)) };
}

const target = (sessionId: string): NotifyTarget => ({ era: 'legacy', front: 'http', sessionId });
const MODERN_HTTP: NotifyTarget = { era: 'modern', front: 'http', sessionId: undefined };

describe.each(STORE_KINDS)('ToolsetService (%s store)', (kind) => {
  let storage: TestStorage;
  let store: Store;

  beforeAll(async () => {
    storage = await testStorage(kind);
    store = await storage.open();
    await store.createToolset({
      name: 'triage',
      members: [{ kind: 'tool', namespacedName: 'linear.list_issues' }],
    });
    await store.createToolset({ name: 'files', members: [{ kind: 'server', server: 'files' }] });
  });

  afterAll(async () => {
    await store.close();
    await storage.cleanup();
  });

  it('equips per session, tells only that session, and shares one view per toolset', async () => {
    const { service, notified } = serviceOf(store);
    await service.start();
    const a = legacy('a');
    const b = legacy('b');
    await service.equip(a, 'triage');
    expect(notified(target('a'))).toEqual([true]);
    expect(notified(target('b'))).toEqual([false]);
    expect(service.view(a).listed.map((item) => item['name'])).toContain('linear_list_issues');
    expect(service.view(a).entries.map((entry) => entry.namespacedName)).toEqual([
      'linear.list_issues',
    ]);
    expect(service.view(b).entries).toHaveLength(3);
    await service.equip(b, 'triage');
    expect(service.view(b)).toBe(service.view(a));
    expect(service.unequip(a)).toBe('triage');
    expect(service.view(a).entries).toHaveLength(3);
    expect(service.unequip(a)).toBeUndefined();
    service.close();
  });

  it('fails to equip a toolset that does not exist, naming the saved ones', async () => {
    const { service } = serviceOf(store);
    await service.start();
    await expect(service.equip(legacy('x'), 'nope')).rejects.toThrow(
      /toolset "nope" does not exist; saved toolsets: .*files.*triage|toolset "nope" does not exist; saved toolsets: .*triage.*files/,
    );
    service.close();
  });

  it('starts sessions on the default toolset until they unequip; meta tools follow the mode', async () => {
    const { service } = serviceOf(store, { defaultToolset: 'files', mode: 'until-equipped' });
    await service.start();
    const s = legacy('d');
    expect(service.equippedName(s)).toBe('files');
    expect(service.view(s).listed.map((item) => item['name'])).toEqual(['files_read_file']);
    service.unequip(s);
    expect(service.equippedName(s)).toBeUndefined();
    const names = service.view(s).listed.map((item) => item['name']);
    expect(names).toContain('add-tool-annotation');
    expect(names).toContain('linear_create_issue');
    service.close();
  });

  it('holds what a 2026 HTTP client equips per principal', async () => {
    const { service, notified } = serviceOf(store);
    await service.start();
    await service.equip(modern('alice'), 'triage');
    expect(service.equippedName(modern('alice'))).toBe('triage');
    expect(service.equippedName(modern('bob'))).toBeUndefined();
    expect(notified(MODERN_HTTP)).toEqual([true]);
    service.close();
  });

  it('picks up a change made through another store handle and tells the sessions using it', async () => {
    const { service, notified } = serviceOf(store);
    await service.start();
    const s = legacy('w');
    await service.equip(s, 'files');
    const before = notified(target('w')).length;
    // A second handle: for PostgreSQL a second pool and listener (another replica's view);
    // for PGlite the same store (the CLI reaches it through the gateway).
    const other = kind === 'postgres' ? await storage.open() : store;
    try {
      await other.addNotes('files', { namespacedName: 'files.read_file' }, [
        { name: 'from-elsewhere', note: 'Written by another process.' },
      ]);
      const description = await waitFor(
        () => service.view(s).entries[0]?.listed['description'],
        (text) => typeof text === 'string' && text.includes('from-elsewhere'),
        5_000,
        10,
      );
      expect(description).toBe(
        'read_file tool\n\n### Additional Tool Notes\n\n• **from-elsewhere**: Written by another process.',
      );
      expect(notified(target('w')).slice(before)).toContain(true);
      // A global override reaches every session.
      await other.setOverride({ namespacedName: 'files.read_file' }, { readOnlyHint: true });
      await waitFor(
        () => service.view(s).entries[0]?.effective.provenance['readOnlyHint']?.source,
        (source) => source === 'override',
        5_000,
        10,
      );
      expect(notified(target('nobody')).at(-1)).toBe(true);
      await other.unsetOverride({ namespacedName: 'files.read_file' });
    } finally {
      if (other !== store) await other.close();
      service.close();
    }
  });

  it('tells nobody of global overrides that did not change (a resync, an event read late)', async () => {
    const { service, notified } = serviceOf(store);
    await service.start();
    try {
      const before = notified(MODERN_HTTP).length;
      // A reload that finds what it already has: nobody's list changed.
      await service.refreshGlobals();
      expect(notified(MODERN_HTTP).length).toBe(before);
      await store.setOverride({ namespacedName: 'files.read_file' }, { openWorldHint: false });
      await service.refreshGlobals();
      // However many reloads the change and its event make: one notification.
      await service.refreshGlobals();
      expect(notified(MODERN_HTTP).slice(before)).toEqual([true]);
      await store.unsetOverride({ namespacedName: 'files.read_file' });
      await service.refreshGlobals();
      expect(notified(MODERN_HTTP).slice(before)).toEqual([true, true]);
    } finally {
      service.close();
    }
  });

  it('keeps a default chosen at run time in the store: it wins over the config, holds for the next service, and reaches a running one', async () => {
    const { service, notified } = serviceOf(store, { defaultToolset: 'triage' });
    const lines: string[] = [];
    try {
      await service.start();
      const free = legacy('free');
      const chooser = legacy('chooser');
      await service.equip(chooser, 'triage');
      expect(service.equippedName(free)).toBe('triage');
      const before = notified(target('free')).length;
      await service.setDefault({ kind: 'toolset', name: 'files' }, 'cli:test');
      expect(service.defaultToolset).toBe('files');
      expect(service.equippedName(free)).toBe('files');
      expect(service.equippedName(chooser)).toBe('triage');
      expect(notified(target('free')).slice(before)).toEqual([true]);
      expect(notified(target('chooser')).slice(before)).toEqual([false]);
      expect(notified(MODERN_HTTP).slice(before)).toEqual([true]);

      // A restart: a new service on the same store starts on the chosen default, and says
      // that it overrules the config's.
      const restarted = new ToolsetService({
        store,
        catalog: catalogOf(),
        defaultToolset: 'triage',
        configurationMode: 'never',
        localTools: META_TOOLS,
        notify: () => undefined,
        log: (line) => lines.push(line),
      });
      await restarted.start();
      expect(restarted.equippedName(legacy('after-restart'))).toBe('files');
      expect(restarted.chosenDefault).toMatchObject({
        kind: 'toolset',
        name: 'files',
        by: 'cli:test',
      });
      expect(lines.join('\n')).toContain(
        'toolsets.default: "triage" in the config is overruled by the default chosen by cli:test',
      );

      // A choice written elsewhere (the CLI through the admin endpoint, another replica)
      // reaches both running services through the store's change events.
      const other = kind === 'postgres' ? await storage.open() : store;
      try {
        await other.setDefaultToolset({ kind: 'none' });
        for (const running of [service, restarted]) {
          await waitFor(
            () => running.equippedName(legacy('x')),
            (name) => name === undefined,
            5_000,
            10,
          );
        }
        expect(notified(target('free')).at(-1)).toBe(true);
        await other.setDefaultToolset({ kind: 'config' });
        await waitFor(
          () => service.equippedName(free),
          (name) => name === 'triage',
          5_000,
          10,
        );
      } finally {
        if (other !== store) await other.close();
        restarted.close();
      }
      expect(service.chosenDefault).toBeUndefined();
      await expect(service.setDefault({ kind: 'toolset', name: 'nope' })).rejects.toThrow(
        'toolset "nope" does not exist',
      );
      expect(service.defaultToolset).toBe('triage');
    } finally {
      await store.setDefaultToolset({ kind: 'config' });
      service.close();
    }
  });

  it('makes none the default when the chosen default toolset is deleted', async () => {
    await store.createToolset({
      name: 'short-lived',
      members: [{ kind: 'server', server: 'files' }],
    });
    const { service } = serviceOf(store, { defaultToolset: 'triage' });
    try {
      await service.start();
      await service.setDefault({ kind: 'toolset', name: 'short-lived' });
      expect(service.equippedName(legacy('s'))).toBe('short-lived');
      await store.deleteToolset('short-lived');
      await service.refreshDefault();
      expect(service.chosenDefault).toMatchObject({ kind: 'none' });
      expect(service.equippedName(legacy('s'))).toBeUndefined();
      await store.createToolset({ name: 'short-lived' });
      await service.refresh('short-lived');
      expect(service.equippedName(legacy('s'))).toBeUndefined();
    } finally {
      await store.setDefaultToolset({ kind: 'config' });
      service.close();
    }
  });

  it('unequips a toolset deleted elsewhere', async () => {
    await store.createToolset({ name: 'doomed', members: [{ kind: 'server', server: 'files' }] });
    const { service, notified } = serviceOf(store);
    await service.start();
    const s = legacy('z');
    await service.equip(s, 'doomed');
    await store.deleteToolset('doomed');
    await service.refresh('doomed');
    expect(service.equippedName(s)).toBeUndefined();
    expect(service.view(s).entries).toHaveLength(3);
    expect(notified(target('z')).at(-1)).toBe(true);
    service.close();
  });
});
