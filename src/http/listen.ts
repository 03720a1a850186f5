import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { HintgateError } from '../core/errors.js';

/** A listening HTTP server. */
export interface HttpListener {
  /** The `/mcp` URL clients use. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Stops accepting, ends open connections. */
  close(): Promise<void>;
}

/** Splits `host:port` (`[::1]:8787` for IPv6). */
export function parseListenAddress(value: string): { host: string; port: number } {
  const match = /^(\[[0-9a-fA-F:]+\]|[^\s:[\]]+):(\d+)$/.exec(value.trim());
  const port = Number(match?.[2]);
  if (match?.[1] === undefined || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new HintgateError(
      'INPUT_INVALID',
      `--http: expected host:port (e.g. 127.0.0.1:8787), got "${value}"`,
    );
  }
  return { host: match[1], port };
}

/** Serves `app` on `host:port` (port 0 picks a free one) and resolves once listening. */
export function listen(app: Hono, host: string, port: number): Promise<HttpListener> {
  const hostname = host.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname, port }) as HttpServer;
    server.once('error', (error: NodeJS.ErrnoException) => {
      const why =
        error.code === 'EADDRINUSE' ? `address ${host}:${port} is already in use` : error.message;
      reject(
        new HintgateError('INPUT_INVALID', `--http: cannot listen: ${why}`, undefined, {
          cause: error,
        }),
      );
    });
    server.once('listening', () => {
      const address = server.address() as AddressInfo;
      const shown = hostname.includes(':') ? `[${hostname}]` : hostname;
      resolve({
        url: `http://${shown}:${address.port}/mcp`,
        host: hostname,
        port: address.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
