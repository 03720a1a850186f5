import { isJsonObject } from './json-rpc.js';

/**
 * The client capability asking a hintgate gateway for each tool's full provenance in
 * tools/list (`_meta["dev.hintgate/tool"]` with the server, names, refId, the source of every
 * value, notes and override scopes): `capabilities.experimental["dev.hintgate/provenance"]`,
 * any object. Without it a client gets the compact form.
 */
export const PROVENANCE_CAPABILITY = 'dev.hintgate/provenance';

/** The capabilities that ask for provenance, to merge into a client's own. */
export function provenanceCapabilities(): {
  experimental: { readonly [PROVENANCE_CAPABILITY]: Record<string, never> };
} {
  return { experimental: { [PROVENANCE_CAPABILITY]: {} } };
}

/** True when capabilities (a client's from `initialize` or a 2026 envelope) ask for provenance. */
export function declaresProvenance(capabilities: unknown): boolean {
  if (!isJsonObject(capabilities)) return false;
  const experimental = capabilities['experimental'];
  return isJsonObject(experimental) && isJsonObject(experimental[PROVENANCE_CAPABILITY]);
}
