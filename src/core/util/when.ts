import { HintgateError } from '../errors.js';

const AGO = /^(\d+)(s|m|h|d)$/;
const UNIT_MS: Readonly<Record<string, number>> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * A `--since`/`--until` value as a date: an ISO 8601 date, or a time ago (`30s`, `10m`,
 * `2h`, `7d`) from `now`.
 */
export function parseWhen(value: string, option: string, now = Date.now()): Date {
  const ago = AGO.exec(value);
  if (ago !== null) return new Date(now - Number(ago[1]) * (UNIT_MS[ago[2] ?? 's'] ?? 1_000));
  const time = Date.parse(value);
  if (Number.isNaN(time)) {
    throw new HintgateError(
      'INPUT_INVALID',
      `${option}: expected an ISO 8601 date or a time ago (30s, 10m, 2h, 7d), got "${value}"`,
    );
  }
  return new Date(time);
}
