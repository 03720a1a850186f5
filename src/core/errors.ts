/**
 * Codes for every operational or protocol error hintgate raises. Each edge (JSON-RPC, HTTP,
 * process exit) maps codes through one table of its own.
 */
export const HINTGATE_ERROR_CODES = [
  'CONFIG_INVALID',
  'INPUT_INVALID',
  'DOWNSTREAM_UNAVAILABLE',
  'DOWNSTREAM_TIMEOUT',
  'DOWNSTREAM_CRASHED',
  'DOWNSTREAM_PROTOCOL',
  'STORE_UNAVAILABLE',
  'STORE_LOCKED',
  'STORE_VERSION',
  'UNKNOWN_TOOL',
  'INVALID_ARGUMENTS',
  'NOT_FOUND',
  'CONFLICT',
  'FORBIDDEN',
  'PIPELINE',
  'INTERNAL',
] as const;

/** One of {@link HINTGATE_ERROR_CODES}. */
export type HintgateErrorCode = (typeof HINTGATE_ERROR_CODES)[number];

const CODES: ReadonlySet<unknown> = new Set(HINTGATE_ERROR_CODES);

/** True for a known error code (an error that crossed a process boundary, say). */
export function isHintgateErrorCode(value: unknown): value is HintgateErrorCode {
  return CODES.has(value);
}

/**
 * The one error class of hintgate. `code` says what kind of failure it is, `message` names
 * the thing that was wrong, `details` carries structured context and `cause` the original.
 */
export class HintgateError extends Error {
  constructor(
    readonly code: HintgateErrorCode,
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** True when `error` is a {@link HintgateError}, optionally of the given code. */
export function isHintgateError(error: unknown, code?: HintgateErrorCode): error is HintgateError {
  return error instanceof HintgateError && (code === undefined || error.code === code);
}

/** A readable message for any thrown value. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : JSON.stringify(error);
}
