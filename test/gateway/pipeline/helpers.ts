import { Catalog } from '../../../src/gateway/catalog.js';
import type { CallContext } from '../../../src/gateway/pipeline/context.js';
import { createCallContext } from '../../../src/gateway/pipeline/context.js';
import { emptySession } from '../../../src/front/session.js';

/** A catalog with one server `s` holding the named tools. */
export function catalogWith(...tools: Record<string, unknown>[]): Catalog {
  const catalog = new Catalog();
  catalog.setServer(
    's',
    tools.map((tool) => ({ inputSchema: { type: 'object' }, ...tool })),
    { trust: 'untrusted' },
  );
  return catalog;
}

/** A context for calling `name` with `args`. */
export function contextFor(
  name: string,
  args: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): CallContext {
  return createCallContext(
    {
      params: { name, arguments: args, ...extra },
      session: { ...emptySession('test', 'stdio'), clientCapabilities: { elicitation: {} } },
      signal: new AbortController().signal,
      progress: undefined,
      relay: undefined,
    },
    1000,
  );
}
