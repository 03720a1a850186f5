import type { Command } from 'commander';
import { resolveEffectiveAnnotations } from '../../core/annotations/effective.js';
import type { EffectiveAnnotations } from '../../core/annotations/effective.js';
import type { ToolAnnotations } from '../../core/annotations/types.js';
import { validateAnnotations } from '../../core/annotations/validate.js';
import { HintgateError, errorMessage } from '../../core/errors.js';
import { inferAnnotations } from '../../core/inference/infer.js';
import type { ToolDefinition } from '../../core/tools/tool-list.js';
import { parseToolList } from '../../core/tools/tool-list.js';
import { readInput, writeOut } from '../io.js';
import { formatJson, formatTable, hintCell } from '../output.js';

interface InferOptions {
  readonly explain?: boolean;
  readonly format: 'json' | 'table';
  readonly trusted?: boolean;
}

/** `hintgate infer [file]`: effective annotations for tool definitions read as JSON. */
export function registerInfer(program: Command): void {
  program
    .command('infer')
    .description(
      'Infer annotations for tool definitions (a JSON array of tools or a tools/list result) from a file or stdin',
    )
    .argument('[file]', 'JSON file to read; standard input when absent or "-"')
    .option('--explain', 'add the source of every value, the reasons and any conflicts')
    .option('--format <format>', 'json or table', 'json')
    .option('--trusted', 'take declared annotations at their word (no conflict checks)')
    .action(async (file: string | undefined, options: InferOptions) => {
      if (options.format !== 'json' && options.format !== 'table') {
        throw new HintgateError(
          'INPUT_INVALID',
          `--format: expected json or table, got "${String(options.format)}"`,
        );
      }
      const tools = parseTools(await readToolsInput(file), file ?? 'stdin');
      const results = tools.map((tool) => ({ tool, effective: effectiveFor(tool, options) }));
      if (options.format === 'table') {
        await writeOut(`${inferTable(results)}\n`);
        return;
      }
      await writeOut(
        formatJson(
          results.map(({ tool, effective }) =>
            options.explain === true ? explained(tool, effective) : effective.annotations,
          ),
        ),
      );
    });
}

function parseTools(text: string, origin: string): readonly ToolDefinition[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HintgateError(
      'INPUT_INVALID',
      `${origin}: not valid JSON: ${(error as Error).message}`,
    );
  }
  const parsed = parseToolList(value);
  if (!parsed.ok) throw new HintgateError('INPUT_INVALID', `${origin}: ${parsed.error}`);
  // Declared values of the wrong type (`readOnlyHint: "yes"`) would pass through as they are.
  const wrong = parsed.tools.flatMap((tool, index) =>
    tool.annotations === undefined
      ? []
      : validateAnnotations(tool.annotations)
          .errors.filter((finding) => TYPE_ERRORS.has(finding.code))
          .map((finding) => `tools[${index}] (${tool.name}): annotations.${finding.message}`),
  );
  if (wrong.length > 0) throw new HintgateError('INPUT_INVALID', `${origin}: ${wrong.join('; ')}`);
  return parsed.tools;
}

/** Findings of {@link validateAnnotations} that mean a value of the wrong type or set. */
const TYPE_ERRORS = new Set(['not-boolean', 'not-string', 'not-finite', 'not-array', 'bad-enum']);

/** The input, or a clear INPUT_INVALID naming the file that cannot be read. */
async function readToolsInput(file: string | undefined): Promise<string> {
  try {
    return await readInput(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : errorMessage(error);
    throw new HintgateError('INPUT_INVALID', `${file ?? 'stdin'}: ${why}`);
  }
}

function effectiveFor(tool: ToolDefinition, options: InferOptions): EffectiveAnnotations {
  return resolveEffectiveAnnotations({
    inference: inferAnnotations(tool),
    declared: tool.annotations,
    trust: options.trusted === true ? 'trusted' : 'untrusted',
  });
}

function explained(tool: ToolDefinition, effective: EffectiveAnnotations): ToolAnnotations {
  const sources: Record<string, string> = {};
  const reasons: Record<string, string> = {};
  for (const [field, value] of Object.entries(effective.provenance)) {
    sources[field] = value.source;
    if (value.reason !== undefined) reasons[field] = value.reason;
  }
  return {
    ...effective.annotations,
    _explain: { tool: tool.name, sources, reasons, conflicts: effective.conflicts },
  };
}

function inferTable(
  rows: readonly { tool: ToolDefinition; effective: EffectiveAnnotations }[],
): string {
  const cell = (row: { effective: EffectiveAnnotations }, field: string): string => {
    const provenance = row.effective.provenance[field];
    const conflict = row.effective.conflicts.some((c) => c.field === field);
    const marker = conflict
      ? '!'
      : provenance?.source === 'declared'
        ? ''
        : provenance?.source === 'spec-default'
          ? '°'
          : '*';
    return hintCell(provenance?.value, marker);
  };
  const table = formatTable(rows, [
    { heading: 'tool', cell: (row) => row.tool.name },
    { heading: 'read-only', cell: (row) => cell(row, 'readOnlyHint') },
    { heading: 'destructive', cell: (row) => cell(row, 'destructiveHint') },
    { heading: 'idempotent', cell: (row) => cell(row, 'idempotentHint') },
    { heading: 'open-world', cell: (row) => cell(row, 'openWorldHint') },
    { heading: 'title', cell: (row) => String(row.effective.annotations.title ?? '') },
  ]);
  return `${table}\n\n* inferred   ° MCP default   ! conflict with the declared value (declared value overruled)`;
}
