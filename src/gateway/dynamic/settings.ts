/**
 * Dynamic-annotation settings from config and from what each server declares: the config's
 * rules compiled once when the gateway starts, and per server, which requests hintgate
 * may forward to it.
 */
import type { Config, ServerConfig } from '../../config/schema.js';
import type { DynamicRule } from '../../core/dynamic/rules.js';
import { compileRules } from '../../core/dynamic/rules.js';
import { HintgateError } from '../../core/errors.js';
import { declaresDynamicAnnotations, declaresToolResolution } from '../../mcp/dynamic-wire.js';
import type { JsonObject } from '../../mcp/json-rpc.js';
import type { RuleScope, ScopedRule, ServerDynamicSettings } from './spec.js';

/**
 * Compiles rules (already validated by the config schema or the store) and labels them with
 * where they were written (`config rule 2 ("reads")`, `server db rule 1`, `toolset triage
 * rule 1`), so that a reason names its rule unambiguously. `where` prefixes errors.
 */
export function compileScopedRules(
  rules: readonly unknown[],
  scope: RuleScope,
  prefix: string,
  where: string,
): ScopedRule[] {
  const compiled = compileRules(rules);
  if (!compiled.ok) {
    throw new HintgateError(
      'CONFIG_INVALID',
      `${where}: ${compiled.errors.map((error) => error.message).join('; ')}`,
    );
  }
  return compiled.rules.map((rule) => ({
    rule: { ...rule, label: `${prefix} ${rule.label}` },
    scope,
  }));
}

/**
 * A server's own rules name its tools by their own names (`query`, `*_sql`); as compiled
 * they match namespaced names, like every other rule.
 */
function serverRules(server: string, rules: readonly DynamicRule[]): DynamicRule[] {
  return rules.map((rule) => ({ ...rule, tool: `${server}.${rule.tool ?? '*'}` }));
}

/** The config's rules, compiled once: per enabled server, its own first, then the global ones. */
export function compileConfigRules(config: Config): ReadonlyMap<string, readonly ScopedRule[]> {
  const global = compileScopedRules(config.dynamic.rules, 'config', 'config', 'dynamic.rules');
  const byServer = new Map<string, readonly ScopedRule[]>();
  for (const [name, server] of Object.entries(config.mcpServers)) {
    const own = compileScopedRules(
      serverRules(name, server.dynamic.rules),
      'server',
      `server ${name}`,
      `mcpServers.${name}.dynamic.rules`,
    );
    byServer.set(name, [...own, ...global]);
  }
  return byServer;
}

/**
 * How one server's tools are resolved, from its config and the capabilities it declared:
 * hintgate forwards a request only when the server declares it (`tools.dynamicAnnotations`,
 * or the tool-resolution extension) and `forward` is on.
 */
export function serverDynamicSettings(
  config: ServerConfig,
  capabilities: JsonObject,
  rules: readonly ScopedRule[],
): ServerDynamicSettings {
  const forward = config.dynamic.forward;
  return {
    rules,
    classifiers: config.dynamic.classifiers,
    serverResolve: forward && declaresToolResolution(capabilities),
    serverAnnotations: forward && declaresDynamicAnnotations(capabilities),
    timeoutMs: config.dynamic.timeoutMs,
  };
}
