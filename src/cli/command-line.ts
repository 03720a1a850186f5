import { HintgateError } from '../core/errors.js';

/**
 * Splits a command line the way a POSIX shell splits words: whitespace separates, single
 * quotes keep everything literally, double quotes keep spaces (a backslash escapes `"`, `\`
 * and `$` inside them), a backslash outside quotes escapes the next character. No expansion
 * of variables or globs. An unterminated quote is an error naming the command.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let index = 0; index < line.length; index++) {
    const char = line[index] as string;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word += char;
      continue;
    }
    if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (
        char === '\\' &&
        index + 1 < line.length &&
        '"\\$`'.includes(line[index + 1] as string)
      )
        word += line[++index];
      else word += char;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
    } else if (char === '\\' && index + 1 < line.length) {
      word += line[++index];
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (quote !== undefined)
    throw new HintgateError('INPUT_INVALID', `unterminated ${quote} quote in command: ${line}`);
  if (inWord) words.push(word);
  return words;
}
