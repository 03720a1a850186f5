import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerConfig } from '../config/schema.js';
import { serverSchema } from '../config/schema.js';
import {
  detectConflicts,
  findDisagreements,
  type AnnotationNote,
} from '../core/annotations/conflicts.js';
import type { AnnotationConflict, ToolAnnotations, Trust } from '../core/annotations/types.js';
import { HINT_FIELDS } from '../core/annotations/types.js';
import type { Finding } from '../core/annotations/validate.js';
import { validateAnnotations } from '../core/annotations/validate.js';
import { HintgateError } from '../core/errors.js';
import type { TextFinding } from '../core/pins/index.js';
import { scanDefinition, toolDefinition } from '../core/pins/index.js';
import { inferAnnotations } from '../core/inference/infer.js';
import type { InferenceResult } from '../core/inference/types.js';
import { inferOpenApiAnnotations } from '../downstream/openapi/annotations.js';
import { serverLogFile } from '../downstream/connect.js';
import type { DownstreamOAuth } from '../downstream/downstream.js';
import { Downstream } from '../downstream/downstream.js';
import { usesOAuth } from '../downstream/oauth/provider.js';
import { Sealer } from '../downstream/oauth/seal.js';
import { CredentialVault } from '../downstream/oauth/vault.js';
import { DownstreamError } from '../mcp/rpc-errors.js';
import type { JsonObject } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';
import { splitCommandLine } from './command-line.js';
import { loadCliConfig } from './config-file.js';
import { secretKeyOf } from './secret-key.js';
import { withStore } from './store-access.js';
import { EXIT } from './exit.js';
import { writeOut } from './io.js';
import { formatJson } from './output.js';
import { VERSION } from './version.js';
import { replicaServerConfig } from '../gateway/replicas.js';
import type { ThroughHintgate } from './lint-through.js';
import { filledText, throughHintgate } from './lint-through.js';

/** Options of `hintgate lint`. */
export interface LintOptions {
  readonly stdio?: string;
  readonly url?: string;
  readonly config?: string;
  readonly server?: string;
  readonly json?: boolean;
  readonly timeout: string;
}

/** What lint found for one tool. */
export interface ToolLint {
  readonly name: string;
  readonly declared: ToolAnnotations | null;
  readonly inferred: ToolAnnotations;
  readonly reasons: Readonly<Record<string, string>>;
  /** Hints the server did not declare. */
  readonly missing: readonly string[];
  readonly errors: readonly Finding[];
  readonly warnings: readonly Finding[];
  readonly conflicts: readonly AnnotationConflict[];
  /** Disagreements on evidence too weak to overrule the declaration: for the author to check. */
  readonly notes: readonly AnnotationNote[];
  /** Text in the definition that speaks to the model (a poisoned description). */
  readonly suspicious: readonly TextFinding[];
  /**
   * For a tool listed by a hintgate gateway: the tool behind it and the values hintgate filled
   * in itself (with their source), which are not the downstream server's declarations.
   */
  readonly through?: ThroughHintgate;
}

