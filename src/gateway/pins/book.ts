/**
 * The re-check of one server's listing against its pins, in memory and synchronous: which
 * tools are served (as listed, or with pinned values put back), which are held back, what
 * to save, and what to record. {@link PinGuard} runs it and persists the outcome.
 */
import type { Drift, DriftAction, PinningMode, ToolDefinition } from '../../core/pins/index.js';
import {
  compareTool,
  definitionHash,
  driftAction,
  findRenames,
  removedTool,
  toolDefinition,
  withPinnedValues,
} from '../../core/pins/index.js';
import type { ScanContext } from '../../core/pins/scan.js';
import type { JsonObject } from '../../mcp/json-rpc.js';
import type { PinWrite, ToolPin } from '../../store/store.js';
import type { LastListing, ListedTool } from '../last-listing.js';
import { relist } from '../last-listing.js';
import { nodeSha256 } from '../node-hash.js';

/** How one server's drift is handled. */
export interface PinSettings {
  readonly mode: PinningMode;
  readonly trustOnFirstUse: boolean;
}

/** A pin as the book keeps it (what the store has, without times). */
export type BookPin = Omit<PinWrite, 'server' | 'tool'>;

/** One drift worth a record: what changed and what the policy did. */
export interface DriftEvent {
  readonly tool: string;
  readonly drift: Drift;
  /** `trusted`: pinned at first sight; the others as {@link DriftAction}. */
  readonly action: DriftAction | 'trusted';
}

/** What a re-check concluded. */
export interface CheckResult {
  /** The tools to serve, in the server's order: as listed, or with pinned values put back. */
  readonly served: readonly JsonObject[];
  /** Tools held back (not listed, calls refused), by name, with the reason. */
  readonly held: ReadonlyMap<string, string>;
  /** Pins to save (only those that changed). */
  readonly writes: readonly PinWrite[];
  /** Drifts seen for the first time (a drift already waiting is not reported again). */
  readonly events: readonly DriftEvent[];
}

/** A tool of a server's last listing, as listed, with its definition and hash. */
interface Listed extends ListedTool {
  readonly definition: ToolDefinition;
  readonly hash: string;
}

/** Every server's pins, and the definitions of each server's last listing, hashed. */
export class PinBook {
  private readonly pins = new Map<string, Map<string, BookPin>>();
  /** Per server: its last listing (a tool listed again unchanged is not hashed again). */
  private readonly last = new Map<string, LastListing<Listed>>();

  /**
   * Canonicalizes and hashes what is new in a server's listing, remembered as its last
   * listing; needs no pins, so it can run while they load, and the {@link check} that
   * follows finds every tool already hashed. A tool listed as last time costs a comparison
   * with it (keys in any order, as the canonical hash ignores their order), far less than
   * canonicalizing and hashing it again.
   */
  prepare(server: string, tools: readonly JsonObject[]): readonly Listed[] {
    const last = relist(tools, this.last.get(server), (tool): Listed | undefined => {
      const definition = toolDefinition(tool);
      if (definition === undefined) return undefined;
      const hash = definitionHash(definition, nodeSha256);
      return { name: definition.name, tool, definition, hash };
    });
    this.last.set(server, last);
    return last.items;
  }

  /** Replaces what is known of a server's pins (from the store). */
  load(server: string, pins: readonly ToolPin[]): void {
    const map = new Map<string, BookPin>();
    for (const pin of pins) map.set(pin.tool, pin);
    this.pins.set(server, map);
  }

  /** A server's pins, by tool name. */
  pinsOf(server: string): ReadonlyMap<string, BookPin> {
    return this.pins.get(server) ?? new Map();
  }

