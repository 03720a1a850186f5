import type { Client } from '@modelcontextprotocol/client';
import type { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ClientKind, GatewayProcess } from './gateway.js';
import { connectHttp, connectStdio, connectStdioV1, startHttpGateway } from './gateway.js';
import { descendants } from './processes.js';
import type { ProcessRow } from './processes.js';

/** The two fronts every behaviour is checked on. */
export type FrontKind = 'stdio' | 'http';

/** A client connected to a gateway through one front. */
export interface FrontSession {
  readonly client: Client | V1Client;
  /** The gateway process id. */
  readonly gatewayPid: number;
  /** The gateway's stderr so far. */
  stderr(): string;
  /** The processes the gateway has spawned, now. */
  children(): ProcessRow[];
  /** Closes the client and ends the gateway. */
  close(): Promise<void>;
}

/** Starts a gateway on `config` behind `front` and connects a client of `kind` to it. */
export async function openFront(
  front: FrontKind,
  kind: ClientKind,
  config: string,
): Promise<FrontSession> {
  if (front === 'stdio') {
    if (kind === 'v1') {
      const { client, transport, stderr } = await connectStdioV1(config);
      const pid = transport.pid as number;
      return {
        client,
        gatewayPid: pid,
        stderr,
        children: () => descendants(pid),
        close: () => client.close(),
      };
    }
    const { client, transport, stderr } = await connectStdio(config, kind);
    const pid = transport.pid as number;
    return {
      client,
      gatewayPid: pid,
      stderr,
      children: () => descendants(pid),
      close: () => client.close(),
    };
  }
  const gateway: GatewayProcess & { url: string } = await startHttpGateway(config);
  const client = await connectHttp(gateway.url, kind);
  return {
    client,
    gatewayPid: gateway.pid,
    stderr: () => gateway.stderr(),
    children: () => gateway.children(),
    close: async () => {
      await client.close();
      gateway.child.kill('SIGTERM');
      await gateway.exited;
    },
  };
}
