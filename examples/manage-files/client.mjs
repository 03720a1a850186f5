#!/usr/bin/env node
// A client for the manage_files server: it starts the server on a directory, preflights each
// action (which annotations apply to this very call?), then makes the calls through
// callToolSafely, whose confirm callback prints why it asks and answers as told.
//
//   node examples/manage-files/client.mjs [--accept] [--legacy] <directory>
//
// --accept   approve destructive calls (by default they are declined)
// --legacy   speak the 2025-11-25 protocol (by default: 2026-07-28 when the server offers it)
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { callToolSafely, preflight, toolResolutionCapabilities } from 'hintgate/mcp';

const flags = new Set(process.argv.slice(2).filter((arg) => arg.startsWith('--')));
const [directory] = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
if (directory === undefined) {
  process.stderr.write('usage: node client.mjs [--accept] [--legacy] <directory>\n');
  process.exit(2);
}
const accept = flags.has('--accept');

const client = new Client(
  { name: 'manage-files-client', version: '1.0.0' },
  {
    // Declaring the extension lets the server answer tools/resolve.
    capabilities: toolResolutionCapabilities(),
    versionNegotiation: { mode: flags.has('--legacy') ? 'legacy' : 'auto' },
  },
);
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [fileURLToPath(new URL('./server.mjs', import.meta.url)), directory],
    stderr: 'inherit',
  }),
);
console.log(`connected: protocol ${client.getNegotiatedProtocolVersion()}`);

const hints = (a) =>
  `readOnly=${a.readOnlyHint} destructive=${a.destructiveHint} idempotent=${a.idempotentHint} openWorld=${a.openWorldHint}`;

const file = 'notes.txt';
for (const action of ['read', 'append', 'replace', 'delete']) {
  const check = await preflight(client, 'manage_files', { path: file, action });
  console.log(
    `preflight ${action}: ${hints(check.annotations)} (${check.source}${check.method ? ` via ${check.method}` : ''})`,
  );
}

const confirm = ({ reason }) => {
  console.log(`confirm? ${reason} -> ${accept ? 'yes' : 'no'}`);
  return accept;
};

const steps = [
  { path: file, action: 'append', content: 'first line\n' },
  { path: file, action: 'read' },
  { path: file, action: 'replace', content: 'replaced\n' },
  { path: file, action: 'delete' },
  { path: file, action: 'read' },
];
for (const args of steps) {
  const outcome = await callToolSafely(client, 'manage_files', args, { confirm });
  if (outcome.kind === 'refused') {
    console.log(`${args.action}: refused (${outcome.message})`);
    continue;
  }
  const text = outcome.result.content?.map((block) => block.text).join('') ?? '';
  const status = outcome.result.isError === true ? 'error' : 'ok';
  console.log(
    `${args.action}: ${status}${outcome.confirmed ? ' (confirmed)' : ''}: ${JSON.stringify(text)}`,
  );
}

await client.close();
