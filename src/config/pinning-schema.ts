import { z } from 'zod';

const modeSchema = z.enum(['hold', 'block', 'warn'], 'expected hold, block or warn');

/**
 * Tool pinning (global): what happens when a server's tool definitions drift from what was
 * pinned. `hold` (default): relaxed hints keep the pinned values, suspicious text is never
 * served, new tools wait for a person, other changes are applied and recorded; `block`:
 * every changed or new tool waits; `warn`: everything applied, only recorded.
 */
export const pinningSchema = z.strictObject({
  mode: modeSchema.default('hold'),
  /**
   * A server seen for the first time has its tools pinned as they are (the suspicious-text
   * scan still holds back poisoned ones); false holds every tool of a new server.
   */
  trustOnFirstUse: z.boolean().default(true),
});

/** Per server: the same keys, each falling back to the global section. */
export const serverPinningSchema = z.strictObject({
  mode: modeSchema.optional(),
  trustOnFirstUse: z.boolean().optional(),
});

/** The global section, defaults filled in. */
export type PinningConfig = z.output<typeof pinningSchema>;
/** A server's section. */
export type ServerPinningConfig = z.output<typeof serverPinningSchema>;
