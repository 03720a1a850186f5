import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import {
  MIGRATIONS_MODULE,
  readMigrationFiles,
  renderMigrationsModule,
} from './helpers/migration-files.js';

describe('embedded migrations', () => {
  it('match the .sql files, which are the source of truth', () => {
    const files = readMigrationFiles();
    const expected = renderMigrationsModule(files);
    if (process.env['HINTGATE_UPDATE_MIGRATIONS'] === '1')
      writeFileSync(MIGRATIONS_MODULE, expected);
    expect(
      readFileSync(MIGRATIONS_MODULE, 'utf8'),
      'src/store/migrations/index.ts is out of date: run HINTGATE_UPDATE_MIGRATIONS=1 npx vitest run test/store/migration-files.test.ts',
    ).toBe(expected);
    expect(MIGRATIONS.map((m) => ({ version: m.version, name: m.name, sql: m.sql }))).toEqual(
      files,
    );
  });

  // Gaps are allowed: migrations written side by side take numbers ahead of their merge.
  it('are numbered upward from 1, each number once', () => {
    const versions = MIGRATIONS.map((m) => m.version);
    expect(versions[0]).toBe(1);
    for (let index = 1; index < versions.length; index++) {
      expect(versions[index]).toBeGreaterThan(versions[index - 1] as number);
    }
  });
});
