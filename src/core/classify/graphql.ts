/**
 * Reading a GraphQL document sent over HTTP: queries and subscriptions only read; each
 * top-level field of a mutation is classified by its verb (`deleteRepository`,
 * `addStar`), the worst winning; a mutation field without a known verb is conservative.
 */
import { actionEffect } from './action.js';
import type { Finding } from './hints.js';
import { CONSERVATIVE, READ, excerpt, finding } from './hints.js';

interface Token {
  readonly kind: 'name' | 'punct';
  readonly text: string;
}

function isNameStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}

function isNamePart(c: number): boolean {
  return isNameStart(c) || (c >= 48 && c <= 57);
}

/** Names and punctuation; comments, strings, numbers and commas are dropped. */
function lexGraphql(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src.charCodeAt(i);
    if (c === 35) {
      const end = src.indexOf('\n', i);
      i = end < 0 ? src.length : end;
    } else if (c === 34) {
      const block = src.startsWith('"""', i);
      const close = block ? src.indexOf('"""', i + 3) : -1;
      if (block) i = close < 0 ? src.length : close + 3;
      else {
        i++;
        while (i < src.length && src.charCodeAt(i) !== 34) i += src.charCodeAt(i) === 92 ? 2 : 1;
        i++;
      }
    } else if (isNameStart(c)) {
      const start = i;
      while (i < src.length && isNamePart(src.charCodeAt(i))) i++;
      tokens.push({ kind: 'name', text: src.slice(start, i) });
    } else if ('{}()[]:'.includes(src[i] as string)) {
      tokens.push({ kind: 'punct', text: src[i] as string });
      i++;
    } else if (src.startsWith('...', i)) {
      tokens.push({ kind: 'punct', text: '...' });
      i += 3;
    } else {
      i++;
    }
  }
  return tokens;
}

/** The index after the group opened at `open` (`{`/`(`), nested groups included. */
function skipGroup(tokens: readonly Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    const text = (tokens[i] as Token).text;
    if (text === '{' || text === '(' || text === '[') depth++;
    else if ((text === '}' || text === ')' || text === ']') && --depth === 0) return i + 1;
  }
  return tokens.length;
}

/** The top-level field names of the selection set opened at `open`. */
function topFields(tokens: readonly Token[], open: number): { fields: string[]; next: number } {
  const fields: string[] = [];
  let i = open + 1;
  while (i < tokens.length && tokens[i]?.text !== '}') {
    const token = tokens[i] as Token;
    if (token.text === '...') {
      // A fragment spread or inline fragment: its fields are not read; be careful.
      fields.push('...');
      i++;
      while (i < tokens.length && tokens[i]?.kind === 'name') i++;
      if (tokens[i]?.text === '{') i = skipGroup(tokens, i);
    } else if (token.text === '(' || token.text === '{' || token.text === '[') {
      i = skipGroup(tokens, i);
    } else if (token.kind === 'name') {
      const aliased = tokens[i + 1]?.text === ':' && tokens[i + 2]?.kind === 'name';
      fields.push(aliased ? (tokens[i + 2] as Token).text : token.text);
      i += aliased ? 3 : 1;
    } else {
      i++;
    }
  }
  return { fields, next: i + 1 };
}

function mutationFindings(fields: readonly string[], label: string): Finding[] {
  if (fields.length === 0) {
    return [
      finding(
        CONSERVATIVE,
        'mutation',
        'graphql-mutation',
        `${label} is a mutation hintgate cannot read`,
      ),
    ];
  }
  return fields.map((field) => {
    const found = field === '...' ? undefined : actionEffect(field);
    return found === undefined
      ? finding(
          CONSERVATIVE,
          field,
          'graphql-mutation',
          `${label} runs the mutation \`${field}\`, whose verb hintgate does not know`,
        )
      : finding(
          found.hints,
          field,
          'graphql-mutation',
          `${label} runs the mutation \`${field}\`: \`${found.verb}\` ${found.phrase}`,
        );
  });
}

/**
 * The findings of a GraphQL document: one per operation (mutations one per top-level
 * field). An empty or unreadable document gives no findings.
 */
export function graphqlFindings(document: string, label: string): Finding[] {
  const tokens = lexGraphql(document);
  const findings: Finding[] = [];
  const where = `${label} (GraphQL \`${excerpt(document, 40)}\`)`;
  let i = 0;
  while (i < tokens.length) {
    const token = tokens[i] as Token;
    if (token.text === '{') {
      findings.push(finding(READ, 'query', 'graphql-query', `${where} is a query: it only reads`));
      i = skipGroup(tokens, i);
      continue;
    }
    if (token.kind !== 'name') {
      i++;
      continue;
    }
    let open = i + 1;
    while (open < tokens.length && tokens[open]?.text !== '{') {
      open = tokens[open]?.text === '(' ? skipGroup(tokens, open) : open + 1;
    }
    if (token.text === 'mutation') {
      const { fields, next } = topFields(tokens, open);
      findings.push(...mutationFindings(fields, where));
      i = next;
      continue;
    }
    if (token.text === 'query' || token.text === 'subscription') {
      findings.push(
        finding(
          READ,
          token.text,
          `graphql-${token.text}`,
          `${where} is a ${token.text}: it only reads`,
        ),
      );
    } else if (token.text !== 'fragment') {
      findings.push(
        finding(
          CONSERVATIVE,
          token.text,
          'graphql-unknown',
          `${where} has a \`${token.text}\` definition hintgate cannot read`,
        ),
      );
    }
    i = skipGroup(tokens, open);
  }
  return findings;
}
