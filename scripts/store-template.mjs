// Makes the embedded store's template (an empty database, see src/store/pglite-template.ts)
// beside the compiled store code, once per PGlite version: a first run unpacks it instead of
// running initdb (seconds and about 700 MiB).
import { existsSync } from 'node:fs';
import { bundledTemplate, makeTemplate } from '../dist/store/pglite-template.js';

const path = bundledTemplate();
if (!existsSync(path)) await makeTemplate(path);
