import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { annotate } from '../../../src/gateway/pipeline/annotate.js';
import { compose } from '../../../src/gateway/pipeline/compose.js';
import { requireAnnotations } from '../../../src/gateway/pipeline/context.js';
import { resolve } from '../../../src/gateway/pipeline/resolve.js';
import { META_TOOLS, META_TOOLS_BY_NAME } from '../../../src/gateway/meta-tools/index.js';
import { createCallScope } from '../../../src/gateway/toolsets/scope.js';
import { ToolsetService } from '../../../src/gateway/toolsets/service.js';
import type { Store } from '../../../src/store/store.js';
import { openTestStore } from '../../helpers/store.js';
import type { Wire } from '../../helpers/wire.js';
import { catalogWith, contextFor } from '../pipeline/helpers.js';

describe('resolve with toolsets', () => {
  const catalog = catalogWith({ name: 'get_user' }, { name: 'delete_user' });
  let store: Store;
  let service: ToolsetService;
  const ok = () => Promise.resolve({ content: [] });

  beforeAll(async () => {
    store = await openTestStore();
    await store.createToolset({
      name: 'readers',
      members: [{ kind: 'tool', namespacedName: 's.get_user' }],
    });
    await store.setOverride({ namespacedName: 's.get_user' }, { openWorldHint: false });
    service = new ToolsetService({
      store,
      catalog,
      configurationMode: 'always',
      localTools: META_TOOLS,
      notify: () => undefined,
    });
    await service.start();
  });

  afterAll(async () => {
    service.close();
    await store.close();
  });

  const step = () =>
    resolve(catalog, () => 'down', createCallScope(service, catalog, META_TOOLS_BY_NAME));

  it('answers a meta tool itself: entry, annotations and trace set, the rest never called', async () => {
    const next = vi.fn(ok);
    const ctx = contextFor('list-saved-toolsets');
    const result = (await step()(ctx, next)) as Wire;
    expect(next).not.toHaveBeenCalled();
    expect(result.structuredContent.toolsets).toEqual([
      expect.objectContaining({ name: 'readers' }),
    ]);
    expect(ctx.entry?.server).toBe('hintgate');
    expect(requireAnnotations(ctx).annotations.readOnlyHint).toBe(true);
    expect(ctx.trace).toMatchObject({
      server: 'hintgate',
      tool: 'list-saved-toolsets',
      outcome: 'ok',
    });
  });

  it('refuses a tool outside the equipped toolset, naming the toolset, and hands on overridden entries', async () => {
    const ctx = contextFor('equip-toolset', { name: 'readers' });
    await step()(ctx, ok);
    const outside = contextFor('s_delete_user');
    await expect(step()(outside, ok)).rejects.toMatchObject({
      code: 'UNKNOWN_TOOL',
      message: 'Unknown tool: "s_delete_user" is not in the equipped toolset "readers"',
    });
    const inside = contextFor('s_get_user');
    await compose([step(), annotate(), ok])(inside);
    const annotations = requireAnnotations(inside);
    expect(annotations.annotations.openWorldHint).toBe(false);
    expect(annotations.provenance['openWorldHint']?.source).toBe('override');
  });
});
