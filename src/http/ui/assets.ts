/**
 * The dashboard's assets (one stylesheet, one script, the icon), read once from `src/web`
 * (or `dist/web` once built) and served under versioned URLs: a URL names its content's
 * hash, so a browser keeps the file until the gateway serves another one.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { UI } from './paths.js';

/** The served files and their types. */
export const ASSET_TYPES: Readonly<Record<string, string>> = {
  'dashboard.css': 'text/css; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};

interface Asset {
  readonly text: string;
  readonly version: string;
}

const assets = new Map<string, Asset>();

/** An asset's text and version (its content's hash), read once; undefined for no such file. */
export function asset(name: string): Asset | undefined {
  if (ASSET_TYPES[name] === undefined) return undefined;
  let found = assets.get(name);
  if (found === undefined) {
    const text = readFileSync(new URL(`../../web/${name}`, import.meta.url), 'utf8');
    found = { text, version: createHash('sha256').update(text).digest('hex').slice(0, 12) };
    assets.set(name, found);
  }
  return found;
}

/** The URL of an asset, with its version. */
export function assetUrl(name: string): string {
  return `${UI}/assets/${name}?v=${asset(name)?.version ?? ''}`;
}