  /**
   * Re-checks a server's listing: a tool listed as last time costs a comparison with it,
   * unchanged tools (the same canonical hash as their pin) one lookup more; the others are
   * graded, decided by `settings`, and remembered, so the book already holds what the
   * returned writes say. A tool equal to the one of the same name in the last listing is
   * served as that earlier object: a consumer that keeps what it made of the last listing
   * (the catalog) knows it unchanged by identity, without comparing it again.
   */
  check(
    server: string,
    tools: readonly JsonObject[],
    settings: PinSettings,
    context: () => ScanContext,
  ): CheckResult {
    const pins = this.pins.get(server) ?? new Map<string, BookPin>();
    this.pins.set(server, pins);
    const firstSight = pins.size === 0;
    const listed = this.prepare(server, tools);

    const served: JsonObject[] = [];
    const held = new Map<string, string>();
    const writes: PinWrite[] = [];
    const events: DriftEvent[] = [];
    const set = (tool: string, pin: BookPin): void => {
      pins.set(tool, pin);
      writes.push({ server, tool, ...pin });
    };
    const drifted: Listed[] = [];
    for (const item of listed) {
      const pin = pins.get(item.definition.name);
      if (pin?.hash === item.hash) {
        served.push(item.tool);
        // Back to what was pinned: whatever waited is moot.
        if (pin.status !== 'pinned')
          set(item.definition.name, {
            status: 'pinned',
            hash: pin.hash,
            definition: pin.definition,
          });
      } else {
        drifted.push(item);
      }
    }
    if (drifted.length === 0 && listed.length === pins.size) {
      return { served, held, writes, events };
    }

    // Pinned tools no longer listed; a new name whose schema matches one is that tool renamed.
    const names = new Set(listed.map((item) => item.name));
    const gone: ToolDefinition[] = [];
    for (const [name, pin] of pins) {
      if (!names.has(name) && pin.definition !== undefined) gone.push(pin.definition);
    }
    const fresh = drifted.filter((item) => pins.get(item.definition.name)?.hash === undefined);
    const renames = findRenames(
      fresh.map((item) => item.definition),
      gone,
    );
    let scan: ScanContext | undefined;
    const scanContext = (): ScanContext => (scan ??= context());

    for (const item of drifted) {
      const { definition, hash } = item;
      const name = definition.name;
      const pin = pins.get(name);
      const renamedFrom = renames.get(name);
      const base = renamedFrom === undefined ? pin?.definition : pins.get(renamedFrom)?.definition;
      // The same drift as last time: decided as before, not reported again.
      const known = pin?.pendingHash === hash && pin.drift !== undefined ? pin.drift : undefined;
      const drift = known ?? compareTool(base, definition, scanContext(), renamedFrom);
      let action: DriftAction | 'trusted';
      if (base === undefined && firstSight && settings.trustOnFirstUse) {
        action = drift.findings.length === 0 || settings.mode === 'warn' ? 'trusted' : 'hold';
      } else {
        action = driftAction(drift, settings.mode);
      }
      if (pin?.status === 'rejected' && known !== undefined && action === 'apply') action = 'hold';
      if (action === 'apply' || action === 'trusted') {
        served.push(item.tool);
        set(name, { status: 'pinned', hash, definition });
      } else {
        if (action === 'keep-pinned' && pin?.definition !== undefined) {
          served.push(withPinnedValues(item.tool, pin.definition, drift));
        } else {
          held.set(name, holdReason(server, name, drift));
        }
        if (known === undefined) {
          set(name, {
            status: 'pending',
            hash: pin?.hash,
            definition: pin?.definition,
            pendingHash: hash,
            pending: definition,
            drift,
          });
        }
      }
      if (known === undefined && (drift.grades.length > 0 || action === 'trusted')) {
        if (!(action === 'trusted' && !firstSight)) events.push({ tool: name, drift, action });
      }
    }
    for (const definition of gone) {
      const pin = pins.get(definition.name);
      if (pin === undefined || pin.status === 'removed') continue;
      set(definition.name, { status: 'removed', hash: pin.hash, definition: pin.definition });
      const renamedTo = [...renames].find(([, old]) => old === definition.name)?.[0];
      if (renamedTo === undefined)
        events.push({ tool: definition.name, drift: removedTool(definition), action: 'apply' });
    }
    // New tools with nothing pinned that are gone again leave nothing to keep.
    for (const [name, pin] of pins) {
      if (!names.has(name) && pin.hash === undefined && pin.status !== 'removed') {
        pins.delete(name);
        writes.push({ server, tool: name, status: 'removed' });
      }
    }
    return { served, held, writes, events };
  }
}

/** Why a tool is held back, for a refused call. */
function holdReason(server: string, name: string, drift: Drift): string {
  const what = drift.kind === 'new' ? 'is new' : `changed (${drift.grades.join(', ')})`;
  // Said to the model: where a person decides, never how to approve it itself.
  return `tool "${server}.${name}" ${what} and is held until a person reviews it (the gateway's operator, with \`hintgate pins\` or the dashboard)`;
}