/** Lints one server's tools and prints the findings; exit code 1 when there are errors or conflicts. */
export async function runLint(options: LintOptions): Promise<void> {
  const timeoutMs = Number(options.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new HintgateError(
      'INPUT_INVALID',
      `--timeout: expected a positive number of milliseconds, got "${options.timeout}"`,
    );
  }
  const target = await lintTarget(options, timeoutMs);
  const { login } = target;
  // The server's stored login is used (without one, the error names the login command).
  const { tools, gateway } =
    login === undefined
      ? await listTools(target, timeoutMs)
      : await withStore({ config: login.file }, (store) =>
          listTools(target, timeoutMs, {
            vault: new CredentialVault(
              store,
              login.secret === undefined ? undefined : Sealer.fromSecret(login.secret),
            ),
          }),
        );
  // An OpenAPI server's tools are inferred from their HTTP methods, as the catalog does.
  const infer = target.config.openapi === undefined ? undefined : inferOpenApiAnnotations;
  const results = tools.map((tool) => lintTool(tool, target.trust, infer));
  const errors = results.reduce((sum, result) => sum + result.errors.length, 0);
  const conflicts = results.reduce((sum, result) => sum + result.conflicts.length, 0);
  const suspicious = results.reduce((sum, result) => sum + result.suspicious.length, 0);
  if (options.json === true) {
    await writeOut(
      formatJson({ server: target.name, tools: results, summary: summaryOf(results) }),
    );
  } else {
    const none =
      gateway && !hasServerTools(tools)
        ? `\nthe gateway lists no tool of its servers: they are still starting or down (its log, <dataDir>/logs/gateway.log, says why); lint one with --config <file> --server <name>\n`
        : '';
    await writeOut(`${results.map(formatTool).join('\n')}\n${summaryLine(results)}\n${none}`);
  }
  if (errors > 0 || conflicts > 0 || suspicious > 0) process.exitCode = EXIT.findings;
}

interface LintTarget {
  readonly name: string;
  readonly config: ServerConfig;
  readonly trust: Trust;
  readonly logDir: string | undefined;
  /**
   * For an OAuth-protected server of a config: where its stored login is (the config's
   * store, opened only then) and the key that opens it.
   */
  readonly login?: { readonly file: string; readonly secret: string | undefined };
}

async function lintTarget(options: LintOptions, timeoutMs: number): Promise<LintTarget> {
  const given = [options.stdio, options.url, options.config].filter(
    (value) => value !== undefined,
  ).length;
  if (given !== 1)
    throw new HintgateError(
      'INPUT_INVALID',
      'give exactly one of --stdio "<command>", --url <url>, or --config <file> --server <name>',
    );
  const timeouts = {
    connectMs: timeoutMs,
    requestMs: timeoutMs,
    callMs: timeoutMs,
    probeMs: Math.min(2000, timeoutMs),
    closeGraceMs: 1000,
  };
  if (options.config !== undefined) {
    if (options.server === undefined)
      throw new HintgateError('INPUT_INVALID', '--config needs --server <name>');
    const loaded = await loadCliConfig(options.config);
    const server = loaded.config.mcpServers[options.server];
    if (server === undefined) {
      const known = Object.keys(loaded.config.mcpServers).join(', ') || 'none';
      throw new HintgateError(
        'INPUT_INVALID',
        `no server "${options.server}" in ${loaded.file} (servers: ${known})`,
      );
    }
    // A server with replicas is linted through its first one (they serve the same tools).
    const first = server.replicas[0];
    const config = first === undefined ? server : replicaServerConfig(server, first);
    return {
      name: options.server,
      config: { ...config, timeouts: { ...config.timeouts, ...timeouts } },
      trust: server.trust,
      logDir: join(loaded.dataDir, 'logs'),
      ...(usesOAuth(config) && config.auth !== 'per-user'
        ? { login: { file: loaded.file, secret: secretKeyOf(loaded.config) } }
        : {}),
    };
  }
  if (options.stdio !== undefined) {
    const [command, ...args] = splitCommandLine(options.stdio);
    if (command === undefined)
      throw new HintgateError('INPUT_INVALID', '--stdio: expected a command');
    return {
      name: 'server',
      config: serverSchema.parse({ command, args, timeouts }),
      trust: 'untrusted',
      logDir: undefined,
    };
  }
  const parsed = serverSchema.safeParse({ url: options.url, timeouts });
  if (!parsed.success)
    throw new HintgateError(
      'INPUT_INVALID',
      `--url: expected an http:// or https:// URL, got "${String(options.url)}"`,
    );
  return { name: 'server', config: parsed.data, trust: 'untrusted', logDir: undefined };
}

