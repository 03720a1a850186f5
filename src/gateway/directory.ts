import { UriTemplate } from '@modelcontextprotocol/server';
import { HintgateError } from '../core/errors.js';
import type { NameCollision, NamePrefix } from '../core/refs/names.js';
import { flattenNames, namespacedName } from '../core/refs/names.js';
import type { JsonObject } from '../mcp/json-rpc.js';
import { isJsonObject } from '../mcp/json-rpc.js';

/** The `_meta` keys under which hintgate names a prompt's or resource's server. */
export const PROMPT_META_KEY = 'dev.hintgate/prompt';
export const RESOURCE_META_KEY = 'dev.hintgate/resource';

/** A prompt, resource or template of one server, under the name clients see. */
export interface DirectoryItem {
  readonly server: string;
  /** The name the server gave it. */
  readonly name: string;
  /** The item as list results show it. */
  readonly listed: JsonObject;
}

/** One server's prompts, resources and templates, as it listed them. */
export interface ServerOfferings {
  readonly prompts: readonly JsonObject[];
  readonly resources: readonly JsonObject[];
  readonly resourceTemplates: readonly JsonObject[];
}

interface TemplateRoute {
  readonly server: string;
  readonly template: string;
  readonly matcher: UriTemplate | undefined;
}

/** Options of {@link Directory}. */
export interface DirectoryOptions {
  /** Each server's prefix for the names clients see (default: the server's name). */
  readonly prefixOf?: (server: string) => NamePrefix;
}

/**
 * Prompts, resources and resource templates of every server that is up, namespaced like
 * tools: each gets the flattened `server_name` (or its server's own prefix, or no prefix) as
 * its name (the server's own name stays in `_meta`), and requests are routed back by name
 * (prompts) or by URI (resources: exact URI first, then the servers' URI templates). URIs
 * are not rewritten: they are addresses clients and models read.
 */
export class Directory {
  private readonly prefixOf: (server: string) => NamePrefix;
  private promptCollisions: readonly NameCollision[] = [];
  private readonly offerings = new Map<string, ServerOfferings>();
  private prompts = new Map<string, DirectoryItem>();
  private promptList: readonly JsonObject[] = [];
  private resourceList: readonly JsonObject[] = [];
  private templateList: readonly JsonObject[] = [];
  private readonly uriOwners = new Map<string, string>();
  private templates: readonly TemplateRoute[] = [];

  constructor({ prefixOf = (server) => server }: DirectoryOptions = {}) {
    this.prefixOf = prefixOf;
  }

  /**
   * Prompts of different servers that wanted the same name (the one whose namespaced name
   * sorts first keeps it). Resource names route nothing (URIs do), so theirs are not counted.
   */
  collisions(): readonly NameCollision[] {
    return this.promptCollisions;
  }

  /** Replaces one server's offerings; reports which lists changed. */
  setServer(server: string, offerings: ServerOfferings): { prompts: boolean; resources: boolean } {
    const before = this.offerings.get(server);
    this.offerings.set(server, offerings);
    return this.rebuild(before, offerings);
  }

  /** Removes a server's offerings. */
  removeServer(server: string): { prompts: boolean; resources: boolean } {
    const before = this.offerings.get(server);
    if (before === undefined) return { prompts: false, resources: false };
    this.offerings.delete(server);
    return this.rebuild(before, undefined);
  }

  /** The prompts, without those of the `hidden` servers. */
  listPrompts(hidden: readonly string[] = []): readonly JsonObject[] {
    return without(this.promptList, PROMPT_META_KEY, hidden);
  }

  /** The resources, without those of the `hidden` servers. */
  listResources(hidden: readonly string[] = []): readonly JsonObject[] {
    return without(this.resourceList, RESOURCE_META_KEY, hidden);
  }

  /** The resource templates, without those of the `hidden` servers. */
  listResourceTemplates(hidden: readonly string[] = []): readonly JsonObject[] {
    return without(this.templateList, RESOURCE_META_KEY, hidden);
  }

  /** The prompt clients call `name`, or NOT_FOUND naming it. */
  prompt(name: string): DirectoryItem {
    const item = this.prompts.get(name);
    if (item === undefined)
      throw new HintgateError('NOT_FOUND', `Unknown prompt: "${name}"`, { prompt: name });
    return item;
  }

  /** The server that serves `uri`: the one that listed it, else one whose template matches. */
  serverForUri(uri: string): string {
    const owner = this.uriOwners.get(uri);
    if (owner !== undefined) return owner;
    for (const route of this.templates) {
      if (route.matcher?.match(uri) != null) return route.server;
    }
    const servers = [...this.offerings.entries()].filter(
      ([, offering]) => offering.resources.length + offering.resourceTemplates.length > 0,
    );
    if (servers.length === 1 && servers[0] !== undefined) return servers[0][0];
    throw new HintgateError('NOT_FOUND', `Resource not found: no server offers "${uri}"`, { uri });
  }

