import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { pgQuery, preparedDataDir, requirePgUrl } from '../store/helpers/harness.js';
import type { StoreKind } from '../../src/store/types.js';
import type { ServerEntry } from './config.js';
import { scratchDir, writeConfig } from './config.js';
import { rawCall, rawListTools } from './gateway.js';
import { readLock } from '../../src/store/store.js';
import { waitFor } from './processes.js';
import type { Wire } from './wire.js';

/** Where an end-to-end gateway keeps its store, and how to remove it. */
export interface E2eStore {
  readonly kind: StoreKind;
  /** The config keys: `dataDir`, and `store` for PostgreSQL (a fresh schema). */
  readonly keys: Record<string, unknown>;
  readonly dataDir: string;
  cleanup(): Promise<void>;
}

/**
 * Fresh storage for a test file's gateways: a PGlite data directory copied from an
 * initialized template, or a schema of its own on the test PostgreSQL server (the URL's
 * `?schema=`; `HINTGATE_TEST_PG_URL` must be set, else this fails loudly).
 */
export async function e2eStore(kind: StoreKind): Promise<E2eStore> {
  const dataDir = await preparedDataDir();
  if (kind === 'pglite') return { kind, keys: { dataDir }, dataDir, cleanup: async () => {} };
  const schema = `hg_e2e_${randomBytes(6).toString('hex')}`;
  const url = requirePgUrl();
  return {
    kind,
    keys: { dataDir, store: `${url}${url.includes('?') ? '&' : '?'}schema=${schema}` },
    dataDir,
    cleanup: async () => {
      await pgQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  };
}

/** Writes a config with these servers on this store, with extra top-level keys. */
export function toolsetConfig(
  store: E2eStore,
  servers: Record<string, ServerEntry>,
  rest: Record<string, unknown> = {},
): string {
  return writeConfig(scratchDir(), servers, { ...store.keys, ...rest });
}

/** Resolves once no live process holds the data directory (a gateway that was closed). */
export async function waitForRelease(dataDir: string): Promise<void> {
  await waitFor(
    () => readLock(dataDir),
    (lock) => lock?.alive !== true,
    10_000,
    50,
  );
}

/** Counts `notifications/tools/list_changed` a client receives. */
export function countListChanged(client: Client): () => number {
  let count = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    count++;
  });
  return () => count;
}

/** Waits until the count grows past `before`; returns the new count. */
export function nextChange(
  count: () => number,
  before: number,
  timeoutMs = 5_000,
): Promise<number> {
  return waitFor(count, (now) => now > before, timeoutMs, 10);
}

/** A tool of a listing by name, or undefined. */
export async function listedTool(client: Client, name: string): Promise<Wire> {
  return (await rawListTools(client)).find((tool) => tool['name'] === name);
}

/** Calls a tool and returns the result (meta tools answer errors as `isError` results). */
export function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Wire> {
  return rawCall(client, name, args);
}

/** The text of a tool result's first content item. */
export function resultText(result: Wire): string {
  return (result.content?.[0]?.text as string | undefined) ?? '';
}