async function listTools(
  target: LintTarget,
  timeoutMs: number,
  oauth?: DownstreamOAuth,
): Promise<{ tools: readonly JsonObject[]; gateway: boolean }> {
  const temporary =
    target.logDir === undefined ? await mkdtemp(join(tmpdir(), 'hintgate-lint-')) : undefined;
  const logDir = temporary ?? target.logDir ?? tmpdir();
  let listChanged: () => void = () => undefined;
  const server = new Downstream({
    name: target.name,
    config: target.config,
    identity: { name: 'hintgate-lint', version: VERSION },
    logDir,
    reconnect: false,
    baseEnv: process.env,
    events: { listChanged: () => listChanged() },
    oauth,
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    // The connect timeout bounds everything; this is a last guard against a hang.
    const guard = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs * 2 + 5000);
    });
    await Promise.race([server.start(), guard]);
    const status = server.status;
    if (status.state !== 'up') {
      const reason =
        status.state === 'down' ? status.reason : `still ${status.state} after ${timeoutMs} ms`;
      const code = status.state === 'down' ? status.code : 'DOWNSTREAM_TIMEOUT';
      const log =
        target.config.command !== undefined && temporary === undefined
          ? ` (its stderr: ${serverLogFile(logDir, target.name)})`
          : '';
      throw new DownstreamError(
        code,
        target.name,
        `could not list the tools of ${describeTarget(target)}: ${reason}${log}`,
      );
    }
    // A gateway whose servers are still starting lists none of their tools yet: wait for its
    // list_changed until one appears, within the timeout.
    if (isGateway(server.snapshot.serverInfo)) {
      const deadline = Date.now() + timeoutMs;
      while (!hasServerTools(server.snapshot.tools) && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          const wait = setTimeout(resolve, deadline - Date.now());
          listChanged = () => {
            clearTimeout(wait);
            resolve();
          };
        });
      }
    }
    const gateway = isGateway(server.snapshot.serverInfo);
    return { tools: server.snapshot.tools, gateway };
  } finally {
    clearTimeout(timer);
    await server.close();
    if (temporary !== undefined) await rm(temporary, { recursive: true, force: true });
  }
}

/** True for a hintgate gateway's serverInfo. */
function isGateway(serverInfo: JsonObject | undefined): boolean {
  return serverInfo?.['name'] === 'hintgate';
}

/** True when a listing holds a tool of a downstream server (not only hintgate's own). */
function hasServerTools(tools: readonly JsonObject[]): boolean {
  return tools.some((tool) => throughHintgate(tool, undefined)?.report.own === false);
}

function describeTarget(target: LintTarget): string {
  const { command, args, url } = target.config;
  return command !== undefined ? `"${[command, ...args].join(' ')}"` : String(url);
}

/** Lints one listed tool. */
export function lintTool(
  tool: JsonObject,
  trust: Trust,
  infer?: (tool: JsonObject) => InferenceResult | undefined,
): ToolLint {
  const listedName = typeof tool['name'] === 'string' ? tool['name'] : '(unnamed)';
  const listed = isJsonObject(tool['annotations'])
    ? (tool['annotations'] as ToolAnnotations)
    : undefined;
  // Through a hintgate gateway the annotations are complete: only the fields whose source is
  // `declared` are the server's; inference reads the tool's own name, not the prefixed one.
  const through = throughHintgate(tool, listed);
  const name = through?.name ?? listedName;
  const declared = through === undefined ? listed : through.declared;
  const description = typeof tool['description'] === 'string' ? tool['description'] : undefined;
  const inference =
    infer?.(tool) ?? inferAnnotations({ name, description, inputSchema: tool['inputSchema'] });
  // hintgate's own meta tools are not a downstream server's: nothing to report about them.
  const own = through?.report.own === true;
  const { errors, warnings } = own ? NO_FINDINGS : validateAnnotations(declared ?? {});
  const reasons: Record<string, string> = {};
  for (const [field, reason] of Object.entries(inference.reasons))
    if (reason !== undefined) reasons[field] = reason.text;
  return {
    name: listedName,
    declared: declared ?? null,
    inferred: inference.annotations,
    reasons,
    // On a tool declared read-only, destructive and idempotent have no meaning: not missing.
    // Through hintgate every hint is there: those the server left out are in `through.filled`.
    missing: HINT_FIELDS.filter(
      (field) =>
        through === undefined &&
        typeof declared?.[field] !== 'boolean' &&
        !(
          declared?.readOnlyHint === true &&
          (field === 'destructiveHint' || field === 'idempotentHint')
        ),
    ),
    errors,
    warnings,
    conflicts: own ? [] : detectConflicts({ declared, inference, trust }),
    notes: own ? [] : findDisagreements({ declared, inference, trust }),
    suspicious: lintDefinition(tool),
    ...(through === undefined ? {} : { through: through.report }),
  };
}

