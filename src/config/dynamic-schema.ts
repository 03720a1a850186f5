import { z } from 'zod';
import type { DynamicRule } from '../core/dynamic/rules.js';
import { compileRules } from '../core/dynamic/rules.js';

/**
 * A list of dynamic-annotation rules as written in config, checked with the core's own
 * compiler so that every problem is reported with the rule it belongs to (`dynamic.rules.1:
 * rule 2 ("reads"): match[0].regex: invalid regular expression: …`), and kept as written
 * (compiled once, when the gateway starts).
 */
const rulesSchema = z
  .array(z.unknown(), 'expected a list of rules')
  .superRefine((rules, ctx) => {
    const compiled = compileRules(rules);
    if (compiled.ok) return;
    for (const error of compiled.errors) {
      ctx.addIssue({
        code: 'custom',
        path: error.rule < 0 ? [] : [error.rule],
        message: error.message,
      });
    }
  })
  .transform((rules) => rules as DynamicRule[]);

/**
 * Top-level `dynamic`: rules that refine a call's annotations from its arguments, for the
 * tools of every server. A rule's `tool` is a glob over namespaced names (`db.query`,
 * `db.*`); without one it applies to every tool. The first matching rule wins.
 */
export const dynamicSchema = z.strictObject({
  rules: rulesSchema.default([]),
});

/**
 * Per server, `mcpServers.<name>.dynamic`: its own rules (a rule's `tool` is a glob over
 * the server's own tool names, `query` or `*_sql`; these come before the global rules), and
 * whether hintgate asks the server itself and reads arguments with its built-in classifiers.
 */
export const serverDynamicSchema = z.strictObject({
  rules: rulesSchema.default([]),
  /**
   * Read arguments with hintgate's built-in classifiers (SQL, shell, HTTP method, action
   * verbs). Turn off for a server that enforces what its tools do (a database server that
   * runs every query in a read-only transaction).
   */
  classifiers: z.boolean().default(true),
  /**
   * Ask the server for a call's annotations (`tools/resolve` or `tools/annotations`) when it
   * declares the capability and marks the tool; otherwise hintgate's rules and classifiers
   * decide.
   */
  forward: z.boolean().default(true),
  /** How long the server may take to answer one such request before its static annotations apply. */
  timeoutMs: z.number().int().positive().default(5_000),
});

/** The validated top-level `dynamic` section. */
export type DynamicConfig = z.output<typeof dynamicSchema>;
/** The validated `dynamic` section of one server. */
export type ServerDynamicConfig = z.output<typeof serverDynamicSchema>;
