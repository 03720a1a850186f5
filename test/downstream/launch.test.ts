import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Launch } from '../../src/downstream/launch.js';
import { endEarly, serverEnvironment, startEarly, takeEarly } from '../../src/downstream/launch.js';
import { isGroupAlive } from '../../src/downstream/process-group.js';
import { ChildProcessTransport } from '../../src/downstream/stdio-transport.js';
import type { RpcMessage } from '../../src/mcp/json-rpc.js';
import { scratchDir } from '../helpers/config.js';
import { waitFor } from '../helpers/processes.js';

// Answers each JSON-RPC line with the method it got, after writing its pid to stderr.
const ECHO_LINES = `process.stderr.write('pid ' + process.pid + '\\n'); process.stdin.on('data', (d) => { for (const line of String(d).split('\\n').filter(Boolean)) { const m = JSON.parse(line); process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { got: m.method } }) + '\\n'); } });`;

/** `node -e script`; given a file, the process first writes its pid there unless it exists. */
function launchOf(script: string, env: Record<string, string> = {}, pidFile?: string): Launch {
  const prefix =
    pidFile === undefined
      ? ''
      : `try { require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid), { flag: 'wx' }); } catch {} `;
  return {
    command: process.execPath,
    args: ['-e', prefix + script],
    env: serverEnvironment(process.env, env),
  };
}

/** Started early, and running (its `spawn` event seen). */
async function startedEarly(server: string, launch: Launch): Promise<void> {
  startEarly(new Map([[server, launch]]));
  await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('servers started early', () => {
  afterEach(() => endEarly());

  it('are taken over by the transport that would start the same process, with what they wrote', async () => {
    const pidFile = join(scratchDir(), 'pid');
    const launch = launchOf(ECHO_LINES, { MARK: 'early' }, pidFile);
    startEarly(new Map([['fixture', launch]]));
    const earlyPid = await pidIn(pidFile);
    const logFile = join(scratchDir(), 'fixture.log');
    const transport = new ChildProcessTransport({
      server: 'fixture',
      command: launch.command,
      args: launch.args,
      env: { MARK: 'early' },
      logFile,
      baseEnv: process.env,
    });
    const messages: RpcMessage[] = [];
    transport.onmessage = (message) => void messages.push(message as unknown as RpcMessage);
    await transport.start();
    expect(transport.pid).toBe(earlyPid);
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await waitFor(
      () => messages.length,
      (count) => count === 1,
      5000,
    );
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 1, result: { got: 'ping' } }]);
    // Its stderr, written before the transport took it, reached the log.
    await waitFor(
      () => readFileSync(logFile, 'utf8'),
      (log) => log.includes(`pid ${String(transport.pid)}`),
      5000,
    );
    await transport.close();
  });

  it('are taken once', async () => {
    const launch = launchOf(ECHO_LINES);
    await startedEarly('fixture', launch);
    const child = takeEarly('fixture', launch);
    expect(child?.pid).toBeDefined();
    expect(takeEarly('fixture', launch)).toBeUndefined();
    child?.kill('SIGKILL');
  });

  it('are taken in the tick that started them, before their spawn event', async () => {
    const launch = launchOf(ECHO_LINES);
    startEarly(new Map([['fixture', launch]]));
    const child = takeEarly('fixture', launch);
    expect(child?.pid).toBeDefined();
    const pid = child?.pid as number;
    expect(isGroupAlive(pid)).toBe(true);
    // Still ended with its group when the gateway ends what it started.
    child?.kill('SIGKILL');
    await waitFor(
      () => isGroupAlive(pid),
      (alive) => !alive,
      5000,
    );
  });

  it('are not taken when they could not start', () => {
    const launch: Launch = { command: '/no/such/server', args: [], env: {} };
    startEarly(new Map([['fixture', launch]]));
    expect(takeEarly('fixture', launch)).toBeUndefined();
  });

  it.each([
    ['arguments', (pidFile: string) => launchOf(`${ECHO_LINES} // other`, {}, pidFile)],
    ['environment', (pidFile: string) => launchOf(ECHO_LINES, { MARK: 'other' }, pidFile)],
  ])('are ended, not taken, by a transport starting other %s', async (_what, other) => {
    const pidFile = join(scratchDir(), 'pid');
    startEarly(new Map([['fixture', launchOf(ECHO_LINES, {}, pidFile)]]));
    const pid = await pidIn(pidFile);
    expect(takeEarly('fixture', other(pidFile))).toBeUndefined();
    await waitFor(
      () => isGroupAlive(pid),
      (alive) => !alive,
      5000,
    );
  });

  it('are not taken once they have exited', async () => {
    const launch = launchOf('process.exit(3)');
    await startedEarly('fixture', launch);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(takeEarly('fixture', launch)).toBeUndefined();
  });

  it('are ended when no transport took them', async () => {
    const pidFile = join(scratchDir(), 'pid');
    const launch = launchOf(ECHO_LINES, {}, pidFile);
    startEarly(new Map([['fixture', launch]]));
    const pid = await pidIn(pidFile);
    endEarly();
    await waitFor(
      () => isGroupAlive(pid),
      (alive) => !alive,
      5000,
    );
    expect(takeEarly('fixture', launch)).toBeUndefined();
  });
});

/** The pid a process started with `launchOf(…, pidFile)` wrote. */
async function pidIn(pidFile: string): Promise<number> {
  const text = await waitFor(
    () => (existsSync(pidFile) ? readFileSync(pidFile, 'utf8') : ''),
    (content) => content !== '',
    5000,
  );
  return Number(text);
}
