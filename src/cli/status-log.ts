import { appendFileSync, chmodSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../core/errors.js';

/** The gateway's own log file, beside the servers' logs in `<dataDir>/logs/`. */
export const STATUS_LOG_FILE = 'gateway.log';

/** Past this size the log is moved to `gateway.log.1` (replacing it) and started anew. */
export const STATUS_LOG_MAX_BYTES = 1024 * 1024;

/** Where a gateway's status lines go besides stderr. */
export interface StatusLog {
  /** The file's path. */
  readonly path: string;
  /** Appends one line, with the time in front. Never throws. */
  write(line: string): void;
}

/**
 * Opens `<dataDir>/logs/gateway.log` (0600, in a 0700 directory, like the servers' logs) for
 * the gateway's status lines, so that a desktop client's user, whose client keeps stderr to
 * itself, can read why a server is down. Lines are written synchronously (the one saying why
 * the gateway stops is not lost when it exits); the file is bounded: past `maxBytes` it
 * becomes `gateway.log.1` and a new one starts, so at most twice that is kept. A log that
 * cannot be written is reported once through `onError` and then skipped.
 */
export function openStatusLog(
  dataDir: string,
  {
    maxBytes = STATUS_LOG_MAX_BYTES,
    onError = () => undefined,
  }: { maxBytes?: number; onError?: (message: string) => void } = {},
): StatusLog {
  const dir = join(dataDir, 'logs');
  const path = join(dir, STATUS_LOG_FILE);
  let size = 0;
  let broken = false;
  const fail = (error: unknown): void => {
    if (broken) return;
    broken = true;
    onError(`cannot write ${path}: ${errorMessage(error)}`);
  };
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    appendFileSync(path, '', { mode: 0o600 });
    chmodSync(path, 0o600);
    size = statSync(path).size;
  } catch (error) {
    fail(error);
  }
  return {
    path,
    write(line) {
      if (broken) return;
      // The pid tells apart the gateways of several desktop clients on one data directory.
      const text = `${new Date().toISOString()} [${process.pid}] ${line.replace(/\n/g, '\n  ')}\n`;
      const bytes = Buffer.byteLength(text);
      try {
        if (size > 0 && size + bytes > maxBytes) {
          renameSync(path, `${path}.1`);
          size = 0;
        }
        appendFileSync(path, text, { mode: 0o600 });
        size += bytes;
      } catch (error) {
        fail(error);
      }
    },
  };
}
