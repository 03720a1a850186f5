/** A note a person or a model attached to a tool, appended to the description the model sees. */
export interface ToolNote {
  readonly name: string;
  readonly note: string;
}

/** Bounds on notes, so that notes cannot flood a model's context. */
export const NOTE_LIMITS = {
  nameLength: 64,
  noteLength: 2000,
  notesPerTool: 20,
} as const;

/** The heading of the notes section in a hydrated description. */
export const NOTES_HEADING = '### Additional Tool Notes';

const NOTE_NAME = /^[a-z0-9-]+$/;

/** The outcome of a note check: `undefined` when it is fine, else what is wrong. */
export type NoteProblem = string | undefined;

/** Checks a note's name: lowercase letters, digits and hyphens, at most 64 characters. */
export function validateNoteName(name: unknown): NoteProblem {
  if (typeof name !== 'string' || name === '') return 'note name must be a non-empty string';
  if (!NOTE_NAME.test(name)) {
    return `note name "${name}" must match ^[a-z0-9-]+$ (lowercase letters, digits and hyphens)`;
  }
  if (name.length > NOTE_LIMITS.nameLength) {
    return `note name "${name.slice(0, 20)}…" is ${name.length} characters long; the limit is ${NOTE_LIMITS.nameLength}`;
  }
  return undefined;
}

/** Checks a note: a valid name and a non-empty text within the length bound. */
export function validateNote(note: {
  readonly name: unknown;
  readonly note: unknown;
}): NoteProblem {
  const nameProblem = validateNoteName(note.name);
  if (nameProblem !== undefined) return nameProblem;
  if (typeof note.note !== 'string' || note.note.trim() === '') {
    return `note "${String(note.name)}" must have a non-empty text`;
  }
  if (note.note.length > NOTE_LIMITS.noteLength) {
    return `note "${String(note.name)}" is ${note.note.length} characters long; the limit is ${NOTE_LIMITS.noteLength}`;
  }
  return undefined;
}

/**
 * The notes section exactly as the model sees it: the heading, a blank line, and one
 * `• **name**: note` line per note.
 *
 * @example
 * formatNotesForLLM([{ name: 'team', note: 'Ask which team first' }])
 * // '### Additional Tool Notes\n\n• **team**: Ask which team first'
 */
export function formatNotesForLLM(notes: readonly ToolNote[]): string {
  const lines = notes.map((note) => `• **${note.name}**: ${note.note}`);
  return `${NOTES_HEADING}\n\n${lines.join('\n')}`;
}

/**
 * A description with notes appended after a blank line; with no notes, the description
 * unchanged, byte for byte (including an absent one).
 */
export function hydrateDescription<D extends string | undefined>(
  description: D,
  notes: readonly ToolNote[] | undefined,
): D | string {
  if (notes === undefined || notes.length === 0) return description;
  const section = formatNotesForLLM(notes);
  return description === undefined || description === '' ? section : `${description}\n\n${section}`;
}
