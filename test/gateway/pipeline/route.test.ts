import { describe, expect, it } from 'vitest';
import { compose } from '../../../src/gateway/pipeline/compose.js';
import type { CallTarget } from '../../../src/gateway/pipeline/context.js';
import { retry } from '../../../src/gateway/pipeline/retry.js';
import { route } from '../../../src/gateway/pipeline/route.js';
import { Replica, ReplicaGroup } from '../../../src/gateway/replicas.js';
import type { DownstreamStatus } from '../../../src/downstream/downstream.js';
import { DownstreamError } from '../../../src/mcp/rpc-errors.js';
import type { JsonObject } from '../../../src/mcp/json-rpc.js';
import { OK, TOOLS, fakeNext, settingsOf, toolContext } from './step-helpers.js';

const UP: DownstreamStatus = { state: 'up', since: 0, era: 'legacy', protocolVersion: 'x' };

/** A replica's connection answering with `answer` (or failing), counting calls. */
function connection(name: string, answer: () => Promise<JsonObject>) {
  const target = { name, status: UP, calls: 0, callTool: () => answer() };
  target.callTool = () => {
    target.calls += 1;
    return answer();
  };
  return target;
}

const crash = (name: string) => () =>
  Promise.reject(new DownstreamError('DOWNSTREAM_CRASHED', 's', `${name} crashed`));

describe('route', () => {
  it('goes on unchanged for a server without replicas', async () => {
    const next = fakeNext();
    const ctx = toolContext(TOOLS.read);
    await route(() => undefined)(ctx, next);
    expect(next).toHaveBeenCalledTimes(1);
    expect(ctx.target).toBeUndefined();
  });

  it('sets the chosen replica as the target, counting it in flight meanwhile', async () => {
    const primary = new Replica(
      's#0',
      connection('s#0', () => Promise.resolve(OK)),
      100,
      [],
    );
    const group = new ReplicaGroup('s', [primary], { failureThreshold: 3, cooldownMs: 1000 });
    const ctx = toolContext(TOOLS.destructive);
    let inFlight = -1;
    await route(() => group)(ctx, () => {
      inFlight = primary.inFlight;
      return Promise.resolve(OK);
    });
    expect(inFlight).toBe(1);
    expect(primary.inFlight).toBe(0);
    expect(ctx.target).toBe(primary.target);
    expect(ctx.trace.replica).toBe('s#0');
  });

  it('fails clearly when no primary can take a destructive call', async () => {
    const mirror = new Replica(
      's#1',
      connection('s#1', () => Promise.resolve(OK)),
      10,
      [],
    );
    const group = new ReplicaGroup('s', [mirror], { failureThreshold: 3, cooldownMs: 1000 });
    const next = fakeNext();
    await expect(route(() => group)(toolContext(TOOLS.destructive), next)).rejects.toMatchObject({
      code: 'DOWNSTREAM_UNAVAILABLE',
      message: expect.stringContaining('no primary replica of server "s"'),
    });
    expect(next).not.toHaveBeenCalled();
  });

  it('lets retry move a failed read to another replica, and the breaker take the failing one out', async () => {
    const bad = connection('s#0', crash('s#0'));
    const good = connection('s#1', () => Promise.resolve(OK));
    const group = new ReplicaGroup(
      's',
      [new Replica('s#0', bad, 100, []), new Replica('s#1', good, 100, [])],
      { failureThreshold: 2, cooldownMs: 60_000 },
    );
    const run = compose([
      retry(settingsOf(), {
        maxAttempts: 3,
        initialDelayMs: 1,
        maxDelayMs: 5,
        factor: 1,
        totalMs: 50_000,
      }),
      route(() => group),
      (ctx) => (ctx.target as CallTarget).callTool({}, {}),
    ]);
    for (let i = 0; i < 6; i++) expect(await run(toolContext(TOOLS.read))).toEqual(OK);
    expect(bad.calls).toBe(2);
    expect(good.calls).toBe(6);
    expect(group.states()[0]).toMatchObject({ breaker: 'open' });
  });

  it('counts a tool error as an answer, not a failure', async () => {
    const erring = connection('s#0', () => Promise.resolve({ content: [], isError: true }));
    const group = new ReplicaGroup('s', [new Replica('s#0', erring, 100, [])], {
      failureThreshold: 1,
      cooldownMs: 60_000,
    });
    const step = route(() => group);
    for (let i = 0; i < 3; i++) await step(toolContext(TOOLS.read), () => erring.callTool());
    expect(group.states()[0]?.breaker).toBe('closed');
  });
});
