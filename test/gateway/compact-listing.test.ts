import { describe, expect, it } from 'vitest';
import { Catalog } from '../../src/gateway/catalog.js';
import { TOOL_META_KEY, compactListed } from '../../src/gateway/catalog-entry.js';

const untrusted = { trust: 'untrusted' as const };

describe('compactListed', () => {
  it("leaves out hintgate's per-tool description when it holds only what hintgate inferred", () => {
    const catalog = new Catalog();
    catalog.setServer(
      'crm',
      [{ name: 'get_user', description: 'Gets a user.', inputSchema: { type: 'object' } }],
      untrusted,
    );
    const listed = catalog.listedTools()[0] ?? {};
    expect(listed['_meta']).toMatchObject({ [TOOL_META_KEY]: { server: 'crm', sources: {} } });
    const compact = compactListed(listed);
    expect(compact['_meta']).toBeUndefined();
    // The effective annotations stay: they are what clients act on.
    expect(compact['annotations']).toEqual(listed['annotations']);
    expect(compact['name']).toBe('crm_get_user');
    // One compact object per listed object, and the listed one is left as it was.
    expect(compactListed(listed)).toBe(compact);
    expect(listed['_meta']).toHaveProperty(TOOL_META_KEY);
  });

  it("keeps the server's own _meta, extension values someone set, and conflicts", () => {
    const catalog = new Catalog();
    catalog.setServer(
      'repo',
      [
        {
          name: 'delete_repo',
          description: 'Deletes a repository.',
          inputSchema: { type: 'object' },
          annotations: { readOnlyHint: true, costHint: 'high' },
          _meta: { 'vendor/x': 1 },
        },
      ],
      { trust: 'untrusted', defaultAnnotations: { tags: ['team'] } },
    );
    const compact = compactListed(catalog.listedTools()[0] ?? {});
    const meta = compact['_meta'] as Record<string, Record<string, unknown>>;
    expect(meta['vendor/x']).toBe(1);
    expect(meta[TOOL_META_KEY]).toEqual({
      extensions: { costHint: 'high', tags: ['team'] },
      conflicts: [expect.objectContaining({ field: 'readOnlyHint' })],
    });
  });
});
