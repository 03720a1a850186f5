import type { ToolAnnotations } from './types.js';

/**
 * One line describing a tool's annotations, for logs: the title, the safety hints, the
 * extensions, and the tags. Only what is set is shown; empty annotations give
 * `[no annotations]`.
 *
 * @example
 * getAnnotationSummary({
 *   title: 'Delete User Account', destructiveHint: true, requiresConfirmation: true,
 *   complexity: 'simple', estimatedDuration: 250, tags: ['admin'],
 * }) // '[Delete User Account | DESTRUCTIVE | requires confirmation | simple | ~250ms | tags: admin]'
 */
export function getAnnotationSummary(annotations: ToolAnnotations | undefined): string {
  if (annotations === undefined) return '[no annotations]';
  const parts: string[] = [];
  if (typeof annotations.title === 'string' && annotations.title !== '')
    parts.push(annotations.title);
  if (annotations.readOnlyHint === true) parts.push('READ-ONLY');
  else if (annotations.destructiveHint === true) parts.push('DESTRUCTIVE');
  else if (annotations.destructiveHint === false) parts.push('non-destructive');
  if (annotations.readOnlyHint !== true && annotations.idempotentHint === true)
    parts.push('idempotent');
  if (annotations.openWorldHint === true) parts.push('open world');
  else if (annotations.openWorldHint === false) parts.push('closed world');
  if (annotations.requiresConfirmation === true) parts.push('requires confirmation');
  if (annotations.complexity !== undefined) parts.push(annotations.complexity);
  if (typeof annotations.estimatedDuration === 'number')
    parts.push(`~${annotations.estimatedDuration}ms`);
  if (typeof annotations.rateLimitHint === 'number')
    parts.push(`≤${annotations.rateLimitHint}/min`);
  if (typeof annotations.costHint === 'number') parts.push(`cost ${annotations.costHint}`);
  if (annotations.auditRequired === true) parts.push('audited');
  if (annotations.securityLevel !== undefined) parts.push(annotations.securityLevel);
  if (Array.isArray(annotations.tags) && annotations.tags.length > 0) {
    parts.push(`tags: ${annotations.tags.join(', ')}`);
  }
  return parts.length === 0 ? '[no annotations]' : `[${parts.join(' | ')}]`;
}
