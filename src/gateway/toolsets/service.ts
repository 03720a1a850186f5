import { isDeepStrictEqual } from 'node:util';
import { HintgateError, errorMessage } from '../../core/errors.js';
import type { SessionInfo } from '../../front/session.js';
import type { DefaultToolsetWrite, Store } from '../../store/store.js';
import type {
  AnnotationOverride,
  StoreEvent,
  StoredDefaultToolset,
  Toolset,
} from '../../store/types.js';
import type { Catalog } from '../catalog.js';
import { Coalescer } from './coalesce.js';
import type { NotifyTarget } from './slots.js';
import { isPrincipalSlot, principalSlot, sessionSlot, slotKeyOf } from './slots.js';
import type { LocalTool } from './view.js';
import { ToolView } from './view.js';

/** When the model sees the meta tools. */
export type ConfigurationMode = 'always' | 'never' | 'until-equipped';

/** Options of {@link ToolsetService}. */
export interface ToolsetServiceOptions {
  readonly store: Store;
  readonly catalog: Catalog;
  /**
   * The config's `toolsets.default`: the toolset sessions start with, unless a default was
   * chosen at run time (kept in the store), which wins.
   */
  readonly defaultToolset?: string | undefined;
  readonly configurationMode: ConfigurationMode;
  /** The gateway's own tools (meta tools), shown as configuration mode allows. */
  readonly localTools: readonly LocalTool[];
  /** Sends `notifications/tools/list_changed` to the clients `affects` picks. */
  readonly notify: (affects: (target: NotifyTarget) => boolean) => void;
  readonly log?: (line: string) => void;
}

const GLOBALS = '\0globals';
const DEFAULT = '\0default';
/** The slot of a principal that has not equipped anything (it sees the default). */
const UNSEEN_PRINCIPAL = principalSlot('\0unseen');
const NO_OVERRIDES: readonly AnnotationOverride[] = [];

/**
 * Toolsets in the gateway: which toolset each session has equipped (at most one; the
 * configured default until it equips another or unequips), the toolsets in use loaded from
 * the store and kept current through `store.watch` (changes made here, by the CLI through
 * the admin endpoint, or by another replica through PostgreSQL LISTEN/NOTIFY), the global
 * overrides, and the views sessions see, built once per inputs and shared. Clients whose
 * listing changed get `notifications/tools/list_changed`.
 */
export class ToolsetService {
  private readonly slots = new Map<string, string | null>();
  /** Toolsets in use, as last read from the store; null: known not to exist. */
  private readonly loaded = new Map<string, Toolset | null>();
  private readonly views = new Map<string, ToolView>();
  /** The view {@link view} returned last (its inputs are checked again before it is reused). */
  private lastView: ToolView | undefined;
  private readonly reloads = new Coalescer();
  private globals: readonly AnnotationOverride[] = NO_OVERRIDES;
  private unwatch: (() => void) | undefined;
  private readonly log: (line: string) => void;
  /** The default toolset: the one chosen at run time when there is one, else the config's. */
  private defaultName: string | undefined;
  /** The default chosen at run time, as last read from the store. */
  private chosen: StoredDefaultToolset | undefined;

  constructor(private readonly options: ToolsetServiceOptions) {
    this.log = options.log ?? (() => undefined);
    this.defaultName = options.defaultToolset;
  }

  /** The store the toolsets live in. */
  get store(): Store {
    return this.options.store;
  }

  /**
   * The default toolset's name: the one chosen at run time (`hintgate toolset equip`, the
   * dashboard) when there is one, else the config's `toolsets.default`.
   */
  get defaultToolset(): string | undefined {
    return this.defaultName;
  }

  /** The config's `toolsets.default`. */
  get configuredDefault(): string | undefined {
    return this.options.defaultToolset;
  }

  /** The default chosen at run time, or undefined when the config's holds. */
  get chosenDefault(): StoredDefaultToolset | undefined {
    return this.chosen;
  }

  /**
   * Chooses the toolset of every session that has not chosen one (a toolset, or none), or
   * forgets the choice (`config`: the config's `toolsets.default` holds again). The choice is
   * kept in the store, so it holds after a restart and reaches every gateway sharing the
   * store; the sessions affected are told their list changed. NOT_FOUND for no such toolset.
   */
  async setDefault(choice: DefaultToolsetWrite, by?: string): Promise<void> {
    await this.options.store.setDefaultToolset(choice, by);
    await this.reloadDefault(true);
  }

  /** Loads the global overrides and the default toolset, and starts following changes. */
  async start(): Promise<void> {
    this.unwatch ??= this.options.store.watch((event) => this.onStoreEvent(event));
    await this.reloadGlobals(false);
    await this.reloadDefault(false);
    const configured = this.options.defaultToolset;
    const chosen = this.chosen;
    if (chosen !== undefined && configured !== undefined && this.defaultName !== configured) {
      this.log(
        `toolsets.default: "${configured}" in the config is overruled by the default chosen ${chosen.by === undefined ? '' : `by ${chosen.by} `}with hintgate toolset equip or the dashboard (${chosen.kind === 'toolset' ? `"${chosen.name}"` : 'none'}); "hintgate toolset equip --reset" goes back to the config's`,
      );
    }
    const name = this.defaultName;
    if (name !== undefined && this.loaded.get(name) === null) {
      this.log(
        `default toolset "${name}" does not exist (yet); sessions start without one until it is created`,
      );
    }
  }

