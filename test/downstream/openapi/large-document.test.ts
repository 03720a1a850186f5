import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Ajv, AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { inferOpenApiAnnotations } from '../../../src/downstream/openapi/annotations.js';
import { loadOpenApiDocument } from '../../../src/downstream/openapi/document.js';
import type { OpenApiTool } from '../../../src/downstream/openapi/operations.js';
import { convertDocument } from '../../../src/downstream/openapi/operations.js';
import { scratchDir } from '../../helpers/config.js';
import { ROOT } from '../../helpers/paths.js';

/** GitHub's REST API description, unpacked into a scratch file. */
export function githubDocumentPath(): string {
  const packed = readFileSync(join(ROOT, 'test', 'fixtures', 'openapi', 'github-api.json.gz'));
  const path = join(scratchDir(), 'api.github.com.json');
  writeFileSync(path, gunzipSync(packed));
  return path;
}

describe("GitHub's REST API description", () => {
  let tools: OpenApiTool[];

  beforeAll(async () => {
    const document = await loadOpenApiDocument(githubDocumentPath(), { timeoutMs: 5_000 });
    tools = convertDocument(document);
  }, 180_000);

  it('becomes one tool per operation, each with a unique valid name', () => {
    expect(tools.length).toBe(1223);
    const names = tools.map((tool) => tool.tool['name'] as string);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_.-]{1,64}$/);
  });

  it('gives every tool a description and object schemas valid by the JSON Schema meta-schema', () => {
    const ajv = new Ajv({ strict: false });
    const validator = new AjvJsonSchemaValidator();
    tools.forEach(({ tool }, index) => {
      const name = String(tool['name']);
      expect(typeof tool['description']).toBe('string');
      for (const key of ['inputSchema', 'outputSchema'] as const) {
        const schema = tool[key] as Record<string, unknown> | undefined;
        if (schema === undefined) continue;
        expect(schema['type'], `${name} ${key}`).toBe('object');
        expect(ajv.validateSchema(schema), `${name} ${key}: ${ajv.errorsText()}`).toBe(true);
        // Compiling is slow (about 50 ms a schema): one tool in 40 is compiled as the SDK would.
        if (index % 40 === 0)
          expect(() => validator.getValidator(schema as never), name).not.toThrow();
      }
    });
  }, 60_000);

  it('annotates every tool from its method', () => {
    const counts = new Map<string, number>();
    for (const { tool, plan } of tools) {
      const inference = inferOpenApiAnnotations(tool);
      expect(inference?.annotations.readOnlyHint).toBe(['GET', 'HEAD'].includes(plan.method));
      expect(inference?.annotations.openWorldHint).toBe(true);
      counts.set(plan.method, (counts.get(plan.method) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual(['DELETE', 'GET', 'PATCH', 'POST', 'PUT']);
  });
});
