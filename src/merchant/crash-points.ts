/**
 * Test-only crash injection: when MERCHANT_CRASH_AT names a point the process reaches, it SIGKILLs
 * itself right there (no handlers, no flushing), so tests can reproduce `kill -9` exactly between
 * the database commit and the broadcast, or between the broadcast and the receipt.
 * MERCHANT_CRASH_KIND (capture | cancel) narrows it to one kind of transaction.
 */
export type CrashPoint = "after-commit" | "after-broadcast";

export function crashPoint(point: CrashPoint, kind: "capture" | "cancel"): void {
  if (process.env.MERCHANT_CRASH_AT !== point) return;
  const only = process.env.MERCHANT_CRASH_KIND;
  if (only !== undefined && only !== "" && only !== kind) return;
  process.kill(process.pid, "SIGKILL");
}