  /** Stops following store changes. */
  close(): void {
    this.unwatch?.();
    this.unwatch = undefined;
  }

  /** The name of the toolset a session has equipped, if any (the default counts). */
  equippedName(session: SessionInfo): string | undefined {
    return this.nameFor(slotKeyOf(session));
  }

  /** The toolset a session has equipped, as last loaded. */
  equipped(session: SessionInfo): Toolset | undefined {
    const name = this.equippedName(session);
    return name === undefined ? undefined : (this.loaded.get(name) ?? undefined);
  }

  /** What a session sees: built on first use for its inputs, then shared. */
  view(session: SessionInfo): ToolView {
    const toolset = this.equipped(session);
    const mode = this.options.configurationMode;
    const localTools = mode === 'always' || (mode === 'until-equipped' && toolset === undefined);
    const key = {
      catalogVersion: this.options.catalog.version,
      toolset,
      globalOverrides: this.globals,
      localTools,
    };
    // Most calls see the view the call before saw: no key text to make and look up.
    const last = this.lastView;
    if (last?.matches(key) === true) return last;
    const cacheKey = `${toolset?.name ?? ''}\0${localTools ? 1 : 0}`;
    let view = this.views.get(cacheKey);
    if (view?.matches(key) !== true) {
      view = new ToolView({
        key,
        catalog: this.options.catalog,
        localTools: localTools ? this.options.localTools : [],
      });
      this.views.set(cacheKey, view);
    }
    this.lastView = view;
    return view;
  }

  /**
   * The view of one toolset (or, without a name, of the whole catalog) with the global
   * overrides, without meta tools: what `hintgate tools` prints. NOT_FOUND for no such toolset.
   */
  async viewOf(name: string | undefined): Promise<ToolView> {
    const toolset = name === undefined ? undefined : await this.toolset(name);
    if (name !== undefined && toolset === undefined) {
      throw new HintgateError('NOT_FOUND', `toolset "${name}" does not exist`, { toolset: name });
    }
    return new ToolView({
      key: {
        catalogVersion: this.options.catalog.version,
        toolset,
        globalOverrides: this.globals,
        localTools: false,
      },
      catalog: this.options.catalog,
      localTools: [],
    });
  }

  /** The global overrides as last loaded. */
  globalOverrides(): readonly AnnotationOverride[] {
    return this.globals;
  }

  /**
   * A toolset by name, from memory when in use, else from the store (then kept current).
   * Undefined when there is none.
   */
  async toolset(name: string): Promise<Toolset | undefined> {
    if (!this.loaded.has(name)) await this.reload(name, false);
    return this.loaded.get(name) ?? undefined;
  }

  /** Equips a toolset for a session (replacing its current one); NOT_FOUND if there is none. */
  async equip(session: SessionInfo, name: string): Promise<Toolset> {
    const toolset = await this.toolset(name);
    if (toolset === undefined) {
      const names = (await this.options.store.listToolsets()).map((summary) => summary.name);
      throw new HintgateError(
        'NOT_FOUND',
        `toolset "${name}" does not exist; ${names.length === 0 ? 'there are no toolsets yet (build one with build-toolset)' : `saved toolsets: ${names.join(', ')}`}`,
        { toolset: name },
      );
    }
    const key = slotKeyOf(session);
    const before = this.nameFor(key);
    this.slots.set(key, name);
    if (before !== name) this.notifySlots((slot) => slot === key);
    return toolset;
  }

  /** Unequips a session's toolset (the default does not come back); returns what it had. */
  unequip(session: SessionInfo): string | undefined {
    const key = slotKeyOf(session);
    const before = this.nameFor(key);
    this.slots.set(key, null);
    if (before !== undefined) this.notifySlots((slot) => slot === key);
    return before;
  }

  /** Forgets a 2025 session that ended. */
  forgetSession(id: string): void {
    this.slots.delete(sessionSlot(id));
  }

  /**
   * Resolves once what the store holds for `name` now is loaded: after a change made here
   * the reload its event started is awaited (or one is run), so the caller's next listing
   * shows the change.
   */
  async refresh(name: string): Promise<void> {
    await (this.reloads.pending(name) ?? this.reload(name, true));
  }

  /** Like {@link refresh}, for the default toolset chosen at run time. */
  async refreshDefault(): Promise<void> {
    await (this.reloads.pending(DEFAULT) ?? this.reloadDefault(true));
  }

  /** Like {@link refresh}, for the global overrides. */
  async refreshGlobals(): Promise<void> {
    await (this.reloads.pending(GLOBALS) ?? this.reloadGlobals(true));
  }

  private nameFor(slot: string): string | undefined {
    const held = this.slots.get(slot);
    const name = held === undefined ? this.defaultName : (held ?? undefined);
    if (name === undefined || (this.loaded.get(name) ?? null) === null) return undefined;
    return name;
  }

