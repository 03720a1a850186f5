import { resolve } from 'node:path';
import type { Gateway } from '../gateway/gateway.js';
import { createGateway } from '../gateway/gateway.js';
import type { Orphans } from '../gateway/toolsets/resolve.js';
import { orphanedGlobalOverrides, resolveToolset } from '../gateway/toolsets/resolve.js';
import type { Catalog } from '../gateway/catalog.js';
import type { Toolset } from '../store/types.js';
import { loadCliConfig } from './config-file.js';
import type { StoreCommandOptions } from './store-access.js';
import { openStoreForCli } from './store-access.js';
import { secretKeyOf } from './secret-key.js';
import { VERSION } from './version.js';

/**
 * Runs `fn` with a gateway that has connected to every configured server once (no
 * reconnection) on the command's store, then closes both. For commands that need the live
 * catalog: `hintgate tools`, `toolset show --check`.
 */
export async function withGateway<T>(
  options: StoreCommandOptions,
  fn: (gateway: Gateway) => Promise<T> | T,
): Promise<T> {
  const loaded = await loadCliConfig(options.config, { documents: true });
  const store = await openStoreForCli({
    store: options.store ?? loaded.config.store,
    dataDir: options.dataDir === undefined ? loaded.dataDir : resolve(options.dataDir),
  });
  try {
    const gateway = createGateway({
      store,
      config: loaded.config,
      configFile: loaded.file,
      dataDir: loaded.dataDir,
      identity: { name: 'hintgate', version: VERSION },
      baseEnv: process.env,
      reconnect: false,
      secretKey: secretKeyOf(loaded.config),
    });
    try {
      await gateway.start();
      return await fn(gateway);
    } finally {
      await gateway.close();
    }
  } finally {
    await store.close();
  }
}

/** How a toolset resolves against a catalog: what does not resolve now. */
export type Resolution = (catalog: Catalog, toolset: Toolset) => Orphans;

/** Runs `fn` with the live catalog and a resolver for toolsets (global overrides included). */
export function withCatalog<T>(
  options: StoreCommandOptions,
  fn: (catalog: Catalog, resolution: Resolution) => T,
): Promise<T> {
  return withGateway(options, (gateway) =>
    fn(gateway.catalog, (catalog, toolset) => {
      const orphans = resolveToolset(catalog, toolset).orphans;
      const globals = orphanedGlobalOverrides(catalog, gateway.toolsets.globalOverrides());
      return { ...orphans, overrides: [...orphans.overrides, ...globals] };
    }),
  );
}
