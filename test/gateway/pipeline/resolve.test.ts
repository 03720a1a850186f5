import { describe, expect, it, vi } from 'vitest';
import { annotate } from '../../../src/gateway/pipeline/annotate.js';
import { compose } from '../../../src/gateway/pipeline/compose.js';
import { requireAnnotations, requireEntry } from '../../../src/gateway/pipeline/context.js';
import { MAX_ARGUMENT_DEPTH, resolve } from '../../../src/gateway/pipeline/resolve.js';
import { catalogWith, contextFor } from './helpers.js';

const ok = () => Promise.resolve({ content: [] });

describe('resolve', () => {
  it('puts the catalog entry in the context and the trace, by flattened or namespaced name', async () => {
    const catalog = catalogWith({ name: 'get_user' });
    for (const name of ['s_get_user', 's.get_user']) {
      const ctx = contextFor(name);
      await resolve(catalog, () => 'down')(ctx, ok);
      expect(requireEntry(ctx).name).toBe('get_user');
      expect(ctx.trace).toMatchObject({
        requested: name,
        server: 's',
        tool: 'get_user',
        refId: requireEntry(ctx).refId,
      });
    }
  });

  it('fails an unknown name with UNKNOWN_TOOL naming it, without calling the rest', async () => {
    const next = vi.fn(ok);
    const ctx = contextFor('nope');
    await expect(resolve(catalogWith(), () => 'down')(ctx, next)).rejects.toMatchObject({
      code: 'UNKNOWN_TOOL',
      message: 'Unknown tool: "nope"',
    });
    expect(next).not.toHaveBeenCalled();
    expect(ctx.trace.stoppedBy).toBe('resolve');
  });

  it('fails a tool of a server that went down with DOWNSTREAM_UNAVAILABLE and the reason', async () => {
    const catalog = catalogWith({ name: 'get_user' });
    catalog.removeServer('s', { remember: true });
    await expect(
      resolve(catalog, (server) => `server "${server}" is down: it crashed`)(
        contextFor('s_get_user'),
        ok,
      ),
    ).rejects.toMatchObject({
      code: 'DOWNSTREAM_UNAVAILABLE',
      server: 's',
      message: 'server "s" is down: it crashed',
    });
  });

  it('fails a tool of a server that never came up with DOWNSTREAM_UNAVAILABLE, not unknown', async () => {
    const step = resolve(
      catalogWith(),
      (server) => `server "${server}" is down: spawn ENOENT`,
      undefined,
      (name) => (name.startsWith('github_') ? 'github' : undefined),
    );
    await expect(step(contextFor('github_list_repos'), ok)).rejects.toMatchObject({
      code: 'DOWNSTREAM_UNAVAILABLE',
      message: 'server "github" is down: spawn ENOENT',
    });
    await expect(step(contextFor('gitlab_list'), ok)).rejects.toMatchObject({
      code: 'UNKNOWN_TOOL',
    });
  });

  it('refuses arguments that are not an object, or nest too deeply, saying which', async () => {
    const catalog = catalogWith({ name: 'get_user' });
    const next = vi.fn(ok);
    for (const [args, problem] of [
      ['text', 'arguments must be an object, got a string'],
      [[1, 2], 'arguments must be an object, got an array'],
      [null, 'arguments must be an object, got null'],
      [7, 'arguments must be an object, got a number'],
    ] as const) {
      const ctx = contextFor('s_get_user', {}, { arguments: args });
      await expect(resolve(catalog, () => 'down')(ctx, next)).rejects.toMatchObject({
        code: 'INVALID_ARGUMENTS',
        message: `${problem} (tool "s_get_user")`,
      });
    }
    // 5,000 levels deep: refused by a bound, not a stack overflow.
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 5_000; i++) deep = { a: [deep] };
    await expect(
      resolve(catalog, () => 'down')(contextFor('s_get_user', deep), next),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENTS',
      message: expect.stringContaining(`deeper than ${MAX_ARGUMENT_DEPTH} levels`),
    });
    expect(next).not.toHaveBeenCalled();
    let fine: Record<string, unknown> = { leaf: 1 };
    for (let i = 1; i < MAX_ARGUMENT_DEPTH; i++) fine = { a: fine };
    await resolve(catalog, () => 'down')(contextFor('s_get_user', fine), next);
    expect(next).toHaveBeenCalledOnce();
  });
});

describe('annotate', () => {
  it('sets the effective annotations of the resolved tool', async () => {
    const catalog = catalogWith({ name: 'delete_user', description: 'Deletes a user' });
    const ctx = contextFor('s_delete_user');
    await resolve(catalog, () => '')(ctx, () => annotate()(ctx, ok));
    expect(requireAnnotations(ctx).annotations.destructiveHint).toBe(true);
  });

  it('fails loudly when run before resolve', async () => {
    // Composed, as every step runs: a step's throw is the pipeline's rejection.
    const pipeline = compose([annotate(), () => ok()]);
    await expect(pipeline(contextFor('x'))).rejects.toMatchObject({ code: 'PIPELINE' });
  });
});
