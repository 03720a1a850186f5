import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChildProcessTransport } from '../../src/downstream/stdio-transport.js';
import type { RpcMessage } from '../../src/mcp/json-rpc.js';
import { scratchDir } from '../helpers/config.js';
import { processTable, waitFor } from '../helpers/processes.js';
import type { Wire } from '../helpers/wire.js';

/** A transport running `node -e <script>`, collecting what it delivers. */
function start(script: string, options: { closeGraceMs?: number; maxGarbageLines?: number } = {}) {
  const logFile = join(scratchDir(), 'server.log');
  const transport = new ChildProcessTransport({
    server: 'fixture',
    command: process.execPath,
    args: ['-e', script],
    logFile,
    baseEnv: process.env,
    ...options,
  });
  const messages: RpcMessage[] = [];
  const errors: Error[] = [];
  let closed = 0;
  transport.onmessage = (message) => void messages.push(message as unknown as RpcMessage);
  transport.onerror = (error) => void errors.push(error);
  transport.onclose = () => void closed++;
  return { transport, messages, errors, logFile, closes: () => closed };
}

const ECHO_LINES = `process.stdin.on('data', (d) => { for (const line of String(d).split('\\n').filter(Boolean)) { const m = JSON.parse(line); process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { got: m.method } }) + '\\n'); } });`;

describe('ChildProcessTransport', () => {
  it('frames JSON-RPC both ways and keeps stderr out of the messages, in the log file', async () => {
    const { transport, messages, logFile } = start(
      `process.stderr.write('diagnostics here\\n'); ${ECHO_LINES}`,
    );
    await transport.start();
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await waitFor(
      () => messages.length,
      (count) => count === 1,
      5000,
    );
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 1, result: { got: 'ping' } }]);
    await transport.close();
    const log = readFileSync(logFile, 'utf8');
    expect(log).toContain('diagnostics here');
    expect(log).toMatch(/\[hintgate [^\]]+\] starting: /);
  });

  it("writes its log 0600, with the command line's secrets masked", async () => {
    const logFile = join(scratchDir(), 'logs', 'secret.log');
    const transport = new ChildProcessTransport({
      server: 'fixture',
      command: process.execPath,
      args: ['-e', ECHO_LINES, '--', '--password=hunter2', '--token', 'tok-123'],
      logFile,
      baseEnv: process.env,
    });
    await transport.start();
    await transport.close();
    expect(statSync(logFile).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(logFile)).mode & 0o777).toBe(0o700);
    const log = readFileSync(logFile, 'utf8');
    expect(log).toContain('--password=[redacted] --token [redacted]');
    expect(log).not.toContain('hunter2');
    expect(log).not.toContain('tok-123');
  });

  it('logs and marks non-JSON-RPC stdout lines, turns a broken answer into an error for its id, and keeps going', async () => {
    const script = `console.log('hello from a banner'); console.log(JSON.stringify({ jsonrpc: '2.0', id: 9, resul: 1 })); ${ECHO_LINES}`;
    const { transport, messages, logFile } = start(script);
    await transport.start();
    await waitFor(
      () => messages.length,
      (count) => count === 1,
      5000,
    );
    expect(messages[0]).toMatchObject({
      id: 9,
      error: { code: -32012, message: expect.stringContaining('invalid JSON-RPC response') },
    });
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'still/works' });
    await waitFor(
      () => messages.length,
      (count) => count === 2,
      5000,
    );
    expect(transport.garbageSummary).toMatch(
      /^it wrote 2 line\(s\) to stdout that are not JSON-RPC \(e\.g\. "hello from a banner"/,
    );
    await transport.close();
    expect(readFileSync(logFile, 'utf8')).toContain(
      'non-JSON-RPC stdout line (not JSON): hello from a banner',
    );
  });

  it('fails the connection with DOWNSTREAM_PROTOCOL past the garbage limit', async () => {
    const { transport, errors, closes } = start(
      `for (let i = 0; i < 10; i++) console.log('junk ' + i); setInterval(() => {}, 1000);`,
      { maxGarbageLines: 3, closeGraceMs: 200 },
    );
    await transport.start();
    await waitFor(closes, (count) => count === 1, 5000);
    expect(errors[0]).toMatchObject({
      code: 'DOWNSTREAM_PROTOCOL',
      message: expect.stringContaining('does not speak JSON-RPC on stdout'),
    });
    expect(transport.failure).toBe(errors[0]);
    expect(() => transport.sendRaw('{}')).toThrow('does not speak JSON-RPC');
  });

  it('reports a missing command clearly', async () => {
    const transport = new ChildProcessTransport({
      server: 'x',
      command: '/no/such/binary',
      args: [],
      logFile: join(scratchDir(), 'x.log'),
    });
    await expect(transport.start()).rejects.toMatchObject({
      code: 'DOWNSTREAM_UNAVAILABLE',
      message: 'command not found: "/no/such/binary"',
    });
  });

  it('tells when the process exits on its own, with the tail of its stderr', async () => {
    const { transport, closes } = start(
      `process.stderr.write('fatal: bad config\\n'); process.exit(5);`,
    );
    await transport.start();
    await waitFor(closes, (count) => count === 1, 5000);
    expect(transport.exit).toMatchObject({
      code: 5,
      signal: null,
      stderrTail: 'fatal: bad config',
      requested: false,
    });
  });

  it('closes by escalating to SIGKILL, ending the whole process group', async () => {
    const script = `process.on('SIGTERM', () => {}); const { spawn } = require('node:child_process'); const c = spawn(process.execPath, ['-e', 'process.on("SIGTERM",()=>{}); setInterval(()=>{},1000)'], { stdio: 'ignore' }); console.log(JSON.stringify({ jsonrpc: '2.0', method: 'child', params: { pid: c.pid } })); setInterval(() => {}, 1000);`;
    const { transport, messages } = start(script, { closeGraceMs: 150 });
    await transport.start();
    await waitFor(
      () => messages.length,
      (count) => count === 1,
      5000,
    );
    const grandchild = (messages[0] as Wire).params.pid as number;
    const pid = transport.pid as number;
    expect(
      processTable()
        .filter((row) => row.pgid === pid)
        .map((row) => row.pid)
        .sort(),
    ).toEqual([pid, grandchild].sort());
    const started = Date.now();
    await transport.close();
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(transport.exit).toMatchObject({ signal: 'SIGKILL', requested: true });
    expect(processTable().filter((row) => row.pgid === pid)).toEqual([]);
  });

  it('closes a well-behaved server by ending its stdin, without signals', async () => {
    const { transport } = start(
      `process.stdin.on('end', () => process.exit(0)); process.stdin.resume();`,
    );
    await transport.start();
    await transport.close();
    expect(transport.exit).toMatchObject({ code: 0, signal: null });
  });
});
