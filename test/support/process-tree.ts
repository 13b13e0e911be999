/** The command lines of a process and everything below it, read from Linux's /proc (what `ps` shows any local user). */
import { readFileSync, readdirSync } from "node:fs";

/** Command lines of `root` and every process below it (Linux /proc); [] elsewhere. */
export function treeCommandLines(root: number): string[] {
  if (process.platform !== "linux") return [];
  const parent = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // Field 4 (ppid) follows the command name in parentheses, which may hold spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parent.set(Number(name), ppid);
    } catch {
      // The process exited meanwhile.
    }
  }
  const lines: string[] = [];
  for (const pid of parent.keys()) {
    let p: number | undefined = pid;
    while (p !== undefined && p > 1 && p !== root) p = parent.get(p);
    if (p !== root) continue;
    try {
      lines.push(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" "));
    } catch {
      // Exited.
    }
  }
  return lines;
}

/**
 * Samples the command lines below `root` into `seen` every `intervalMs` (short-lived children, such as a deployer
 * that runs for a second, are caught); the returned function takes a last sample and stops.
 */
export function sampleCommandLines(root: number, seen: Set<string>, intervalMs = 25): () => void {
  const sample = () => {
    for (const line of treeCommandLines(root)) seen.add(line);
  };
  const timer = setInterval(sample, intervalMs);
  return () => {
    clearInterval(timer);
    sample();
  };
}
