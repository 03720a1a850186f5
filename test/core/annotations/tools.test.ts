import { describe, expect, it } from 'vitest';
import {
  createAnnotatedTool,
  filterToolsByAnnotations,
} from '../../../src/core/annotations/tools.js';

describe('createAnnotatedTool', () => {
  it('layers inferred, server defaults, declared and manual values, highest last', () => {
    const tool = createAnnotatedTool(
      {
        name: 'deleteUser',
        description: 'Delete a user account permanently',
        annotations: { title: 'Remove user' },
      },
      { serverDefaults: { openWorldHint: false, tags: ['users'] }, manual: { tags: ['admin'] } },
    );
    expect(tool.annotations.destructiveHint).toBe(true);
    expect(tool.effective.provenance['destructiveHint']?.source).toBe('inferred');
    expect(tool.annotations.openWorldHint).toBe(false);
    expect(tool.annotations.title).toBe('Remove user');
    expect(tool.annotations.tags).toEqual(['users', 'admin']);
    expect(tool.effective.provenance['tags']?.source).toBe('override');
  });

  it('does not modify the tool it is given', () => {
    const input = { name: 'list_files', annotations: { title: 'List' } };
    createAnnotatedTool(input);
    expect(input).toEqual({ name: 'list_files', annotations: { title: 'List' } });
  });
});

describe('filterToolsByAnnotations', () => {
  const tools = [
    { name: 'a', annotations: { readOnlyHint: true, tags: ['data', 'query'] } },
    { name: 'b', annotations: { destructiveHint: false, tags: ['data'] } },
    { name: 'c', annotations: {} },
    { name: 'd' },
  ];
  const names = (filter: Parameters<typeof filterToolsByAnnotations>[1]) =>
    filterToolsByAnnotations(tools, filter).map((t) => t.name);

  it('selects by effective hints, treating missing annotations as the MCP defaults', () => {
    expect(names({ readOnly: true })).toEqual(['a']);
    expect(names({ destructive: true })).toEqual(['c', 'd']);
    expect(names({ safetyLevel: ['safe', 'moderate'] })).toEqual(['a', 'b']);
  });

  it('selects by tags, all or any', () => {
    expect(names({ tags: ['data', 'query'] })).toEqual(['a']);
    expect(names({ anyTags: ['query', 'data'] })).toEqual(['a', 'b']);
  });
});
