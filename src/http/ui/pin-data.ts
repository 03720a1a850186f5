/**
 * What the dashboard's pins page reads: the pins waiting for a person, grouped by server,
 * what the running gateway does with each meanwhile, and each changed value as people read
 * a change (the words added and removed, for text).
 */
import { diffWordsWithSpace } from 'diff';
import type { DriftGrade, PinningMode } from '../../core/pins/index.js';
import { driftAction } from '../../core/pins/index.js';
import type { Store, ToolPin } from '../../store/store.js';

/** What each grade means, in a few words (the page's legend and the pills' titles). */
export const GRADE_MEANING: Readonly<Record<DriftGrade, string>> = {
  'suspicious-text':
    'text that speaks to the model (hidden instructions, secrecy, credential files)',
  relaxation: 'a hint that now says "safer" than the pin',
  'new-tool': 'a tool not seen before',
  renamed: 'a pinned tool under a new name',
  'removed-tool': 'a pinned tool the server no longer lists',
  'schema-change': 'the arguments or the result changed',
  escalation: 'a hint that now says "more dangerous" (applied at once)',
  'wording-change': 'words changed (descriptions, titles)',
};

/** Grades a person must look at before the change is served. */
const SERIOUS = new Set<DriftGrade>(['suspicious-text', 'relaxation', 'new-tool', 'renamed']);

/** Whether a grade holds a change back (drawn in red) rather than being applied. */
export function isSerious(grade: DriftGrade): boolean {
  return SERIOUS.has(grade);
}

/** One server's waiting pins: drifted or new definitions, pending or rejected. */
export interface WaitingServer {
  readonly server: string;
  readonly pins: readonly ToolPin[];
  /** How many a server-wide approval decides (pending and rejected). */
  readonly approvable: number;
  /** How many a server-wide rejection decides (pending only). */
  readonly rejectable: number;
}

/**
 * The pins waiting for a person, by server (pending first, then rejected, by tool): the
 * definitions a server-wide decision would act on.
 */
export async function waitingPins(
  store: Pick<Store, 'listPins'>,
  server?: string,
): Promise<WaitingServer[]> {
  const where = server === undefined ? {} : { server };
  const [pending, rejected] = await Promise.all([
    store.listPins({ ...where, status: 'pending' }),
    store.listPins({ ...where, status: 'rejected' }),
  ]);
  const byServer = new Map<string, ToolPin[]>();
  for (const pin of [...pending, ...rejected.filter((pin) => pin.pending !== undefined)]) {
    const list = byServer.get(pin.server) ?? [];
    byServer.set(pin.server, list);
    list.push(pin);
  }
  return [...byServer.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, pins]) => ({
      server: name,
      pins,
      approvable: pins.length,
      rejectable: pins.filter((pin) => pin.status === 'pending').length,
    }));
}

/**
 * What the running gateway does with a waiting pin until a person decides, in words: the
 * same decision its pin check takes (`driftAction` under the server's mode).
 */
export function whileWaiting(pin: ToolPin, mode: PinningMode): string {
  const drift = pin.drift;
  if (drift === undefined) return 'Served as pinned.';
  const action = driftAction(drift, mode);
  if (action === 'hold' || pin.definition === undefined)
    return 'Held back: not listed to clients, its calls refused.';
  if (action === 'keep-pinned')
    return 'Served with its pinned values where it drifted; the rest as the server lists it.';
  return pin.status === 'rejected'
    ? 'Held back: not listed to clients, its calls refused.'
    : 'Served as the server lists it (the drift is recorded).';
}

/** A piece of a changed text: kept, added or removed. */
export interface TextPart {
  readonly kind: 'same' | 'added' | 'removed';
  readonly text: string;
}

/** Texts longer than this are shown whole rather than compared word by word. */
const MAX_DIFF_TEXT = 20_000;

/**
 * Two texts compared word by word: the pieces of `before` (kept and removed) and of `after`
 * (kept and added), so each side can be shown with its changes marked.
 */
export function textChange(
  before: string,
  after: string,
): { before: TextPart[]; after: TextPart[] } {
  if (before.length + after.length > MAX_DIFF_TEXT) {
    return {
      before: [{ kind: 'removed', text: before }],
      after: [{ kind: 'added', text: after }],
    };
  }
  // Whitespace counts as words: each side is rebuilt exactly as it was.
  const parts = diffWordsWithSpace(before, after);
  const old: TextPart[] = [];
  const now: TextPart[] = [];
  for (const part of parts) {
    if (part.added) now.push({ kind: 'added', text: part.value });
    else if (part.removed) old.push({ kind: 'removed', text: part.value });
    else {
      old.push({ kind: 'same', text: part.value });
      now.push({ kind: 'same', text: part.value });
    }
  }
  return { before: old, after: now };
}

/** A value of a definition as the diff shows it: absent, or JSON (text as it reads). */
export function shownValue(value: unknown): string {
  if (value === undefined) return '(absent)';
  if (typeof value === 'string') return value;
  // JSON has no form for a function or a symbol; a definition holds neither.
  return JSON.stringify(value, null, 2) ?? typeof value;
}
