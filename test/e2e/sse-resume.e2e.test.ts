import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFastConfig } from '../helpers/call-path.js';
import { fixtureServer, scratchDir } from '../helpers/config.js';
import type { GatewayProcess } from '../helpers/gateway.js';
import { startHttpGateway } from '../helpers/gateway.js';

/**
 * A 2025 client whose SSE stream broke resumes it with `Last-Event-ID`: the events sent
 * while it was away arrive, none twice, and the stream goes on. The session's GET stream
 * carries the server's own log messages (sent to the sessions that set a log level); a
 * second session, connected all along, shows when they were sent.
 */

interface SseEvent {
  readonly id: string | undefined;
  readonly data: string;
}

/** Reads SSE events from a response body, one at a time. */
class SseReader {
  private buffer = '';
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();

  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.getReader();
  }

  /** The next event with data (priming events, which carry only an id, are skipped). */
  async next(): Promise<SseEvent> {
    for (;;) {
      const end = this.buffer.search(/\r?\n\r?\n/);
      if (end >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end).replace(/^\r?\n\r?\n/, '');
        let id: string | undefined;
        const data: string[] = [];
        for (const line of block.split(/\r?\n/)) {
          if (line.startsWith('id:')) id = line.slice(3).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
        }
        if (data.length > 0 && data.join('') !== '') return { id, data: data.join('\n') };
        continue;
      }
      const { value, done } = await this.reader.read();
      if (done) throw new Error('the stream ended');
      this.buffer += this.decoder.decode(value, { stream: true });
    }
  }

  /** The next log message's text (and its event id). */
  async nextLog(): Promise<{ id: string | undefined; text: string }> {
    for (;;) {
      const event = await this.next();
      const message = JSON.parse(event.data) as { method?: string; params?: { data?: unknown } };
      if (message.method === 'notifications/message')
        return { id: event.id, text: String(message.params?.data) };
    }
  }

  /** Breaks the stream, as a dropped connection would. */
  async cancel(): Promise<void> {
    await this.reader.cancel();
  }
}

/** A raw 2025 session of the gateway, over fetch. */
class RawSession {
  private nextId = 1;
  sessionId = '';

  constructor(private readonly url: string) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(this.sessionId === '' ? {} : { 'mcp-session-id': this.sessionId }),
      ...extra,
    };
  }

  /** Sends a request and reads its answer (JSON, or the SSE stream's response event). */
  async request(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.nextId++;
    const response = await fetch(this.url, {
      method: 'POST',
      headers: this.headers(),
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    });
    if (response.status !== 200) throw new Error(`${method}: HTTP ${response.status}`);
    this.sessionId = response.headers.get('mcp-session-id') ?? this.sessionId;
    if (response.headers.get('content-type')?.includes('text/event-stream')) {
      const reader = new SseReader(response.body as ReadableStream<Uint8Array>);
      for (;;) {
        const message = JSON.parse((await reader.next()).data) as { id?: number };
        if (message.id === id) {
          await reader.cancel();
          return message;
        }
      }
    }
    return response.json();
  }

  async open(): Promise<void> {
    await this.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'raw-sse', version: '1' },
    });
    const initialized = await fetch(this.url, {
      method: 'POST',
      headers: this.headers(),
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    expect(initialized.status).toBe(202);
    await this.request('logging/setLevel', { level: 'info' });
  }

  /** Opens the session's GET stream, resuming after `lastEventId` when given. */
  async stream(lastEventId?: string): Promise<SseReader> {
    const response = await fetch(this.url, {
      method: 'GET',
      headers: this.headers({
        accept: 'text/event-stream',
        ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
      }),
    });
    expect(response.status).toBe(200);
    return new SseReader(response.body as ReadableStream<Uint8Array>);
  }

  async logLater(text: string): Promise<void> {
    await this.request('tools/call', { name: 'chatty_log_after', arguments: { text } });
  }
}

describe('SSE resumption of a 2025 session', () => {
  const dir = scratchDir();
  let gateway: GatewayProcess & { url: string };

  beforeAll(async () => {
    const config = await writeFastConfig(dir, { chatty: fixtureServer('chatty') });
    gateway = await startHttpGateway(config);
  });
  afterAll(async () => {
    gateway?.child.kill('SIGTERM');
    await gateway?.exited;
  });

  it('sends the events missed while the stream was broken after Last-Event-ID, none twice', async () => {
    const client = new RawSession(gateway.url);
    const witness = new RawSession(gateway.url);
    await client.open();
    await witness.open();
    const watching = await witness.stream();
    let stream = await client.stream();

    await client.logLater('one');
    const one = await stream.nextLog();
    expect(one.text).toBe('one');
    expect(one.id).toBeDefined();
    expect(await watching.nextLog()).toMatchObject({ text: 'one' });
    await stream.cancel();

    // Sent while the client's stream is broken: the witness sees them go out.
    await client.logLater('two');
    expect(await watching.nextLog()).toMatchObject({ text: 'two' });
    await client.logLater('three');
    expect(await watching.nextLog()).toMatchObject({ text: 'three' });

    stream = await client.stream(one.id);
    const two = await stream.nextLog();
    const three = await stream.nextLog();
    expect([two.text, three.text]).toEqual(['two', 'three']);
    expect(new Set([one.id, two.id, three.id]).size).toBe(3);
    // The resumed stream goes on with what comes next, and nothing already seen.
    await client.logLater('four');
    expect(await stream.nextLog()).toMatchObject({ text: 'four' });
    expect(await watching.nextLog()).toMatchObject({ text: 'four' });
    await stream.cancel();
    await watching.cancel();
  });
});
