import { z } from 'zod';
import { COMPLEXITY_LEVELS, SECURITY_LEVELS } from '../core/annotations/types.js';
import type { ToolAnnotations } from '../core/annotations/types.js';

/**
 * Annotations as a user writes them in config: every known field checked, any other key
 * kept (a server may use keys hintgate does not know).
 */
export const annotationsSchema = z
  .looseObject({
    title: z.string().optional(),
    readOnlyHint: z.boolean().optional(),
    destructiveHint: z.boolean().optional(),
    idempotentHint: z.boolean().optional(),
    openWorldHint: z.boolean().optional(),
    requiresConfirmation: z.boolean().optional(),
    tags: z.array(z.string().min(1, 'expected a non-empty tag')).optional(),
    estimatedDuration: z.number().finite().nonnegative().optional(),
    rateLimitHint: z.number().finite().positive().optional(),
    costHint: z.number().finite().nonnegative().optional(),
    complexity: z.enum(COMPLEXITY_LEVELS).optional(),
    auditRequired: z.boolean().optional(),
    securityLevel: z.enum(SECURITY_LEVELS).optional(),
  })
  .transform((value) => value as ToolAnnotations);
