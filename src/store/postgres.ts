import type { ClientConfig, PoolClient, QueryResultRow } from 'pg';
import { Client, Pool, escapeIdentifier } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { HintgateError, errorMessage } from '../core/errors.js';
import { changeChannel } from './changes.js';
import { migrate } from './migrate.js';
import { ChangeListener } from './postgres-listener.js';
import { StoreRunner } from './runner.js';
import type { Sql, SqlDriver } from './sql.js';
import { copyStatement, errorCode, isConnectionError, toStoreError } from './sql.js';
import { SqlStore } from './sql-store.js';
import type { PostgresStoreOptions, Store } from './interface.js';

/** Schema names hintgate accepts: short enough to name a NOTIFY channel after. */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,39}$/;

const DUPLICATE_SCHEMA = new Set(['23505', '42P06']);

/** A database URL fit for messages: the password removed. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    parsed.search = '';
    return parsed.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

function sqlOf(client: Pool | PoolClient): Sql {
  return {
    async query<R>(text: string, params: readonly unknown[] = []): Promise<R[]> {
      const result = await client.query<QueryResultRow>(text, [...params]);
      return result.rows as R[];
    },
    async exec(text: string): Promise<void> {
      await client.query(text);
    },
    async copyFrom(table: string, columns: readonly string[], data: string): Promise<void> {
      const text = copyStatement(table, columns, 'STDIN');
      if (!(client instanceof Pool)) return copyInto(client, text, data);
      const connection = await client.connect();
      let broken: Error | undefined;
      try {
        await copyInto(connection, text, data);
      } catch (error) {
        if (isConnectionError(error)) broken = error as Error;
        throw error;
      } finally {
        connection.release(broken);
      }
    },
  };
}

/** Runs `COPY … FROM STDIN` on one connection with `data` as its input. */
function copyInto(client: PoolClient, text: string, data: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const stream = client.query(copyFrom(text));
    stream.on('error', reject);
    stream.on('finish', () => resolve());
    stream.end(data);
  });
}

/** The driver over a pool: a transaction per checked-out connection, NOTIFY to publish. */
export function postgresDriver(
  pool: Pool,
  location: string,
  channel: string,
  lockConfig?: ClientConfig,
): SqlDriver {
  return {
    kind: 'postgres',
    location,
    read: (fn) => fn(sqlOf(pool)),
    async transaction(fn) {
      const client = await pool.connect();
      let broken: Error | undefined;
      // A checked-out connection that breaks (the server terminated it, 57P01) emits
      // 'error' on itself, not on the pool: unheard, it would end the process.
      const onError = (error: Error): void => {
        broken = error;
      };
      client.on('error', onError);
      try {
        await client.query('BEGIN');
        const result = await fn(sqlOf(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        if (isConnectionError(error)) broken = error as Error;
        await client.query('ROLLBACK').catch((rollbackError: unknown) => {
          broken = rollbackError instanceof Error ? rollbackError : new Error('rollback failed');
        });
        throw error;
      } finally {
        // A connection that failed is dropped from the pool rather than reused.
        client.off('error', onError);
        client.release(broken);
      }
    },
    async publish(sql, payloads) {
      for (const payload of payloads) {
        await sql.query('SELECT pg_notify($1, $2)', [channel, payload]);
      }
    },
    // A connection of its own, not the pool's: a holder's `fn` reads and writes through the
    // pool, and locks held on pool connections could take all of them.
    ...(lockConfig === undefined
      ? {}
      : {
          async exclusive<T>(key: string, fn: () => Promise<T>): Promise<T> {
            const client = new Client(lockConfig);
            client.on('error', () => undefined);
            try {
              await client.connect();
              await client.query('BEGIN');
              await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
              const result = await fn();
              await client.query('COMMIT');
              return result;
            } catch (error) {
              throw toStoreError(error, location);
            } finally {
              // Ending the connection ends the transaction and its lock, whatever happened.
              await client.end().catch(() => undefined);
            }
          },
        }),
    async close() {
      await pool.end();
    },
  };
}

async function createSchema(config: ClientConfig, schema: string): Promise<void> {
  const client = new Client(config);
  try {
    await client.connect();
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${escapeIdentifier(schema)}`);
  } catch (error) {
    // Two replicas creating it at once: IF NOT EXISTS does not stop the loser's unique
    // violation, but the schema is there, which is all that matters.
    if (!DUPLICATE_SCHEMA.has(errorCode(error) ?? '')) throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Opens a PostgreSQL store: a connection pool, the schema brought up to date, and a
 * listening connection that turns other processes' changes into `watch` events.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const { url, schema, poolSize = 10, connectTimeoutMs = 5_000 } = options;
  const applicationName = options.applicationName ?? 'hintgate';
  const onWarning = options.onWarning ?? (() => undefined);
  const location = `${redactUrl(url)}${schema === undefined ? '' : ` (schema ${schema})`}`;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new HintgateError(
      'INPUT_INVALID',
      `schema "${schema}" must match ${SCHEMA_NAME.source} (lowercase letters, digits, "_")`,
      { schema },
    );
  }
  const config: ClientConfig = {
    connectionString: url,
    connectionTimeoutMillis: connectTimeoutMs,
    keepAlive: true,
    application_name: applicationName,
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  };
  const pool = new Pool({ ...config, max: poolSize });
  // An idle connection that breaks must not crash the process; the next query reconnects.
  pool.on('error', (error) => onWarning(`store connection lost: ${errorMessage(error)}`));
  const channel = changeChannel(schema);
  let listener: ChangeListener | undefined;
  try {
    if (schema !== undefined) await createSchema(config, schema);
    const driver = postgresDriver(pool, location, channel, config);
    await migrate(driver);
    const runner = new StoreRunner(
      {
        ...driver,
        async close() {
          await listener?.close();
          await driver.close();
        },
      },
      onWarning,
    );
    listener = new ChangeListener(config, channel, {
      onPayload: (payload) => runner.receive(payload),
      onResync: () => runner.deliver([{ kind: 'resync' }]),
      onWarning,
    });
    await listener.start();
    return new SqlStore(runner);
  } catch (error) {
    await listener?.close();
    await pool.end().catch(() => undefined);
    if (error instanceof HintgateError) throw error;
    const failure = toStoreError(error, location);
    if (failure.code === 'STORE_UNAVAILABLE') throw failure;
    throw new HintgateError(
      'STORE_UNAVAILABLE',
      `cannot open the store at ${location}: ${errorMessage(error)}`,
      { location },
      { cause: error },
    );
  }
}