const NO_FINDINGS = { errors: [], warnings: [] } as const;

function lintDefinition(tool: JsonObject): TextFinding[] {
  const definition = toolDefinition(tool);
  return definition === undefined ? [] : scanDefinition(definition);
}

function formatTool(result: ToolLint): string {
  const pairs = (annotations: ToolAnnotations | null): string =>
    annotations === null || Object.keys(annotations).length === 0
      ? '(none)'
      : Object.entries(annotations)
          .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
          .join(' ');
  const through = result.through;
  const lines =
    through === undefined
      ? [result.name, `  declared:  ${pairs(result.declared)}`]
      : through.own
        ? [`${result.name} (hintgate's own meta tool)`, `  declared:  ${pairs(result.declared)}`]
        : [
            `${result.name} (${through.namespacedName}, through hintgate)`,
            `  declared:  ${pairs(result.declared)} (by server "${through.server}")`,
            `  filled:    ${filledText(through)}`,
          ];
  lines.push(`  inferred:  ${pairs(result.inferred)}`);
  if (result.missing.length > 0) lines.push(`  missing:   ${result.missing.join(', ')}`);
  for (const error of result.errors) lines.push(`  error:     ${error.message}`);
  for (const warning of result.warnings) lines.push(`  warning:   ${warning.message}`);
  for (const conflict of result.conflicts) lines.push(`  conflict:  ${conflict.reason}`);
  for (const note of result.notes) lines.push(`  note:      ${note.reason}`);
  for (const finding of result.suspicious)
    lines.push(`  suspicious: ${finding.field}: ${finding.message}: ${finding.excerpt}`);
  return lines.join('\n');
}

function summaryOf(results: readonly ToolLint[]) {
  const through = results.filter((result) => result.through !== undefined);
  return {
    tools: results.length,
    complete: results.filter((result) => result.missing.length === 0).length,
    missingHints: results.filter((result) => result.missing.length > 0).length,
    errors: results.reduce((sum, result) => sum + result.errors.length, 0),
    warnings: results.reduce((sum, result) => sum + result.warnings.length, 0),
    conflicts: results.reduce((sum, result) => sum + result.conflicts.length, 0),
    notes: results.reduce((sum, result) => sum + result.notes.length, 0),
    suspicious: results.reduce((sum, result) => sum + result.suspicious.length, 0),
    ...(through.length === 0
      ? {}
      : {
          throughHintgate: through.length,
          filledByHintgate: through.reduce(
            (sum, result) => sum + Object.keys(result.through?.filled ?? {}).length,
            0,
          ),
        }),
  };
}

function summaryLine(results: readonly ToolLint[]): string {
  const s = summaryOf(results);
  const line = `${s.tools} tool(s): ${s.complete} fully annotated, ${s.missingHints} missing hints, ${s.errors} error(s), ${s.warnings} warning(s), ${s.conflicts} conflict(s), ${s.notes} note(s), ${s.suspicious} suspicious text(s)`;
  if (s.throughHintgate === undefined) return line;
  return `${line}\n${s.throughHintgate} tool(s) listed by a hintgate gateway: checked as their servers declared them; ${s.filledByHintgate} value(s) filled in by hintgate (its own sources, not findings)`;
}
