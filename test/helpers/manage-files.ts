/**
 * The proposal's `manage_files` example as the tests expect it, written out independently
 * of `examples/manage-files` (which these tables check).
 */
import { join } from 'node:path';
import { ROOT } from './paths.js';

/** The example server, built with the library's `addDynamicAnnotations`. */
export const MANAGE_FILES_SERVER = join(ROOT, 'examples', 'manage-files', 'server.mjs');

/** The proposal's table: what each action's call does. */
export const MANAGE_FILES_EXPECTED = {
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
} as const;

/** The four actions, in the table's order. */
export const MANAGE_FILES_ACTIONS = Object.keys(
  MANAGE_FILES_EXPECTED,
) as (keyof typeof MANAGE_FILES_EXPECTED)[];

/** manage_files as listed: the worst case over the four actions. */
export const MANAGE_FILES_WORST_CASE = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
} as const;
