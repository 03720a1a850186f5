import { access, readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { stringify } from 'yaml';
import { parseConfig } from '../config/load.js';
import { HintgateError } from '../core/errors.js';
import type { ClientConfigPlace } from './client-configs.js';
import { clientConfigPlaces } from './client-configs.js';
import { say } from './store-commands.js';

/** Options of `hintgate init`. */
export interface InitOptions {
  /** The file to write (default `hintgate.config.yaml` in the working directory). */
  readonly output?: string;
  /** A client config file to start from, instead of looking for one. */
  readonly from?: string;
  /** Consent given up front: import the servers of the client config found. */
  readonly yes?: boolean;
  /** False with --no-import: never import, write the starter config. */
  readonly import: boolean;
  /** Overwrite an existing file. */
  readonly force?: boolean;
}

/** The keys of a server entry that carry over from a client's file. */
const CARRIED = ['command', 'args', 'env', 'cwd', 'url', 'headers', 'type'] as const;

const HEADER = `# hintgate config (https://www.npmjs.com/package/hintgate). Run it with:
#   npx hintgate serve              # stdio: point Claude Desktop or Cursor at this command
#   npx hintgate serve --http 127.0.0.1:8787 --no-auth    # streamable HTTP at /mcp
#   npx hintgate tools              # the catalog with every tool's annotations
# Servers run in this file's directory; \${HINTGATE_DATA_DIR} is the data directory.
`;

const POLICY = `
# What happens to calls: destructive ones are confirmed (asked of the client, else held in
# the approval queue: \`npx hintgate approvals list\`); read-only results are cached.
policy:
  confirm: destructive
`;

const STARTER_SERVERS = {
  memory: {
    command: 'npx',
    args: ['-y', '@modelcontextprotocol/server-memory'],
    env: { MEMORY_FILE_PATH: '${HINTGATE_DATA_DIR}/memory.jsonl' },
  },
};

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** The servers of a client's config file, with only the keys hintgate's config needs. */
async function serversOf(place: ClientConfigPlace): Promise<Record<string, unknown>> {
  const text = await readFile(place.path, 'utf8');
  // Read as hintgate reads it, so a file that would not load is refused here, by its path.
  const { config } = parseConfig(text, place.path, { env: process.env });
  const raw = JSON.parse(text) as Record<string, Record<string, Record<string, unknown>>>;
  const block = raw['mcpServers'] ?? raw['servers'] ?? {};
  const servers: Record<string, unknown> = {};
  for (const name of Object.keys(config.mcpServers)) {
    const entry = block[name] ?? {};
    if (entry['disabled'] === true) continue;
    servers[name] = Object.fromEntries(
      CARRIED.filter((key) => entry[key] !== undefined).map((key) => [key, entry[key]]),
    );
  }
  return servers;
}

async function ask(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await rl.question(`${question} [Y/n] `)).trim().toLowerCase();
    return answer === '' || answer === 'y' || answer === 'yes';
  } finally {
    rl.close();
  }
}

/**
 * `hintgate init`: writes a starter config. When an MCP client's config file is found
 * (or given with --from) and the user agrees (asked on a terminal; `--yes` agrees up
 * front), its servers are imported; otherwise the config runs the published memory server.
 */
export async function runInit(options: InitOptions): Promise<void> {
  const output = resolve(options.output ?? 'hintgate.config.yaml');
  if (!options.force && (await exists(output))) {
    throw new HintgateError(
      'INPUT_INVALID',
      `${output} already exists; pass --force to overwrite it, or -o <file> to write another`,
    );
  }
  let source: ClientConfigPlace | undefined;
  if (options.from !== undefined) {
    source = { client: 'the given file', path: resolve(options.from) };
    if (!(await exists(source.path)))
      throw new HintgateError('INPUT_INVALID', `--from ${source.path}: no such file`);
  } else if (options.import) {
    for (const place of clientConfigPlaces(process.env, process.cwd())) {
      if (await exists(place.path)) {
        source = place;
        break;
      }
    }
  }
  let servers: Record<string, unknown> = STARTER_SERVERS;
  let from = 'a starter config running @modelcontextprotocol/server-memory';
  if (source !== undefined && options.import) {
    const found = await serversOf(source);
    const count = Object.keys(found).length;
    const question = `Found ${count} server(s) in ${source.client}'s config (${source.path}). Import them?`;
    const consent =
      options.yes === true || options.from !== undefined
        ? true
        : process.stdin.isTTY
          ? await ask(question)
          : false;
    if (consent && count > 0) {
      servers = found;
      from = `${count} server(s) from ${source.path}`;
    } else if (!consent) {
      say(
        `${question.replace(' Import them?', '')} Not imported: run \`npx hintgate init --yes --force\` to replace the starter config written now with them.`,
      );
    }
  }
  const body = stringify({ mcpServers: servers }, { lineWidth: 0 });
  await writeFile(output, `${HEADER}\n${body}${POLICY}`, { flag: options.force ? 'w' : 'wx' });
  say(`wrote ${output} (${from}); next: npx hintgate serve`);
}
