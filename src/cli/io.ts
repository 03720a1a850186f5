import { readFile } from 'node:fs/promises';

/** Reads a whole file, or standard input when the path is `-` or absent. */
export async function readInput(path: string | undefined): Promise<string> {
  if (path !== undefined && path !== '-') return readFile(path, 'utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Writes to standard output and resolves once it is flushed (large outputs into pipes). */
export function writeOut(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(text, (error) => (error ? reject(error) : resolve()));
  });
}
