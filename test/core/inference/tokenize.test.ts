import { describe, expect, it } from 'vitest';
import {
  TOKEN_CODE,
  TOKEN_LISTED,
  hashWord,
  scanWords,
  spanEquals,
  splitNameParts,
  tokenizeName,
  tokenizeText,
} from '../../../src/core/inference/tokenize.js';

describe('splitNameParts', () => {
  it.each([
    ['getHTTPResponse', ['get', 'HTTP', 'Response']],
    ['XMLHttpRequest', ['XML', 'Http', 'Request']],
    ['HTMLToPDF', ['HTML', 'To', 'PDF']],
    ['GetUserByID', ['Get', 'User', 'By', 'ID']],
    ['delete_user_account', ['delete', 'user', 'account']],
    ['API-post-search', ['API', 'post', 'search']],
    ['repo.delete', ['repo', 'delete']],
    ['fetchV2Data', ['fetch', 'V', '2', 'Data']],
    ['café_menu', ['café', 'menu']],
  ])('splits %s keeping case', (name, parts) => {
    expect(splitNameParts(name)).toEqual(parts);
  });
});

describe('tokenizeName', () => {
  it.each([
    ['getHTTPResponse', ['get', 'http', 'response']],
    ['getAndDelete', ['get', 'and', 'delete']],
    ['resetPagination', ['reset', 'pagination']],
    ['ListDeletedItems', ['list', 'deleted', 'items']],
    ['delete_user_account', ['delete', 'user', 'account']],
    ['search-and-replace', ['search', 'and', 'replace']],
    ['repo.delete', ['repo', 'delete']],
    ['mcp__github__get_me', ['mcp', 'github', 'get', 'me']],
    ['s3_list_buckets', ['s', '3', 'list', 'buckets']],
    ['v2Api', ['v', '2', 'api']],
    ['kubectl get/pods', ['kubectl', 'get', 'pods']],
    ['SQLQuery2CSV', ['sql', 'query', '2', 'csv']],
    ['already', ['already']],
    ['', []],
    ['__--..', []],
  ])('splits %s into %j', (name, words) => {
    expect(tokenizeName(name)).toEqual(words);
  });
});

describe('tokenizeText', () => {
  it('lower-cases words and keeps their order as positions', () => {
    const { words } = tokenizeText('Lists Files in a Directory');
    expect(words).toEqual(['lists', 'files', 'in', 'a', 'directory']);
  });

  it.each([
    ['First. Second', [0, 1]],
    ['First! Second', [0, 1]],
    ['First? Second', [0, 1]],
    ['First; second', [0, 1]],
    ['First\nsecond', [0, 1]],
    ['version 1.2 here', [0, 0, 0]],
    ['ends with a stop.', [0, 0, 0, 0]],
  ])('numbers the clauses of %j', (text, clauses) => {
    expect(tokenizeText(text).clauses).toEqual(clauses);
  });

  it.each([
    ['read-only', ['read', 'only']],
    ['non-destructive', ['non', 'destructive']],
    ["doesn't change", ["doesn't", 'change']],
    ['doesn\u2019t change', ["doesn't", 'change']],
    ['the user’s files', ["user's", 'files']],
    ['call delete_file first', ['call', 'delete_file', 'first']],
    ['see repo.delete.', ['see', 'repo.delete']],
  ])('splits %j into %j', (text, words) => {
    expect(tokenizeText(text).words.filter((word) => word !== 'the')).toEqual(words);
  });

  it.each([
    ['call delete_file first', 'delete_file'],
    ['see repo.delete now', 'repo.delete'],
    ['use `delete` carefully', 'delete'],
    ['then getUser runs', 'getuser'],
  ])('marks identifiers as code in %j', (text, word) => {
    const tokens = tokenizeText(text);
    tokens.words.forEach((each, i) => {
      const code = ((tokens.flags[i] ?? 0) & TOKEN_CODE) !== 0;
      expect(code, each).toBe(each === word);
    });
  });

  it('marks words that follow a list separator', () => {
    const tokens = tokenizeText('List, search, and fetch; add/update/delete it');
    const listed = tokens.words.filter((_, i) => ((tokens.flags[i] ?? 0) & TOKEN_LISTED) !== 0);
    expect(listed).toEqual(['search', 'and', 'update', 'delete']);
  });

  it('closes backticks at the end of a line', () => {
    const tokens = tokenizeText('an `open\ndelete it');
    expect(tokens.words).toEqual(['an', 'open', 'delete', 'it']);
    expect((tokens.flags[2] ?? 0) & TOKEN_CODE).toBe(0);
  });

  it('skips fenced examples whole', () => {
    const tokens = tokenizeText('Lists runs.\n```json\n{ "action": "delete" }\n```\nThen stops');
    expect(tokens.words).toEqual(['lists', 'runs', 'then', 'stops']);
    expect(tokens.clauses[2]).toBeGreaterThan(tokens.clauses[1] ?? 0);
  });

  it('returns nothing for an empty or word-less text', () => {
    expect(tokenizeText('').words).toEqual([]);
    expect(tokenizeText(' -- ... ').words).toEqual([]);
  });
});

describe('scanWords', () => {
  it('hashes each word as hashWord hashes it in lower case', () => {
    const text = 'Deletes the user\u2019s Old_Files, then GETs 42 more';
    const seen: Array<[string, number]> = [];
    scanWords(text, {
      word(start, end, hash) {
        seen.push([text.slice(start, end), hash]);
      },
    });
    expect(seen.map(([word]) => word)).toEqual([
      'Deletes',
      'the',
      'user\u2019s',
      'Old_Files',
      'then',
      'GETs',
      '42',
      'more',
    ]);
    for (const [word, hash] of seen) {
      const lower = word.toLowerCase().replaceAll('\u2019', "'");
      expect(hash).toBe(hashWord(lower));
    }
  });

  it('compares spans with words case-insensitively', () => {
    expect(spanEquals('a DELETE b', 2, 8, 'delete')).toBe(true);
    expect(spanEquals('a deleted b', 2, 9, 'delete')).toBe(false);
    expect(spanEquals('a delete b', 2, 8, 'remove')).toBe(false);
  });
});
