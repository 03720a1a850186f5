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
  it('coalesces the lines of one callback and its promise continuations into one write, in order', async () => {
    const stream = new PassThrough();
    const writes: string[] = [];
    const original = stream.write.bind(stream);
    stream.write = ((chunk: string) => {
      writes.push(chunk);
      return original(chunk);
    }) as typeof stream.write;
    const writer = new LineWriter(stream);
    // As a chunk of answers read from a server: each settles the promise of its call, and
    // the answers to the client are written as those calls' continuations run.
    const callback = () => {
      for (const line of ['a', 'b', 'c']) {
        void Promise.resolve(line)
          .then((settled) => settled)
          .then((answer) => writer.write(answer));
      }
      void Promise.resolve().then(() => writer.write('d'));
    };
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        callback();
        resolve();
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['d\na\nb\nc\n']);
    // The next callback's line is a write of its own, made before anything else runs (the
    // callback's own promise continuations included): not on a later turn of the loop.
    let flushedBeforeIo = false;
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        writer.write('e');
        void Promise.resolve().then(() => {
          flushedBeforeIo = writes.length === 2;
          resolve();
        });
      }),
    );
    expect(flushedBeforeIo).toBe(true);
    expect(writes).toEqual(['d\na\nb\nc\n', 'e\n']);
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
