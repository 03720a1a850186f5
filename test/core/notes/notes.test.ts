import { describe, expect, it } from 'vitest';
import {
  NOTE_LIMITS,
  formatNotesForLLM,
  hydrateDescription,
  validateNote,
  validateNoteName,
} from '../../../src/core/notes/notes.js';

describe('notes', () => {
  it('formats notes exactly as the model sees them', () => {
    expect(
      formatNotesForLLM([
        { name: 'team-selection', note: 'Ask which team first' },
        { name: 'label-convention', note: 'bug → "bug" label' },
      ]),
    ).toBe(
      '### Additional Tool Notes\n\n• **team-selection**: Ask which team first\n• **label-convention**: bug → "bug" label',
    );
  });

  it('appends notes after a blank line and leaves a description without notes untouched', () => {
    expect(hydrateDescription('Creates an issue', [{ name: 'a', note: 'b' }])).toBe(
      'Creates an issue\n\n### Additional Tool Notes\n\n• **a**: b',
    );
    const original = 'Trailing space and\r\nCRLF ';
    expect(hydrateDescription(original, [])).toBe(original);
    expect(hydrateDescription(undefined, undefined)).toBeUndefined();
    expect(hydrateDescription(undefined, [{ name: 'a', note: 'b' }])).toBe(
      '### Additional Tool Notes\n\n• **a**: b',
    );
  });

  it.each(['usage-with-project', 'a', '0-9'])('accepts the note name %s', (name) => {
    expect(validateNoteName(name)).toBeUndefined();
  });

  it.each(['Upper', 'under_score', 'space here', '', 'ünï'])('rejects the note name %j', (name) => {
    expect(validateNoteName(name)).toMatch(/note name/);
  });

  it('bounds names and texts', () => {
    expect(validateNoteName('a'.repeat(NOTE_LIMITS.nameLength + 1))).toMatch(/limit is 64/);
    expect(validateNote({ name: 'a', note: 'x'.repeat(NOTE_LIMITS.noteLength + 1) })).toMatch(
      /limit is 2000/,
    );
    expect(validateNote({ name: 'a', note: '  ' })).toMatch(/non-empty text/);
  });
});
