import { describe, expect, it } from 'vitest';
import {
  MAX_FLATTENED_NAME_LENGTH,
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

  it('derives a stable refId from server, name and canonical schema', () => {
    const one = refId('gh', 'create', { type: 'object', properties: { a: {}, b: {} } });
    const same = refId('gh', 'create', { properties: { b: {}, a: {} }, type: 'object' });
    expect(one).toMatch(/^[0-9a-f]{16}$/);
    expect(same).toBe(one);
    expect(refId('gh', 'create', { type: 'object' })).not.toBe(one);
    expect(refId('gl', 'create', { type: 'object', properties: { a: {}, b: {} } })).not.toBe(one);
  });
});
