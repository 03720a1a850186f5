import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGLITE_DATABASE_DIR, loadPGlite } from '../../src/store/pglite.js';
import { makeTemplate, templateFileName, unpackTemplate } from '../../src/store/pglite-template.js';
import { SCHEMA_TABLE } from '../../src/store/migrate.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { openStore } from '../../src/store/store.js';
import { removeTempDirs, tempDir } from './helpers/harness.js';

/**
 * A template holding a table the store never makes, so a store opened from it shows which
 * way its database was created.
 */
async function markedTemplate(path: string): Promise<void> {
  const PGlite = await loadPGlite();
  const db = await PGlite.create();
  try {
    await db.exec('CREATE TABLE template_marker (id int)');
    writeFileSync(path, Buffer.from(await (await db.dumpDataDir('gzip')).arrayBuffer()));
  } finally {
    await db.close();
  }
}

/** Whether the database in `dataDir` (no store open on it) has the marker table. */
async function marked(dataDir: string): Promise<boolean> {
  const db = await (await loadPGlite()).create(join(dataDir, PGLITE_DATABASE_DIR));
  try {
    const rows = await db.query("SELECT to_regclass('template_marker') IS NOT NULL AS found");
    return (rows.rows[0] as { found: boolean }).found;
  } finally {
    await db.close();
  }
}

/** Opens a store on an empty data directory, writes and reads a record, and closes it. */
async function firstRun(dataDir: string, template: string, warnings: string[] = []) {
  const store = await openStore({
    kind: 'pglite',
    dataDir,
    template,
    onWarning: (message) => warnings.push(message),
  });
  try {
    await store.appendAudit([{ tool: 'first', decision: 'allow', outcome: 'ok' }]);
    const records = await store.queryAudit({});
    expect(records.map((record) => record.tool)).toEqual(['first']);
  } finally {
    await store.close();
  }
}

describe('the embedded store template', () => {
  let template: string;
  beforeAll(async () => {
    template = join(tempDir(), 'marked.tar.gz');
    await markedTemplate(template);
  });
  afterAll(removeTempDirs);

  it('names the template by the PGlite version and the schema it was made with', () => {
    expect(templateFileName()).toBe(
      `pglite-template-0.5.16-schema${MIGRATIONS.at(-1)?.version}.tar.gz`,
    );
  });

  it('gives a first run its database, migrated and writable, with files the owner’s alone', async () => {
    const dataDir = tempDir();
    await firstRun(dataDir, template);
    expect(await marked(dataDir)).toBe(true);
    const store = join(dataDir, PGLITE_DATABASE_DIR);
    expect(lstatSync(store).mode & 0o777).toBe(0o700);
    expect(lstatSync(join(store, 'PG_VERSION')).mode & 0o777).toBe(0o600);
    // Nothing left beside it from the unpacking.
    expect(readdirSync(dataDir).filter((name) => name.startsWith(PGLITE_DATABASE_DIR))).toEqual([
      PGLITE_DATABASE_DIR,
    ]);
  });

  it('replaces what an unpacking cut short left behind', async () => {
    const dataDir = tempDir();
    const leftover = join(dataDir, `${PGLITE_DATABASE_DIR}.template-1`);
    mkdirSync(join(leftover, 'base'), { recursive: true });
    await firstRun(dataDir, template);
    expect(existsSync(leftover)).toBe(false);
    expect(await marked(dataDir)).toBe(true);
  });

  it('is not used once the database exists', async () => {
    const dataDir = tempDir();
    await firstRun(dataDir, join(dataDir, 'missing.tar.gz'));
    const store = await openStore({ kind: 'pglite', dataDir, template });
    await store.close();
    expect(await marked(dataDir)).toBe(false);
  });

  it('creates the database as before when the template is missing', async () => {
    const dataDir = tempDir();
    const warnings: string[] = [];
    await firstRun(dataDir, join(dataDir, 'missing.tar.gz'), warnings);
    expect(await marked(dataDir)).toBe(false);
    expect(warnings).toEqual([]);
  });

  it('creates the database as before, with a warning, when the template is unreadable', async () => {
    const dataDir = tempDir();
    const broken = join(dataDir, 'broken.tar.gz');
    writeFileSync(broken, 'not an archive');
    const warnings: string[] = [];
    await firstRun(dataDir, broken, warnings);
    expect(await marked(dataDir)).toBe(false);
    expect(warnings.join('\n')).toContain('cannot use the store template');
    expect(readdirSync(dataDir).filter((name) => name.includes('template-'))).toEqual([]);
  });

  it('writes nothing outside the data directory for a member named "../…"', async () => {
    const dataDir = tempDir();
    const work = join(tempDir(), 'work');
    mkdirSync(work);
    writeFileSync(join(work, 'PG_VERSION'), '17\n');
    const hostile = join(dataDir, 'hostile.tar.gz');
    // GNU tar keeps "../" in member names with --absolute-names.
    execFileSync('tar', [
      '-czf',
      hostile,
      '-C',
      work,
      '--absolute-names',
      '--transform',
      's,^,../escaped-,',
      'PG_VERSION',
    ]);
    const warnings: string[] = [];
    await firstRun(dataDir, hostile, warnings);
    expect(warnings.join('\n')).toContain('cannot use the store template');
    expect(readdirSync(join(dataDir, '..')).filter((name) => name.startsWith('escaped-'))).toEqual(
      [],
    );
    expect(await marked(dataDir)).toBe(false);
  });

  it('is what makeTemplate makes', async () => {
    const made = join(tempDir(), 'made.tar.gz');
    await makeTemplate(made);
    expect(existsSync(made)).toBe(true);
    // Every migration applied already: a first run from it has none to run.
    const unpacked = tempDir();
    await unpackTemplate(made, join(unpacked, PGLITE_DATABASE_DIR));
    const db = await (await loadPGlite()).create(join(unpacked, PGLITE_DATABASE_DIR));
    try {
      const applied = await db.query<{ version: number }>(
        `SELECT version FROM ${SCHEMA_TABLE} ORDER BY version`,
      );
      expect(applied.rows.map((row) => row.version)).toEqual(
        MIGRATIONS.map((migration) => migration.version),
      );
    } finally {
      await db.close();
    }
    const dataDir = tempDir();
    const warnings: string[] = [];
    await firstRun(dataDir, made, warnings);
    // An archive it could not unpack would have been reported (and initdb run instead).
    expect(warnings).toEqual([]);
  });
});
