/**
 * Process groups of spawned servers. Every stdio server is spawned as the leader of its own
 * group, so one signal reaches whatever it started (an `npx` wrapper's node child, a shell
 * pipeline). The registry lets the gateway kill every group it still owns when it exits,
 * even abruptly.
 */

const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** Sends `signal` to the whole group led by `pid`; false when no process of it is left. */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    // EPERM: the group exists but is not ours to signal (should not happen for our children).
    return true;
  }
}

/** True while any process of the group led by `pid` is alive. */
export function isGroupAlive(pid: number): boolean {
  return signalGroup(pid, 0);
}

/** Remembers a group so that {@link killAllGroups} and process exit reach it. */
export function registerGroup(pid: number): void {
  liveGroups.add(pid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Last resort: if the gateway exits without closing its servers, leave no orphans.
    process.once('exit', killAllGroups);
  }
}

/** Forgets a group whose processes are all gone. */
export function unregisterGroup(pid: number): void {
  liveGroups.delete(pid);
}

/** SIGKILLs every registered group, synchronously. */
export function killAllGroups(): void {
  for (const pid of liveGroups) signalGroup(pid, 'SIGKILL');
  liveGroups.clear();
}

/**
 * Waits until the group led by `pid` is empty, polling, for at most `timeoutMs`. Resolves
 * true when it emptied.
 */
export async function waitForGroupExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let delay = 5;
  while (isGroupAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 50);
  }
  return true;
}
