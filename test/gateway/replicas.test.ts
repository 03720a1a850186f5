import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import type { ReplicaTarget, RouteKind } from '../../src/gateway/replicas.js';
import {
  Replica,
  ReplicaGroup,
  replicaName,
  replicaServerConfig,
} from '../../src/gateway/replicas.js';
import type { DownstreamStatus } from '../../src/downstream/downstream.js';

const UP: DownstreamStatus = { state: 'up', since: 0, era: 'legacy', protocolVersion: 'x' };
const DOWN: DownstreamStatus = {
  state: 'down',
  since: 0,
  reason: 'gone',
  code: 'DOWNSTREAM_CRASHED',
  attempt: 1,
};

function target(name: string): ReplicaTarget & { status: DownstreamStatus } {
  return { name, status: UP, callTool: () => Promise.resolve({}) };
}

function group(
  specs: { name: string; weight: number; categories?: string[] }[],
  now: () => number = () => 0,
) {
  const replicas = specs.map(
    (spec) => new Replica(spec.name, target(spec.name), spec.weight, spec.categories ?? []),
  );
  return {
    replicas,
    group: new ReplicaGroup('s', replicas, { failureThreshold: 3, cooldownMs: 1000 }, now),
  };
}

const picks = (g: ReplicaGroup, kind: RouteKind, count: number) =>
  Array.from({ length: count }, () => g.pick(kind)?.name);

describe('ReplicaGroup', () => {
  it('sends read-only calls to the replica with the fewest calls in flight, ties in turn', () => {
    const { group: g, replicas } = group([
      { name: 'a', weight: 100 },
      { name: 'b', weight: 10 },
    ]);
    expect(new Set(picks(g, 'read', 4))).toEqual(new Set(['a', 'b']));
    replicas[0]!.inFlight = 3;
    expect(picks(g, 'read', 3)).toEqual(['b', 'b', 'b']);
  });

  it('sends destructive calls only to primaries, and finds none when they are down', () => {
    const { group: g, replicas } = group([
      { name: 'primary', weight: 80 },
      { name: 'mirror', weight: 20 },
    ]);
    expect(picks(g, 'destructive', 5)).toEqual(Array(5).fill('primary'));
    (replicas[0]!.target as { status: DownstreamStatus }).status = DOWN;
    expect(g.pick('destructive')).toBeUndefined();
    expect(g.pick('read')?.name).toBe('mirror');
  });

  it('shares writes by weight and prefers caching replicas for idempotent calls', () => {
    const { group: g } = group([
      { name: 'a', weight: 75 },
      { name: 'b', weight: 25, categories: ['caching'] },
    ]);
    const writes = picks(g, 'write', 8);
    expect(writes.filter((name) => name === 'a')).toHaveLength(6);
    expect(writes.filter((name) => name === 'b')).toHaveLength(2);
    expect(picks(g, 'idempotent', 4)).toEqual(['b', 'b', 'b', 'b']);
  });

  it('takes a replica out after repeated failures, and probes it back once after the cooldown', () => {
    let now = 0;
    const { group: g, replicas } = group(
      [
        { name: 'a', weight: 100 },
        { name: 'b', weight: 100 },
      ],
      () => now,
    );
    const [a] = replicas as [Replica, Replica];
    for (let i = 0; i < 3; i++) g.failed(a);
    expect(g.states()[0]).toMatchObject({ breaker: 'open', failuresInARow: 3 });
    expect(picks(g, 'read', 4)).toEqual(['b', 'b', 'b', 'b']);
    now = 1000;
    expect(g.states()[0]?.breaker).toBe('half-open');
    const probe = picks(g, 'read', 4);
    expect(probe.filter((name) => name === 'a')).toHaveLength(1);
    g.failed(a);
    expect(picks(g, 'read', 3)).toEqual(['b', 'b', 'b']);
    now = 2000;
    expect(picks(g, 'write', 2)).toContain('a');
    g.succeeded(a);
    expect(g.states()[0]?.breaker).toBe('closed');
    expect(new Set(picks(g, 'read', 4))).toEqual(new Set(['a', 'b']));
  });
});

describe('replica config', () => {
  it('gives each replica the server settings with its own transport and names it', () => {
    const config = configSchema.parse({
      mcpServers: {
        s: {
          env: { SHARED: '1', OVER: 'server' },
          timeouts: { callMs: 1234 },
          replicas: [
            { command: 'node', args: ['a.js'], env: { OVER: 'replica' } },
            { url: 'http://127.0.0.1:9/mcp', name: 'remote', weight: 10, categories: ['caching'] },
          ],
        },
      },
    });
    const server = config.mcpServers['s']!;
    const [first, second] = server.replicas;
    expect(replicaServerConfig(server, first!)).toMatchObject({
      command: 'node',
      args: ['a.js'],
      env: { SHARED: '1', OVER: 'replica' },
      timeouts: { callMs: 1234 },
      replicas: [],
    });
    const remote = replicaServerConfig(server, second!);
    expect(remote.url).toBe('http://127.0.0.1:9/mcp');
    expect(remote.command).toBeUndefined();
    expect([replicaName('s', first!, 0), replicaName('s', second!, 1)]).toEqual([
      's#0',
      's#remote',
    ]);
  });

  it('refuses a server with both replicas and its own transport, or a replica without one', () => {
    const both = configSchema.safeParse({
      mcpServers: { s: { command: 'x', replicas: [{ command: 'y' }] } },
    });
    expect(both.success).toBe(false);
    const none = configSchema.safeParse({ mcpServers: { s: { replicas: [{ weight: 60 }] } } });
    expect(none.success).toBe(false);
  });
});
