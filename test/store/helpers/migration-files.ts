import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The folder of the `.sql` migrations, the source of truth. */
export const MIGRATIONS_DIR = fileURLToPath(
  new URL('../../../src/store/migrations/', import.meta.url),
);

/** The generated module that embeds them. */
export const MIGRATIONS_MODULE = `${MIGRATIONS_DIR}index.ts`;

/** One `.sql` file: `NNN-name.sql`. */
export interface MigrationFile {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Reads every `NNN-name.sql` file, in version order. */
export function readMigrationFiles(): MigrationFile[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => {
      const match = /^(\d{3})-([a-z0-9-]+)\.sql$/.exec(file);
      if (match === null) throw new Error(`${file}: migration files are named NNN-name.sql`);
      return {
        version: Number(match[1]),
        name: match[2]!,
        sql: readFileSync(`${MIGRATIONS_DIR}${file}`, 'utf8'),
      };
    });
}

function templateLiteral(text: string): string {
  return `\`${text.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${')}\``;
}

/** The text of `src/store/migrations/index.ts` for these files. */
export function renderMigrationsModule(files: readonly MigrationFile[]): string {
  const entries = files
    .map(
      (file) =>
        `  {\n    version: ${file.version},\n    name: '${file.name}',\n    sql: ${templateLiteral(file.sql)},\n  },\n`,
    )
    .join('');
  return `/**
 * The SQL migrations, embedded so that they ship in \`dist/\` (the build copies only .ts files).
 * Generated: the \`NNN-name.sql\` files beside this one are the source of truth, and
 * test/store/migration-files.test.ts fails when this file differs from them. To regenerate it:
 * \`HINTGATE_UPDATE_MIGRATIONS=1 npx vitest run test/store/migration-files.test.ts\`.
 */

/** One migration: its version (the file's number), its name and its SQL. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Every migration, in version order. */
export const MIGRATIONS: readonly Migration[] = [
${entries}];
`;
}
