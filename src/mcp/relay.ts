import type { JsonObject } from './json-rpc.js';

/** Sends a server-to-client request (elicitation, sampling) to the client whose call caused it. */
export type ServerRequestRelay = (
  request: { method: string; params: JsonObject },
  signal: AbortSignal,
) => Promise<JsonObject>;