  /** True when the slot would show toolset `name` (whether loaded or not). */
  private slotUses(
    slot: string,
    name: string,
    slots: ReadonlyMap<string, string | null> = this.slots,
  ): boolean {
    const held = slots.get(slot);
    return held === undefined ? this.defaultName === name : held === name;
  }

  private onStoreEvent(event: StoreEvent): void {
    switch (event.kind) {
      case 'toolset':
        if (this.loaded.has(event.name) || event.name === this.defaultName) {
          void this.reload(event.name, true);
        }
        return;
      case 'overrides':
        void this.reloadGlobals(true);
        return;
      case 'default-toolset':
        void this.reloadDefault(true);
        return;
      case 'resync':
        void this.reloadGlobals(true);
        void this.reloadDefault(true);
        for (const name of this.loaded.keys()) void this.reload(name, true);
        return;
      case 'approval':
      case 'pins':
      case 'drift':
      case 'oauth':
        return;
    }
  }

  private reload(name: string, notify: boolean): Promise<void> {
    return this.reloads.run(name, async () => {
      let next: Toolset | null;
      try {
        next = (await this.options.store.getToolset(name)) ?? null;
      } catch (error) {
        this.log(`cannot reload toolset "${name}": ${errorMessage(error)}`);
        return;
      }
      const previous = this.loaded.get(name);
      if (previous !== undefined && sameToolset(previous, next)) return;
      // Only the default is remembered as missing: names asked for in vain are not kept.
      if (next === null && name !== this.defaultName) this.loaded.delete(name);
      else this.loaded.set(name, next);
      if (next === null) {
        this.views.delete(`${name}\0${0}`);
        this.views.delete(`${name}\0${1}`);
      }
      if (notify && (previous ?? null) !== next) {
        // Who used it is decided now, before a deletion unequips them below.
        const slots = new Map(this.slots);
        this.notifySlots((slot) => this.slotUses(slot, name, slots), slots);
      }
      // A deleted toolset is unequipped everywhere: those sessions go back to the default
      // (to none when it was the default).
      if (next === null) {
        for (const [slot, held] of this.slots) if (held === name) this.slots.delete(slot);
      }
    });
  }

  /**
   * Reads the default chosen at run time and makes it (else the config's) the default: its
   * toolset is loaded first, then the sessions without a choice of their own are told.
   */
  private reloadDefault(notify: boolean): Promise<void> {
    return this.reloads.run(DEFAULT, async () => {
      let chosen: StoredDefaultToolset | undefined;
      try {
        chosen = await this.options.store.getDefaultToolset();
      } catch (error) {
        this.log(`cannot read the default toolset: ${errorMessage(error)}`);
        return;
      }
      this.chosen = chosen;
      const name =
        chosen === undefined
          ? this.options.defaultToolset
          : chosen.kind === 'toolset'
            ? chosen.name
            : undefined;
      if (name !== undefined && !this.loaded.has(name)) await this.reload(name, false);
      if (name === this.defaultName) return;
      const slots = new Map(this.slots);
      this.defaultName = name;
      // The reload above forgot a missing toolset (it was not the default yet): remember it
      // as missing, as the default, so that its creation is noticed.
      if (name !== undefined && !this.loaded.has(name)) this.loaded.set(name, null);
      if (notify) this.notifySlots((slot) => slots.get(slot) === undefined, slots);
    });
  }

  private reloadGlobals(notify: boolean): Promise<void> {
    return this.reloads.run(GLOBALS, async () => {
      let list: readonly AnnotationOverride[];
      try {
        list = await this.options.store.getGlobalOverrides();
      } catch (error) {
        this.log(`cannot reload the global overrides: ${errorMessage(error)}`);
        return;
      }
      // An event that changes nothing (a resync, one that arrives after a reload already read
      // its change) tells nobody: every session's list would be fetched again for nothing.
      const next = list.length === 0 ? NO_OVERRIDES : list;
      const changed = !isDeepStrictEqual(this.globals, next);
      this.globals = next;
      if (notify && changed) this.options.notify(() => true);
    });
  }

  /** Tells the clients whose slot `affected` picks that their tool list changed. */
  private notifySlots(
    affected: (slot: string) => boolean,
    slots: ReadonlyMap<string, string | null> = new Map(this.slots),
  ): void {
    this.options.notify((target) => {
      if (target.sessionId !== undefined) return affected(sessionSlot(target.sessionId));
      // 2026 HTTP clients are reached all at once: tell them when any principal is affected
      // (one holding a slot, or any other, which shows the default).
      if (affected(UNSEEN_PRINCIPAL)) return true;
      for (const slot of slots.keys()) if (isPrincipalSlot(slot) && affected(slot)) return true;
      return false;
    });
  }
}

function sameToolset(a: Toolset | null, b: Toolset | null): boolean {
  if (a === null || b === null) return a === b;
  return a.revision === b.revision && a.createdAt === b.createdAt && a.updatedAt === b.updatedAt;
}
