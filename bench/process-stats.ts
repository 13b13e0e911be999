/** What Linux's /proc says of a process the benches started: its CPU time and its peak resident set. */
import { readFileSync, writeFileSync } from "node:fs";

/** The process's peak resident set (VmHWM) in MiB, undefined once it is gone. */
export function peakRssMiB(pid: number): number | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8")
      .split("\n")
      .find((l) => l.startsWith("VmHWM:"));
    return line === undefined ? undefined : Number(line.split(/\s+/)[1]) / 1024;
  } catch {
    return undefined;
  }
}

/**
 * The CPU time the process used so far, all its threads (user + system, /proc/PID/stat), in seconds; undefined once
 * it is gone.
 */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The fields after the command name (which may hold spaces, so counted from its closing parenthesis):
    // utime and stime are the 14th and 15th fields of the line, in clock ticks (100 per second on Linux).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** Resets the process's peak RSS (Linux clear_refs 5); false where the kernel refuses. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}
