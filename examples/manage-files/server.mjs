#!/usr/bin/env node
// The Dynamic Tool Annotations proposal's `manage_files` example as a real MCP server over
// stdio, for clients of both protocol eras: one tool that reads, appends to, replaces or
// deletes a file under the directory given on the command line. Its static annotations are
// the worst case over the four actions; `tools/annotations` and `tools/resolve` answer each
// call's own annotations from the per-action table.
//
//   node examples/manage-files/server.mjs <directory>
import { mkdir, readFile, appendFile, writeFile, rm } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { worstCase } from 'hintgate';
import { addDynamicAnnotations } from 'hintgate/mcp';
import * as z from 'zod';

/** What each action does, as annotations: the proposal's table. */
const ACTION_ANNOTATIONS = {
  read: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  append: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  replace: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  delete: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
};

const root = process.argv[2];
if (root === undefined) {
  process.stderr.write('usage: node server.mjs <directory>\n');
  process.exit(2);
}
const ROOT = resolve(root);

const inputSchema = z.object({
  path: z.string().min(1).describe('File path, relative to the served directory'),
  action: z.enum(['read', 'append', 'replace', 'delete']).describe('Operation to perform'),
  content: z.string().optional().describe('Content for append and replace'),
});

/** The absolute path of `path` under the served directory, or an error for one outside it. */
function inside(path) {
  const full = resolve(ROOT, path);
  const rel = relative(ROOT, full);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw new Error(`${path} is not a file under the served directory`);
  }
  return full;
}

const text = (value) => ({ content: [{ type: 'text', text: value }] });

async function manageFiles({ path, action, content }) {
  const file = inside(path);
  switch (action) {
    case 'read':
      try {
        return text(await readFile(file, 'utf8'));
      } catch (error) {
        if (error.code === 'ENOENT') throw new Error(`${path} does not exist`);
        throw error;
      }
    case 'append':
    case 'replace':
      if (content === undefined) throw new Error(`${action} needs content`);
      await mkdir(dirname(file), { recursive: true });
      await (action === 'append' ? appendFile : writeFile)(file, content, 'utf8');
      return text(`${action === 'append' ? 'appended to' : 'replaced'} ${path}`);
    case 'delete':
      await rm(file, { force: true });
      return text(`deleted ${path}`);
  }
  throw new Error(`unknown action ${action}`);
}

function build() {
  const server = new McpServer({ name: 'manage-files', version: '1.0.0' });
  server.registerTool(
    'manage_files',
    {
      description: 'Read, append to, replace or delete a file in the served directory',
      inputSchema,
      // The most conservative over every action, so a client that never asks is safe.
      annotations: worstCase(Object.values(ACTION_ANNOTATIONS)),
    },
    manageFiles,
  );
  addDynamicAnnotations(server, {
    resolvers: {
      // Only the arguments decide: no file is looked at, so the answer never changes.
      manage_files: ({ action }) => ACTION_ANNOTATIONS[action],
    },
  });
  return server;
}

serveStdio(build, { onerror: (error) => process.stderr.write(`${error.message}\n`) });
