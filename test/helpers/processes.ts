import { execFileSync } from 'node:child_process';

/** A live process as `ps` shows it. */
export interface ProcessRow {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly state: string;
  readonly args: string;
}

/** Every process on the machine (zombies, already dead and awaiting their reaper, excluded). */
export function processTable(): ProcessRow[] {
  const out = execFileSync('ps', ['-eo', 'pid=,ppid=,pgid=,stat=,args='], { encoding: 'utf8' });
  const rows: ProcessRow[] = [];
  for (const line of out.split('\n')) {
    const match = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (match === null) continue;
    const state = match[4] as string;
    if (state.startsWith('Z')) continue;
    rows.push({
      pid: Number(match[1]),
      ppid: Number(match[2]),
      pgid: Number(match[3]),
      state,
      args: match[5] as string,
    });
  }
  return rows;
}

/** Every descendant of `pid` (children, grandchildren, ...). */
export function descendants(pid: number, table = processTable()): ProcessRow[] {
  const found: ProcessRow[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift() as number;
    for (const row of table) {
      if (row.ppid === parent) {
        found.push(row);
        queue.push(row.pid);
      }
    }
  }
  return found;
}

/** Processes still alive among `pids`, or still in one of `groups`. */
export function survivors(pids: readonly number[], groups: readonly number[]): ProcessRow[] {
  const table = processTable();
  return table.filter((row) => pids.includes(row.pid) || groups.includes(row.pgid));
}

/** Polls until `check` holds or `timeoutMs` passes; returns the last value. */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  check: (value: T) => boolean,
  timeoutMs: number,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await probe();
  while (!check(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, everyMs));
    value = await probe();
  }
  return value;
}

/** Whether a process of this pid runs (or is a zombie awaiting its reaper). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
