/**
 * What the pinning policy does with a drift: serve the tool as it is now, serve it with the
 * pinned values where the change is held back, or hold the whole tool until a person decides.
 */
import type { ToolDefinition } from './definition.js';
import type { Drift } from './drift.js';

/**
 * `hold` (default): relaxations keep the pinned values, suspicious text is never served, new
 * tools wait for approval, other changes are applied and recorded. `block`: every changed or
 * new tool waits. `warn`: every change is applied and only recorded.
 */
export type PinningMode = 'hold' | 'block' | 'warn';

/** The policy's answer for one drift. */
export type DriftAction =
  /** Serve the tool as listed; the pin follows it (the drift is recorded). */
  | 'apply'
  /** Serve it with the pinned values where it drifted unsafely; a person decides. */
  | 'keep-pinned'
  /** Do not serve it at all (not listed, calls refused) until a person approves. */
  | 'hold';

/** What the policy does with `drift` under `mode`. */
export function driftAction(drift: Drift, mode: PinningMode): DriftAction {
  if (mode === 'warn' || drift.kind === 'removed') return 'apply';
  if (drift.kind === 'new' || mode === 'block') return 'hold';
  return needsPerson(drift) ? 'keep-pinned' : 'apply';
}

/** A drift only a person may accept under the default mode: a relaxation or suspicious text. */
export function needsPerson(drift: Drift): boolean {
  return drift.grades.includes('relaxation') || drift.grades.includes('suspicious-text');
}

/**
 * The tool as served under `keep-pinned`: the listed tool with the pinned value put back
 * wherever the drift relaxed a hint or a flag, and the pinned text put back wherever new
 * suspicious text appeared (the whole field: title, description, a schema). Everything else
 * follows the server. The listed object is not changed.
 */
export function withPinnedValues(
  listed: Readonly<Record<string, unknown>>,
  pinned: ToolDefinition,
  drift: Drift,
): Record<string, unknown> {
  const served: Record<string, unknown> = { ...listed };
  let annotations: Record<string, unknown> | undefined;
  const annotationsCopy = (): Record<string, unknown> => {
    annotations ??= { ...((listed['annotations'] as Record<string, unknown> | undefined) ?? {}) };
    served['annotations'] = annotations;
    return annotations;
  };
  for (const change of drift.changes) {
    if (change.grade !== 'relaxation' || !change.path.startsWith('annotations.')) continue;
    const field = change.path.slice('annotations.'.length);
    const value = pinned.annotations?.[field];
    const target = annotationsCopy();
    if (value === undefined) delete target[field];
    else target[field] = value;
  }
  for (const finding of drift.findings) {
    const field = finding.field.split(/[.[]/, 1)[0] as string;
    if (field === 'annotations') {
      const value = pinned.annotations?.['title'];
      const target = annotationsCopy();
      if (value === undefined) delete target['title'];
      else target['title'] = value;
      continue;
    }
    const value = (pinned as unknown as Record<string, unknown>)[field];
    if (value === undefined) delete served[field];
    else served[field] = value;
  }
  return served;
}
