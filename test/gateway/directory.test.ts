import { describe, expect, it } from 'vitest';
import { Directory } from '../../src/gateway/directory.js';

const offerings = (
  prompts: object[] = [],
  resources: object[] = [],
  resourceTemplates: object[] = [],
) => ({
  prompts: prompts as never,
  resources: resources as never,
  resourceTemplates: resourceTemplates as never,
});

describe('Directory', () => {
  it('namespaces prompts like tools and routes them back', () => {
    const directory = new Directory();
    directory.setServer('a', offerings([{ name: 'greet', extra: 1 }]));
    directory.setServer('b', offerings([{ name: 'greet' }]));
    expect(directory.listPrompts().map((prompt) => prompt['name'])).toEqual(['a_greet', 'b_greet']);
    expect(directory.listPrompts()[0]).toMatchObject({
      extra: 1,
      _meta: { 'dev.hintgate/prompt': { server: 'a', name: 'greet' } },
    });
    expect(directory.prompt('b_greet')).toMatchObject({ server: 'b', name: 'greet' });
    expect(() => directory.prompt('greet')).toThrow('Unknown prompt: "greet"');
  });

  it('routes resources by URI, then by template, and keeps URIs as they are', () => {
    const directory = new Directory();
    directory.setServer(
      'files',
      offerings(
        [],
        [{ uri: 'file:///a.txt', name: 'a.txt' }],
        [{ uriTemplate: 'file:///{+path}', name: 'file' }],
      ),
    );
    directory.setServer(
      'db',
      offerings(
        [],
        [{ uri: 'db://tables', name: 'tables' }],
        [{ uriTemplate: 'db://tables/{name}', name: 'table' }],
      ),
    );
    expect(directory.listResources().map((resource) => resource['uri'])).toEqual([
      'db://tables',
      'file:///a.txt',
    ]);
    expect(directory.listResources()[0]?.['name']).toBe('db_tables');
    // "a.txt" holds a character clients reject in names: sanitized, with a hash keeping it unique.
    expect(directory.listResources()[1]?.['name']).toMatch(/^files_a_txt_[0-9a-f]{8}$/);
    expect(directory.serverForUri('file:///a.txt')).toBe('files');
    expect(directory.serverForUri('db://tables/users')).toBe('db');
    expect(directory.serverForUri('file:///deep/b.txt')).toBe('files');
    expect(directory.serverForTemplate('db://tables/{name}')).toBe('db');
    expect(() => directory.serverForUri('mail://inbox')).toThrow('no server offers "mail://inbox"');
  });

  it('leaves out the prompts, resources and templates of servers hidden from a principal', () => {
    const directory = new Directory();
    directory.setServer(
      'mine',
      offerings(
        [{ name: 'greet' }],
        [{ uri: 'mine://a', name: 'a' }],
        [{ uriTemplate: 'mine://{x}', name: 'x' }],
      ),
    );
    directory.setServer(
      'shared',
      offerings(
        [{ name: 'greet' }],
        [{ uri: 'shared://b', name: 'b' }],
        [{ uriTemplate: 'shared://{y}', name: 'y' }],
      ),
    );
    const names = (list: readonly Record<string, unknown>[]) => list.map((item) => item['name']);
    expect(names(directory.listPrompts(['mine']))).toEqual(['shared_greet']);
    expect(names(directory.listResources(['mine']))).toEqual(['shared_b']);
    expect(names(directory.listResourceTemplates(['mine']))).toEqual(['shared_y']);
    expect(names(directory.listPrompts())).toEqual(['mine_greet', 'shared_greet']);
    expect(names(directory.listResourceTemplates(['mine', 'shared']))).toEqual([]);
  });

  it('serves a server without a prefix under its own names, and one with its own prefix', () => {
    const prefixes: Record<string, string | false> = { plain: false, custom: 'c' };
    const directory = new Directory({ prefixOf: (server) => prefixes[server] ?? server });
    directory.setServer(
      'plain',
      offerings(
        [{ name: 'greet' }],
        [{ uri: 'test://a', name: 'a' }],
        [{ uriTemplate: 'test://t/{id}', name: 'template' }],
      ),
    );
    directory.setServer('custom', offerings([{ name: 'greet' }]));
    directory.setServer('other', offerings([{ name: 'hello' }]));
    expect(directory.listPrompts().map((prompt) => prompt['name'])).toEqual([
      'c_greet',
      'other_hello',
      'greet',
    ]);
    expect(directory.prompt('greet')).toMatchObject({ server: 'plain', name: 'greet' });
    expect(directory.prompt('c_greet')).toMatchObject({ server: 'custom', name: 'greet' });
    expect(directory.listResources()[0]?.['name']).toBe('a');
    expect(directory.listResourceTemplates()[0]?.['name']).toBe('template');
    expect(directory.collisions()).toEqual([]);
  });

  it('reports prompts of two servers that want one name', () => {
    const directory = new Directory({ prefixOf: () => false });
    directory.setServer('a', offerings([{ name: 'greet' }]));
    directory.setServer('b', offerings([{ name: 'greet' }]));
    expect(directory.collisions()).toMatchObject([
      { name: 'greet', kept: 'a.greet', renamed: 'b.greet' },
    ]);
    expect(directory.prompt('greet')).toMatchObject({ server: 'a' });
    directory.removeServer('b');
    expect(directory.collisions()).toEqual([]);
  });

  it('reports which lists changed', () => {
    const directory = new Directory();
    expect(directory.setServer('a', offerings([{ name: 'p' }]))).toEqual({
      prompts: true,
      resources: false,
    });
    expect(directory.setServer('a', offerings([{ name: 'p' }]))).toEqual({
      prompts: false,
      resources: false,
    });
    expect(
      directory.setServer('a', offerings([{ name: 'p' }], [{ uri: 'x://1', name: 'one' }])),
    ).toEqual({ prompts: false, resources: true });
    expect(directory.removeServer('a')).toEqual({ prompts: true, resources: true });
    expect(directory.listPrompts()).toEqual([]);
  });
});
