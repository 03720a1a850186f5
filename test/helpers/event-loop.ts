/** Resolves after `ms`. */
export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Keeps this process's event loop busy for `ms`, in short turns of work with the loop let go
 * between them, as a gateway serving calls: its utilization stays near 1.
 */
export async function busyFor(ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const turn = Date.now() + 5;
    while (Date.now() < turn) {
      // a turn of work
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}
