import { userInfo } from 'node:os';
import { HintgateError } from '../core/errors.js';
import type { DefaultToolsetWrite, Store } from '../store/store.js';
import { RemoteStore } from '../store/remote.js';
import { configuredDefaultOf, describeDefault, effectiveDefault } from './default-toolset.js';
import { writeOut } from './io.js';
import { formatJson } from './output.js';
import type { ToolsetOptions } from './run-toolset.js';
import { requireToolset } from './run-toolset.js';
import { withStore } from './store-access.js';
import { say } from './store-commands.js';

/** Options of `hintgate toolset equip`. */
export interface ToolsetEquipOptions extends ToolsetOptions {
  /** No default toolset: sessions without a choice see every tool. */
  readonly none?: boolean;
  /** Forget the choice: the config's `toolsets.default` holds again. */
  readonly reset?: boolean;
  /** Who chooses (default: the user name). */
  readonly by?: string;
}

/** Who hears of the change: the running gateway, gateways sharing PostgreSQL, or none yet. */
function whoHears(store: Store): string {
  if (store instanceof RemoteStore) return 'the running gateway tells its clients now';
  if (store.kind === 'postgres') return 'running gateways sharing this store tell their clients';
  return 'it holds when a gateway starts on this data directory';
}

function userName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/**
 * `hintgate toolset equip <name> | --none | --reset`: chooses the toolset sessions without
 * a choice of their own see, kept in the store (so it holds after a restart and wins over
 * the config's `toolsets.default`), or forgets the choice.
 */
export async function runToolsetEquip(
  name: string | undefined,
  options: ToolsetEquipOptions,
): Promise<void> {
  const given = [name !== undefined, options.none === true, options.reset === true];
  if (given.filter(Boolean).length !== 1) {
    throw new HintgateError(
      'INPUT_INVALID',
      "give one of: a toolset name, --none (no default: every tool), or --reset (back to the config's toolsets.default)",
    );
  }
  const choice: DefaultToolsetWrite =
    name !== undefined
      ? { kind: 'toolset', name }
      : options.none === true
        ? { kind: 'none' }
        : { kind: 'config' };
  const configured = await configuredDefaultOf(options);
  const { chosen, hears } = await withStore(options, async (store) => {
    // The names of the toolsets there are, when the one named is not one of them.
    if (name !== undefined) await requireToolset(store, name);
    const stored = await store.setDefaultToolset(choice, `cli:${options.by ?? userName()}`);
    return { chosen: stored, hears: whoHears(store) };
  });
  if (options.json === true) {
    await writeOut(
      formatJson({
        default: effectiveDefault(chosen, configured) ?? null,
        chosen: chosen ?? null,
        ...(configured === null ? {} : { configured: configured ?? null }),
      }),
    );
    return;
  }
  say(`${describeDefault(chosen, configured)}; ${hears}`);
}
