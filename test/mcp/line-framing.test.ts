import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineReader, LineWriter } from '../../src/mcp/line-framing.js';

function read(chunks: readonly (string | Buffer)[], reader = new LineReader()): string[] {
  const lines: string[] = [];
  for (const chunk of chunks)
    reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk, (line) => lines.push(line));
  return lines;
}

describe('LineReader', () => {
  it('splits lines inside and across chunks, dropping blank lines and a trailing CR', () => {
    expect(read(['{"a":1}\n{"b"', ':2}\r\n\n  \n{"c":', '3}', '\n'])).toEqual([
      '{"a":1}',
      '{"b":2}',
      '{"c":3}',
    ]);
  });

  it('keeps a multi-byte character split between chunks', () => {
    const bytes = Buffer.from('{"t":"héllo ☃"}\n');
    const cut = bytes.indexOf(0xe2) + 1;
    expect(read([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(['{"t":"héllo ☃"}']);
  });

  it('reports a line longer than the limit and recovers', () => {
    const reader = new LineReader(8);
    const lines: string[] = [];
    expect(reader.push(Buffer.from('0123456789'), (line) => lines.push(line))).toBe(false);
    expect(reader.push(Buffer.from('ok\n'), (line) => lines.push(line))).toBe(true);
    expect(lines).toEqual(['ok']);
  });
});

describe('LineWriter', () => {
  it('coalesces the lines of one turn of the event loop into one write, in order', async () => {
    const stream = new PassThrough();
    const writes: string[] = [];
    const original = stream.write.bind(stream);
    stream.write = ((chunk: string) => {
      writes.push(chunk);
      return original(chunk);
    }) as typeof stream.write;
    const writer = new LineWriter(stream);
    writer.write('a');
    writer.write('b');
    await Promise.resolve();
    writer.write('c');
    await new Promise((resolve) => setImmediate(resolve));
    writer.write('d');
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['a\nb\nc\n', 'd\n']);
  });

  it('writes nothing after close', async () => {
    const stream = new PassThrough();
    const writer = new LineWriter(stream);
    writer.write('last');
    writer.close();
    writer.write('ignored');
    await new Promise((resolve) => setImmediate(resolve));
    expect(stream.read()?.toString()).toBe('last\n');
  });
});
