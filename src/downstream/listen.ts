import type { Client, McpSubscription } from '@modelcontextprotocol/client';
import type { JsonObject } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';

/**
 * The `subscriptions/listen` stream of a 2026 server: such servers send change notifications
 * (lists, subscribed resources) only there. One stream is kept open per connection, reopened
 * when the server ends it, and reopened with a new filter when the subscribed resources
 * change. The notifications themselves reach the SDK client's handlers.
 */
export class ListenStream {
  /** Resources clients subscribed to (they join the stream's filter). */
  readonly resourceUris = new Set<string>();
  private subscription: McpSubscription | undefined;
  private client: Client | undefined;
  private capabilities: JsonObject = {};
  private generation = 0;

  constructor(
    private readonly timeoutMs: number,
    /** Whether the connection the stream belongs to is still the live one. */
    private readonly live: (generation: number) => boolean,
  ) {}

  /** Opens the stream on a new connection. */
  open(client: Client, generation: number, capabilities: JsonObject): void {
    this.client = client;
    this.capabilities = capabilities;
    this.generation = generation;
    void this.listen(client, generation);
  }

  /** Reopens the stream with the current filter. */
  async reopen(): Promise<void> {
    const client = this.client;
    if (client === undefined) return;
    const previous = this.subscription;
    this.subscription = undefined;
    await previous?.close().catch(() => undefined);
    void this.listen(client, this.generation);
  }

  /** Forgets the connection (it closed). */
  drop(): void {
    this.client = undefined;
    this.subscription = undefined;
  }

  private async listen(client: Client, generation: number): Promise<void> {
    const capabilities = this.capabilities;
    const flag = (key: string, name: string) =>
      isJsonObject(capabilities[key]) && capabilities[key][name] === true;
    const filter = {
      ...(flag('tools', 'listChanged') ? { toolsListChanged: true } : {}),
      ...(flag('prompts', 'listChanged') ? { promptsListChanged: true } : {}),
      ...(flag('resources', 'listChanged') ? { resourcesListChanged: true } : {}),
      ...(flag('resources', 'subscribe') && this.resourceUris.size > 0
        ? { resourceSubscriptions: [...this.resourceUris] }
        : {}),
    };
    if (Object.keys(filter).length === 0) return;
    try {
      const subscription = await client.listen(filter, { timeout: this.timeoutMs });
      this.subscription = subscription;
      const how = await subscription.closed;
      if (this.subscription === subscription) this.subscription = undefined;
      if (how === 'remote' && this.client === client && this.live(generation)) {
        void this.listen(client, generation);
      }
    } catch {
      // A server that cannot listen still serves; its lists are read at each reconnect.
    }
  }
}
