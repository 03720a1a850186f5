// Copies the dashboard's static files (src/web) next to the compiled code (dist/web), where
// the dashboard serves them from.
import { cpSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
cpSync(join(root, 'src/web'), join(root, 'dist/web'), { recursive: true });
