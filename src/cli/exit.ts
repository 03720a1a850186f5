import type { HintgateErrorCode } from '../core/errors.js';
import { HintgateError, errorMessage } from '../core/errors.js';

/** Process exit codes: 1 means "found problems" (lint), 2 bad input or usage, 3 operational. */
export const EXIT = { ok: 0, findings: 1, usage: 2, failure: 3 } as const;

const EXIT_FOR_CODE: Readonly<Record<HintgateErrorCode, number>> = {
  CONFIG_INVALID: EXIT.usage,
  INPUT_INVALID: EXIT.usage,
  INVALID_ARGUMENTS: EXIT.usage,
  UNKNOWN_TOOL: EXIT.usage,
  NOT_FOUND: EXIT.usage,
  CONFLICT: EXIT.usage,
  FORBIDDEN: EXIT.usage,
  DOWNSTREAM_UNAVAILABLE: EXIT.failure,
  DOWNSTREAM_TIMEOUT: EXIT.failure,
  DOWNSTREAM_CRASHED: EXIT.failure,
  DOWNSTREAM_PROTOCOL: EXIT.failure,
  STORE_UNAVAILABLE: EXIT.failure,
  STORE_LOCKED: EXIT.failure,
  STORE_VERSION: EXIT.failure,
  PIPELINE: EXIT.failure,
  INTERNAL: EXIT.failure,
};

/** The exit code for an error that ended a command. */
export function exitCodeFor(error: unknown): number {
  return error instanceof HintgateError ? EXIT_FOR_CODE[error.code] : EXIT.failure;
}

/** The message printed for an error that ended a command. */
export function messageFor(error: unknown): string {
  if (error instanceof HintgateError) return error.message;
  return `unexpected error: ${errorMessage(error)}`;
}
