#!/usr/bin/env node
// Record a real MCP server's `tools/list` result as a test fixture.
//
//   node scripts/record-tools.mjs --out test/fixtures/servers/NAME.tools.json \
//     --package name@version [--notes TEXT] [--env KEY=VALUE]... [--isolate] \
//     [--cwd DIR] [--timeout SECONDS] -- COMMAND [ARGS...]
//
// The server is started as a child process over stdio with the MCP SDK's client, every
// page of tools/list is read (following nextCursor), and the tools are written exactly as
// the server sent them, under a `source` block saying where they came from. `--isolate`
// runs the server in a new network namespace (`unshare -n`, Linux, root) so it can reach
// no network at all: a server that needs the internet to list its tools fails to record.
import { writeFile } from 'node:fs/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

function usage(message) {
  console.error(`record-tools: ${message}`);
  console.error(
    'usage: record-tools.mjs --out FILE --package NAME@VERSION [--notes TEXT] [--env K=V]... [--isolate] [--cwd DIR] [--timeout S] -- COMMAND [ARGS...]',
  );
  process.exit(2);
}

function parseArgs(argv) {
  const options = { env: {}, isolate: false, timeout: 60, notes: '', cwd: undefined };
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') break;
    const value = () => {
      if (i + 1 >= argv.length) usage(`${arg} needs a value`);
      return argv[++i];
    };
    if (arg === '--out') options.out = value();
    else if (arg === '--package') options.package = value();
    else if (arg === '--notes') options.notes = value();
    else if (arg === '--cwd') options.cwd = value();
    else if (arg === '--timeout') options.timeout = Number(value());
    else if (arg === '--isolate') options.isolate = true;
    else if (arg === '--env') {
      const pair = value();
      const eq = pair.indexOf('=');
      if (eq <= 0) usage(`--env expects KEY=VALUE, got ${pair}`);
      options.env[pair.slice(0, eq)] = pair.slice(eq + 1);
    } else usage(`unknown argument ${arg}`);
  }
  options.command = argv.slice(i + 1);
  if (!options.out) usage('--out is required');
  if (!options.package) usage('--package is required');
  if (options.command.length === 0) usage('a command after -- is required');
  return options;
}

function withTimeout(promise, seconds, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} timed out after ${seconds}s`)),
      seconds * 1000,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function listAllTools(client) {
  const tools = [];
  let cursor;
  for (let page = 0; page < 1000; page++) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) return tools;
  }
  throw new Error('tools/list returned more than 1000 pages');
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const argv = options.isolate ? ['unshare', '-n', ...options.command] : options.command;
  const [command, ...args] = argv;
  const transport = new StdioClientTransport({
    command,
    args,
    env: { ...process.env, ...options.env },
    cwd: options.cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const client = new Client({ name: 'hintgate-record-tools', version: '0.1.0' });
  try {
    await withTimeout(client.connect(transport), options.timeout, 'initialize');
    const tools = await withTimeout(listAllTools(client), options.timeout, 'tools/list');
    const server = client.getServerVersion();
    const fixture = {
      source: {
        package: options.package,
        recorded: new Date().toISOString().slice(0, 10),
        command: options.command.join(' '),
        server: server ? `${server.name}@${server.version}` : undefined,
        notes: options.notes,
      },
      tools,
    };
    await writeFile(options.out, `${JSON.stringify(fixture, null, 2)}\n`);
    const declared = tools.filter(
      (tool) =>
        typeof tool.annotations?.readOnlyHint === 'boolean' ||
        typeof tool.annotations?.destructiveHint === 'boolean',
    ).length;
    console.log(
      `${options.package}: ${tools.length} tools, ${declared} with readOnly/destructive hints -> ${options.out}`,
    );
  } catch (error) {
    console.error(
      `record-tools: ${options.package}: ${error instanceof Error ? error.message : String(error)}`,
    );
    if (stderr) console.error(stderr.split('\n').slice(-20).join('\n'));
    process.exitCode = 1;
  } finally {
    await client.close().catch(() => {});
  }
}

await main();
