/**
 * The OpenAPI documents of a config, read before anything starts: a document that does not
 * parse, does not validate or cannot be converted is a config error naming the server's key
 * and where in the document the problem is.
 */
import { ResolverError } from '@readme/openapi-parser';
import type { ConfigIssue } from '../../config/load.js';
import type { Config } from '../../config/schema.js';
import { errorMessage } from '../../core/errors.js';
import { OpenApiDocumentError } from './document.js';
import { prepareOpenApiServer } from './server.js';

/**
 * One issue per enabled `openapi` server whose document cannot be used, at
 * `mcpServers.<name>.openapi`. A document at a URL that cannot be fetched now is not one:
 * that server starts down and is retried like any server that cannot be reached.
 */
export async function openApiConfigIssues(config: Config): Promise<ConfigIssue[]> {
  const checks = Object.entries(config.mcpServers)
    .filter(
      ([, server]) => server.openapi !== undefined && server.enabled && server.disabled !== true,
    )
    .map(async ([name, server]): Promise<ConfigIssue | undefined> => {
      try {
        await prepareOpenApiServer(server);
        return undefined;
      } catch (error) {
        const unreachable =
          /^https?:\/\//i.test(server.openapi ?? '') && error instanceof OpenApiDocumentError
            ? error.cause instanceof ResolverError
            : false;
        if (unreachable) return undefined;
        const message =
          error instanceof OpenApiDocumentError
            ? `${error.source}: ${error.problems.join('; ')}`
            : errorMessage(error);
        return { path: `mcpServers.${name}.openapi`, message };
      }
    });
  return (await Promise.all(checks)).filter((issue) => issue !== undefined);
}
