import { describe, expect, it } from 'vitest';
import { splitCommandLine } from '../../src/cli/command-line.js';

describe('splitCommandLine', () => {
  it.each([
    [
      'npx -y @modelcontextprotocol/server-everything',
      ['npx', '-y', '@modelcontextprotocol/server-everything'],
    ],
    ['  node   server.js  ', ['node', 'server.js']],
    [`node "my server.js" 'a b' c\\ d`, ['node', 'my server.js', 'a b', 'c d']],
    [`echo "say \\"hi\\"" '$HOME' ""`, ['echo', 'say "hi"', '$HOME', '']],
    ['', []],
  ])('splits %j', (line, words) => {
    expect(splitCommandLine(line)).toEqual(words);
  });

  it('names an unterminated quote', () => {
    expect(() => splitCommandLine("node 'oops")).toThrow(
      "unterminated ' quote in command: node 'oops",
    );
  });
});
