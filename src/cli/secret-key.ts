import type { Config } from '../config/schema.js';

/**
 * The secret that seals stored OAuth tokens: the config's `secretKey`, else the environment's
 * `HINTGATE_SECRET_KEY`; undefined when neither is set (tokens then cannot be stored or read).
 */
export function secretKeyOf(
  config: Config,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined {
  const fromEnv = env['HINTGATE_SECRET_KEY'];
  return config.secretKey ?? (fromEnv === undefined || fromEnv === '' ? undefined : fromEnv);
}
