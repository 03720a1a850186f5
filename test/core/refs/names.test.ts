import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  MAX_FLATTENED_NAME_LENGTH,
  flattenNames,
  flattenToolName,
  flattenToolNames,
  namespacedName,
  splitNamespacedName,
} from '../../../src/core/refs/names.js';
import { refId } from '../../../src/core/refs/ref-id.js';

describe('tool references', () => {
  it('namespaces a tool by its server and splits it back at the first dot', () => {
    expect(namespacedName('github', 'create_issue')).toBe('github.create_issue');
    expect(splitNamespacedName('fs.read.file')).toEqual({ server: 'fs', name: 'read.file' });
    expect(splitNamespacedName('nodot')).toBeUndefined();
  });

  it('keeps safe names as server_name', () => {
    expect(flattenToolName('github', 'create_issue')).toBe('github_create_issue');
  });

  it('sanitizes and bounds names, with a hashed suffix that keeps them distinct', () => {
    const a = flattenToolName('my server', 'read.file');
    const b = flattenToolName('my server', 'read/file');
    expect(a).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    const long = flattenToolName('s', 'x'.repeat(200));
    expect(long.length).toBe(MAX_FLATTENED_NAME_LENGTH);
    expect(long).not.toBe(flattenToolName('s', `${'x'.repeat(199)}y`));
  });

  it('resolves collisions deterministically whatever the order', () => {
    const tools = [
      { server: 'a_b', name: 'c' },
      { server: 'a', name: 'b_c' },
      { server: 'z', name: 'q' },
    ];
    const forward = flattenToolNames(tools);
    const backward = flattenToolNames([...tools].reverse());
    expect(forward).toEqual(backward);
    expect(forward.get('a.b_c')).toBe('a_b_c');
    expect(forward.get('a_b.c')).toMatch(/^a_b_c_[0-9a-f]{8}$/);
    expect(new Set(forward.values()).size).toBe(3);
  });

  it('names a tool under a custom prefix, or under its own name without one', () => {
    expect(flattenToolName('github', 'create_issue', 'gh')).toBe('gh_create_issue');
    expect(flattenToolName('github', 'create_issue', false)).toBe('create_issue');
    // MCP allows dots in tool names: a tool without a prefix keeps them.
    expect(flattenToolName('files', 'read.file', false)).toBe('read.file');
    // A name MCP does not allow is made safe as any other, and stays unique.
    expect(flattenToolName('files', 'read file', false)).toMatch(/^read_file_[0-9a-f]{8}$/);
  });

  it('reports names that two servers wanted, the first by namespaced name keeping it', () => {
    const prefixes: Record<string, string | false> = { a: false, b: false, c: 'a' };
    const { names, collisions } = flattenNames(
      [
        { server: 'b', name: 'search' },
        { server: 'a', name: 'search' },
        { server: 'c', name: 'x' },
        { server: 'a', name: 'a_x' },
        { server: 'z', name: 'q' },
      ],
      (server) => prefixes[server] ?? server,
    );
    expect(names.get('a.search')).toBe('search');
    expect(names.get('b.search')).toMatch(/^search_[0-9a-f]{8}$/);
    expect(names.get('a.a_x')).toBe('a_x');
    expect(names.get('c.x')).toMatch(/^a_x_[0-9a-f]{8}$/);
    expect(names.get('z.q')).toBe('z_q');
    expect(collisions).toEqual([
      { name: 'search', kept: 'a.search', renamed: 'b.search', renamedTo: names.get('b.search') },
      { name: 'a_x', kept: 'a.a_x', renamed: 'c.x', renamedTo: names.get('c.x') },
    ]);
  });

  it('derives a stable refId from server, name and canonical schema', () => {
    const one = refId('gh', 'create', { type: 'object', properties: { a: {}, b: {} } });
    const same = refId('gh', 'create', { properties: { b: {}, a: {} }, type: 'object' });
    expect(one).toMatch(/^[0-9a-f]{16}$/);
    expect(same).toBe(one);
    expect(refId('gh', 'create', { type: 'object' })).not.toBe(one);
    expect(refId('gl', 'create', { type: 'object', properties: { a: {}, b: {} } })).not.toBe(one);
    // The gateway's faster hash (Node's) gives the same id.
    const node = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(refId('gh', 'create', { properties: { b: {}, a: {} }, type: 'object' }, node)).toBe(one);
  });
});
