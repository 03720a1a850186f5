import { afterEach, describe, expect, it } from 'vitest';
import { serverSchema } from '../../src/config/schema.js';
import type { DownstreamEvents } from '../../src/downstream/downstream.js';
import { Downstream } from '../../src/downstream/downstream.js';
import { PerUserServer } from '../../src/downstream/per-user.js';
import { scratchDir } from '../helpers/config.js';
import { fixture } from '../helpers/paths.js';

/**
 * A PerUserServer whose principals' connections are real stdio connections to the echo
 * fixture (standing in for the HTTP server each principal reaches over its own login).
 */
const opened: PerUserServer[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((server) => server.close()));
});

function perUser(logins: string[], idleMs = 60_000) {
  const connections: { principal: string; downstream: Downstream }[] = [];
  let statusEvents = 0;
  const lines: string[] = [];
  const server = new PerUserServer({
    name: 'team',
    config: serverSchema.parse({
      url: 'http://127.0.0.1:1/mcp',
      auth: 'per-user',
      timeouts: { idleMs },
    }),
    connect: (principal: string, events: DownstreamEvents) => {
      const downstream = new Downstream({
        name: 'team',
        config: serverSchema.parse({ command: process.execPath, args: [fixture('echo')] }),
        identity: { name: 'hintgate-test', version: '0.0.0' },
        logDir: scratchDir(),
        reconnect: false,
        baseEnv: process.env,
        events,
      });
      connections.push({ principal, downstream });
      return downstream;
    },
    logins: () => Promise.resolve(logins),
    events: { status: () => void statusEvents++ },
    log: (line) => void lines.push(line),
  });
  opened.push(server);
  return { server, connections, lines, statusEvents: () => statusEvents };
}

const echo = (server: PerUserServer, principal: string | undefined, text: string) =>
  server.callTool({ name: 'echo', arguments: { text } }, { principal });

describe('PerUserServer', () => {
  it("each principal gets a connection of its own; another's identical listing is not re-reported", async () => {
    const { server, connections, statusEvents } = perUser(['alice', 'bob']);
    const principals = ['alice', 'bob', 'alice', 'alice', 'bob', 'bob'];
    const results = await Promise.all(principals.map((who, i) => echo(server, who, `${i}`)));
    expect(results).toHaveLength(6);
    expect(connections.map((each) => each.principal).sort()).toEqual(['alice', 'bob']);
    expect([...server.connected].sort()).toEqual(['alice', 'bob']);
    expect(server.status.state).toBe('up');
    // bob's connection listed what alice's did: the server as one was reported up once.
    expect(statusEvents()).toBe(1);
  });

  it('a lost connection is replaced once, however many calls find it lost', async () => {
    const { server, connections } = perUser(['alice']);
    await echo(server, 'alice', 'first');
    const first = connections[0]?.downstream as Downstream;
    await first.close();
    expect(first.status.state).toBe('closed');
    await Promise.all([1, 2, 3, 4].map((i) => echo(server, 'alice', `${i}`)));
    expect(connections).toHaveLength(2);
    expect(connections[1]?.downstream.status.state).toBe('up');
    expect(server.connected).toEqual(['alice']);
  });

  it('refuses a principal without a login, and a request without a principal, opening nothing', async () => {
    const { server, connections } = perUser(['alice']);
    await expect(echo(server, 'carol', 'x')).rejects.toThrow(
      'hintgate auth login team --principal carol',
    );
    await expect(echo(server, undefined, 'x')).rejects.toThrow('this request has no principal');
    expect(connections).toEqual([]);
    expect(server.hasLogin('carol')).toBe(false);
    expect(server.hasLogin('alice')).toBe(true);
  });

  it('closes an idle connection and opens a new one on the next call', async () => {
    const { server, connections, lines } = perUser(['alice'], 200);
    await echo(server, 'alice', 'x');
    await expect.poll(() => server.connected, { timeout: 5_000 }).toEqual([]);
    expect(lines.join('\n')).toContain('closed the connection for principal "alice" (idle)');
    await echo(server, 'alice', 'y');
    expect(connections).toHaveLength(2);
  });

  it('a server shut down refuses calls, even one that was waiting for the logins', async () => {
    const { server } = perUser(['alice']);
    const call = echo(server, 'alice', 'x');
    await server.close();
    await expect(call).rejects.toThrow('server "team" is shut down');
    await expect(echo(server, 'alice', 'y')).rejects.toThrow('server "team" is shut down');
    expect(server.connected).toEqual([]);
  });
});
