import { z } from 'zod';

/** A principal or group name (`alice`, `ci-bot`, `team.ops`). */
export const PRINCIPAL_NAME = /^[A-Za-z0-9][\w.@-]{0,63}$/;

/** Who a rule is about: a principal's name, `group:<name>`, or `*` (everyone). */
const whoSchema = z
  .string('expected a principal, "group:<name>" or "*"')
  .regex(
    /^(\*|(group:)?[A-Za-z0-9][\w.@-]{0,63})$/,
    'expected a principal name, "group:<name>" or "*"',
  );

/**
 * One access rule: for the principals it names (`who`), the tools it matches are allowed or
 * denied (`effect`). A tool matches when it is of one of `servers` (if given), its namespaced
 * name matches one of `tools` (if given; `*` any run of characters, `?` one) and its
 * effective annotations agree with every field of `annotations` (if given): `readOnly`,
 * `destructive` (a write that may destroy), `openWorld`.
 */
export const accessRuleSchema = z.strictObject({
  who: z.array(whoSchema, 'expected an array of principals').min(1, 'expected someone in "who"'),
  effect: z.enum(['allow', 'deny'], 'expected allow or deny'),
  servers: z
    .array(z.string().regex(/^[A-Za-z0-9_-]+$/, 'expected a server name'))
    .min(1)
    .optional(),
  tools: z.array(z.string().min(1, 'expected a tool name or pattern')).min(1).optional(),
  annotations: z
    .strictObject({
      readOnly: z.boolean().optional(),
      destructive: z.boolean().optional(),
      openWorld: z.boolean().optional(),
    })
    .optional(),
  /** Said to the caller when this rule refuses a call. */
  reason: z.string().min(1).max(500).optional(),
});

/**
 * The `access` section: who may see and call which tools, and who may approve calls.
 * Rules are read in order, the first matching one decides; the rules of the toolset a
 * session has equipped (`toolsets`) come before the global ones; when none matches,
 * `default` does.
 */
export const accessSchema = z.strictObject({
  default: z.enum(['allow', 'deny'], 'expected allow or deny').default('allow'),
  rules: z.array(accessRuleSchema).default([]),
  toolsets: z
    .record(
      z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'expected a toolset name'),
      z.array(accessRuleSchema),
    )
    .default({}),
  /**
   * Who may decide approvals over HTTP (principals, `group:<name>`): never the principal
   * that made the call. The CLI, with access to the data directory, may always.
   */
  approvers: z.array(whoSchema).default([]),
});

/** A validated access rule. */
export type AccessRule = z.output<typeof accessRuleSchema>;
/** The validated `access` section. */
export type AccessConfig = z.output<typeof accessSchema>;
