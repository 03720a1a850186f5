/** An error line as runtimes print it: `Error: …`, `TypeError: …`, `ModuleNotFoundError: …`. */
const ERROR_LINE = /^(?:Uncaught )?(?:[A-Z][\w.]*)?(?:Error|Exception)\b[^:]{0,40}:\s*\S/;
/** A line that says something failed, in the words programs use. */
const FAILURE_WORDS =
  /\b(?:error|fatal|panic|cannot|can't|could not|failed|not found|no such|denied|refused|EADDRINUSE|ENOENT|EACCES)\b/i;

/**
 * The line of a crashed server's stderr that says what happened (`Error: Cannot find module
 * '…'`), rather than what it printed last (the closing brace of an error object, the
 * runtime's version). Stack frames are skipped; the first error line wins, else the last line
 * with a failure word, else the last three lines.
 */
export function stderrReason(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('at '));
  const error = lines.find((line) => ERROR_LINE.test(line));
  if (error !== undefined) return error;
  const failure = lines.findLast((line) => FAILURE_WORDS.test(line));
  if (failure !== undefined) return failure;
  return lines.slice(-3).join(' | ');
}
