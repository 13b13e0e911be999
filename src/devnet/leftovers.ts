/**
 * Children a killed devnet left behind. `npm start` records the process ids of what it starts (anvil, node, batcher,
 * merchant) in `<data-dir>/devnet.pids`; if the devnet itself dies without stopping them (`kill -9`, a crash), they
 * keep running on its ports and its data. The next start on that data directory stops them first: each recorded
 * process that still runs and whose command line names the data directory, or whose environment has
 * `DEVNET_CHILD_OF=<data-dir>` (children whose flags name no file there: the proposer, the challenger), so a
 * recycled id is never touched, gets SIGTERM, then SIGKILL after a grace period. Linux reads command lines from /proc; elsewhere nothing is stopped.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const PIDS_FILE = "devnet.pids";

/** The environment variable that marks a child of the devnet on a data directory (its value). */
export const CHILD_MARK = "DEVNET_CHILD_OF";

/** Records the running children of this devnet (replacing any earlier record). */
export function recordChildren(dataDir: string, pids: readonly number[]): void {
  writeFileSync(join(dataDir, PIDS_FILE), `${JSON.stringify({ pids })}\n`);
}

/** Forgets the record (all children stopped). */
export function forgetChildren(dataDir: string): void {
  rmSync(join(dataDir, PIDS_FILE), { force: true });
}

/** Whether `pid` runs (a zombie nobody reaped yet does not). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state …"; comm may hold spaces and parentheses, the state follows the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}

/** Whether `pid`'s command line names `dataDir` or its environment carries the mark (false when unreadable). */
function belongsTo(pid: number, dataDir: string): boolean {
  const entries = (file: string): string[] => {
    try {
      return readFileSync(`/proc/${pid}/${file}`, "utf8").split("\0");
    } catch {
      return [];
    }
  };
  return (
    entries("cmdline").some((arg) => arg.includes(dataDir)) ||
    entries("environ").includes(`${CHILD_MARK}=${dataDir}`)
  );
}

/**
 * Stops the recorded children of an earlier devnet on `dataDir` that still run; resolves with their ids once they
 * are gone (SIGKILL after `graceMs`).
 */
export async function stopLeftovers(dataDir: string, graceMs = 15_000): Promise<number[]> {
  const file = join(dataDir, PIDS_FILE);
  if (!existsSync(file)) return [];
  let pids: number[];
  try {
    const value = JSON.parse(readFileSync(file, "utf8")) as { pids?: unknown };
    pids = Array.isArray(value.pids)
      ? value.pids.filter((p): p is number => Number.isInteger(p) && p > 1)
      : [];
  } catch {
    pids = [];
  }
  const leftovers = pids.filter((pid) => alive(pid) && belongsTo(pid, dataDir));
  for (const pid of leftovers) process.kill(pid, "SIGTERM");
  // Not our children: no exit event to wait on, so their liveness is polled.
  const deadline = Date.now() + graceMs;
  while (leftovers.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  for (const pid of leftovers.filter(alive)) process.kill(pid, "SIGKILL");
  const killDeadline = Date.now() + 5_000;
  while (leftovers.some(alive) && Date.now() < killDeadline) await new Promise((r) => setTimeout(r, 50));
  forgetChildren(dataDir);
  return leftovers;
}