  /** The server that listed the URI template `template`. */
  serverForTemplate(template: string): string {
    const route = this.templates.find((candidate) => candidate.template === template);
    if (route !== undefined) return route.server;
    return this.serverForUri(template);
  }

  private rebuild(
    before: ServerOfferings | undefined,
    after: ServerOfferings | undefined,
  ): { prompts: boolean; resources: boolean } {
    const promptsChanged = !sameItems(before?.prompts, after?.prompts);
    const resourcesChanged =
      !sameItems(before?.resources, after?.resources) ||
      !sameItems(before?.resourceTemplates, after?.resourceTemplates);
    const servers = [...this.offerings.keys()].sort();
    if (promptsChanged) this.rebuildPrompts(servers);
    if (resourcesChanged) this.rebuildResources(servers);
    return { prompts: promptsChanged, resources: resourcesChanged };
  }

  private rebuildPrompts(servers: readonly string[]): void {
    const items = namedItems(servers, (server) => this.offerings.get(server)?.prompts ?? []);
    const { names, collisions } = flattenNames(items, this.prefixOf);
    this.promptCollisions = collisions;
    const prompts = new Map<string, DirectoryItem>();
    const list: JsonObject[] = [];
    for (const item of items) {
      const flattened = names.get(namespacedName(item.server, item.name)) ?? item.name;
      const listed = withMeta(
        { ...item.raw, name: flattened },
        PROMPT_META_KEY,
        item.server,
        item.name,
      );
      prompts.set(flattened, { server: item.server, name: item.name, listed });
      list.push(listed);
    }
    this.prompts = prompts;
    this.promptList = list;
  }

  private rebuildResources(servers: readonly string[]): void {
    this.uriOwners.clear();
    const resources = namedItems(servers, (server) => this.offerings.get(server)?.resources ?? []);
    const templates = namedItems(
      servers,
      (server) => this.offerings.get(server)?.resourceTemplates ?? [],
    );
    const { names } = flattenNames([...resources, ...templates], this.prefixOf);
    this.resourceList = resources.map((item) => {
      const uri = item.raw['uri'];
      // Two servers listing one URI: the first by name serves it.
      if (typeof uri === 'string' && !this.uriOwners.has(uri)) this.uriOwners.set(uri, item.server);
      const flattened = names.get(namespacedName(item.server, item.name)) ?? item.name;
      return withMeta({ ...item.raw, name: flattened }, RESOURCE_META_KEY, item.server, item.name);
    });
    const routes: TemplateRoute[] = [];
    this.templateList = templates.map((item) => {
      const template = item.raw['uriTemplate'];
      if (typeof template === 'string')
        routes.push({ server: item.server, template, matcher: matcherFor(template) });
      const flattened = names.get(namespacedName(item.server, item.name)) ?? item.name;
      return withMeta({ ...item.raw, name: flattened }, RESOURCE_META_KEY, item.server, item.name);
    });
    this.templates = routes;
  }
}

/** `list` without the items whose server (named under `key` in their `_meta`) is `hidden`. */
function without(
  list: readonly JsonObject[],
  key: string,
  hidden: readonly string[],
): readonly JsonObject[] {
  if (hidden.length === 0) return list;
  return list.filter((item) => {
    const named = (item['_meta'] as JsonObject)[key] as { server: string };
    return !hidden.includes(named.server);
  });
}

interface NamedItem {
  readonly server: string;
  readonly name: string;
  readonly raw: JsonObject;
}

/** Items with a usable name, server by server; a name repeated within a server keeps its first. */
function namedItems(
  servers: readonly string[],
  itemsOf: (server: string) => readonly JsonObject[],
): NamedItem[] {
  const result: NamedItem[] = [];
  for (const server of servers) {
    const seen = new Set<string>();
    for (const raw of itemsOf(server)) {
      const name =
        typeof raw['name'] === 'string' && raw['name'] !== ''
          ? raw['name']
          : typeof raw['uri'] === 'string'
            ? raw['uri']
            : undefined;
      if (name === undefined || seen.has(name)) continue;
      seen.add(name);
      result.push({ server, name, raw });
    }
  }
  return result;
}

function withMeta(item: JsonObject, key: string, server: string, name: string): JsonObject {
  const meta = isJsonObject(item['_meta']) ? item['_meta'] : {};
  return { ...item, _meta: { ...meta, [key]: { server, name } } };
}

function matcherFor(template: string): UriTemplate | undefined {
  try {
    return new UriTemplate(template);
  } catch {
    return undefined;
  }
}

function sameItems(
  a: readonly JsonObject[] | undefined,
  b: readonly JsonObject[] | undefined,
): boolean {
  if (a === b) return true;
  if ((a?.length ?? 0) !== (b?.length ?? 0)) return false;
  return JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
}
