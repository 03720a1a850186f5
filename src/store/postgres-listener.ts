import type { ClientConfig, Notification } from 'pg';
import { Client, escapeIdentifier } from 'pg';
import { errorMessage } from '../core/errors.js';

/** What a {@link ChangeListener} reports. */
export interface ChangeListenerHandlers {
  /** A notification's payload on the channel. */
  readonly onPayload: (payload: string) => void;
  /** The connection came back after being lost: notifications may have been missed. */
  readonly onResync: () => void;
  readonly onWarning: (message: string) => void;
}

const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 5_000;
const HEARTBEAT_MS = 30_000;

/**
 * A dedicated connection that LISTENs on one channel, reconnecting with backoff when it is
 * lost (server restart, network) and saying so with `onResync`. A heartbeat notices a
 * connection that died silently.
 */
export class ChangeListener {
  #client: Client | undefined;
  #closed = false;
  #reconnecting = false;
  #heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly config: ClientConfig,
    private readonly channel: string,
    private readonly handlers: ChangeListenerHandlers,
  ) {}

  /** Connects and starts listening; fails when the first connection cannot be made. */
  async start(): Promise<void> {
    await this.#connect();
    this.#heartbeat = setInterval(() => this.#beat(), HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#heartbeat);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    const name = `${this.config.application_name ?? 'hintgate'} listener`;
    const client = new Client({ ...this.config, application_name: name });
    client.on('notification', (message: Notification) => {
      if (message.channel === this.channel && message.payload !== undefined) {
        this.handlers.onPayload(message.payload);
      }
    });
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${escapeIdentifier(this.channel)}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
  }

  #beat(): void {
    const client = this.#client;
    if (client === undefined) return;
    client.query('SELECT 1').catch((error: unknown) => this.#lost(client, error));
  }

  #lost(client: Client, error?: unknown): void {
    if (this.#closed || this.#client !== client) return;
    this.#client = undefined;
    client.end().catch(() => undefined);
    const why = error === undefined ? 'connection ended' : errorMessage(error);
    this.handlers.onWarning(`store change listener lost its connection (${why}); reconnecting`);
    void this.#reconnect();
  }

  async #reconnect(): Promise<void> {
    if (this.#reconnecting) return;
    this.#reconnecting = true;
    let delay = FIRST_RETRY_MS;
    try {
      while (!this.#closed) {
        await new Promise((resolve) => setTimeout(resolve, delay).unref());
        if (this.#closed) return;
        try {
          await this.#connect();
          if (!this.#closed) this.handlers.onResync();
          return;
        } catch (error) {
          delay = Math.min(delay * 2, LAST_RETRY_MS);
          this.handlers.onWarning(
            `store change listener cannot reconnect (${errorMessage(error)}); retrying in ${delay} ms`,
          );
        }
      }
    } finally {
      this.#reconnecting = false;
    }
  }
}
