import { describe, expect, it } from 'vitest';
import type { NamePrefix } from '../../src/core/refs/names.js';
import { Catalog } from '../../src/gateway/catalog.js';
import { Directory } from '../../src/gateway/directory.js';
import { nameIssues } from '../../src/gateway/name-check.js';

const untrusted = { trust: 'untrusted' as const };
const tool = (name: string) => ({ name, inputSchema: { type: 'object' } });
const prompts = (...names: string[]) => ({
  prompts: names.map((name) => ({ name })),
  resources: [],
  resourceTemplates: [],
});

function parts(prefixes: Record<string, NamePrefix>) {
  const prefixOf = (server: string): NamePrefix => prefixes[server] ?? server;
  return { prefixOf, catalog: new Catalog({ prefixOf }), directory: new Directory({ prefixOf }) };
}

describe('nameIssues', () => {
  it('names both servers, the name, and the prefix key of the server that set it', () => {
    const { prefixOf, catalog, directory } = parts({ plain: false });
    catalog.setServer('plain', [tool('other_search')], untrusted);
    catalog.setServer('other', [tool('search')], untrusted);
    expect(nameIssues({ catalog, directory, prefixOf, metaTools: [] })).toEqual([
      {
        path: 'mcpServers.plain.prefix',
        message:
          'tool "other_search" of server "plain" and tool "search" of server "other" would both be served as "other_search"; give one of the two servers a prefix (prefix: true, or a prefix of its own)',
      },
    ]);
  });

  it("finds prompts that meet, and tools named like the gateway's own tools", () => {
    const { prefixOf, catalog, directory } = parts({ a: false, b: 'a' });
    directory.setServer('a', prompts('a_greet'));
    directory.setServer('b', prompts('greet'));
    catalog.setServer('a', [tool('equip-toolset')], untrusted);
    const issues = nameIssues({ catalog, directory, prefixOf, metaTools: ['equip-toolset'] });
    expect(issues.map((issue) => issue.path)).toEqual([
      'mcpServers.b.prefix',
      'mcpServers.a.prefix',
    ]);
    expect(issues[0]?.message).toContain(
      'prompt "greet" of server "b" and prompt "a_greet" of server "a"',
    );
    expect(issues[1]?.message).toContain('"equip-toolset"');
    // Meta tools hidden (configuration mode "never"): nothing to meet.
    expect(nameIssues({ catalog, directory, prefixOf, metaTools: [] })).toHaveLength(1);
  });

  it('leaves default prefixes alone: their rare meeting is given a suffixed name, as before', () => {
    const { prefixOf, catalog, directory } = parts({});
    catalog.setServer('a', [tool('b_c')], untrusted);
    catalog.setServer('a_b', [tool('c')], untrusted);
    expect(catalog.collisions()).toHaveLength(1);
    expect(nameIssues({ catalog, directory, prefixOf, metaTools: [] })).toEqual([]);
  });
});
