/**
 * The attack run's tables (markdown) and its verdict: what counts as a failure of the processes under attack (a
 * signature over anything but the honest claim, a frame left unanswered, the enclave's key changed, a refusal by a
 * platform error instead of a named one, a process that stopped answering, a flood call not refused at once).
 */
import { cpus, loadavg, totalmem } from "node:os";
import type { CapResult } from "./codec-caps.js";
import type { MutationRun, Outcome } from "./enclave-attack.js";
import type { FloodResult } from "./host-flood.js";
import type { ClassResult } from "./http-attack.js";

export function machineLine(): string {
  const all = cpus();
  return (
    `${all.length} × ${all[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, ` +
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`
  );
}

const mix = (counts: ReadonlyMap<string, number>): string =>
  [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ×${v}`)
    .join(", ") || "-";

const OUTCOME_COLUMNS: readonly Outcome[] = [
  "refused",
  "closed",
  "no-op",
  "honest claim",
  "answered",
  "violation",
  "hang",
];

export function mutationTable(run: MutationRun): string {
  const lines = [
    "| mutation | sent | refused (Error) | refused (closed) | no-op: the honest result | honest roots, other journal | answered another request | signed other roots | no answer | ms / frame |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  const total = new Map<Outcome, number>();
  for (const [family, outcomes] of [...run.byKind.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
    const sent = [...outcomes.values()].reduce((a, b) => a + b, 0);
    for (const [o, n] of outcomes) total.set(o, (total.get(o) ?? 0) + n);
    const cells = OUTCOME_COLUMNS.map((o) => String(outcomes.get(o) ?? 0));
    lines.push(
      `| ${family} | ${sent} | ${cells.join(" | ")} | ${((run.millis.get(family) ?? 0) / sent).toFixed(0)} |`,
    );
  }
  lines.push(
    `| **all** | **${run.sent}** | ${OUTCOME_COLUMNS.map((o) => `**${total.get(o) ?? 0}**`).join(" | ")} | ${((run.seconds * 1000) / Math.max(1, run.sent)).toFixed(0)} (wall) |`,
  );
  lines.push("", `Refusals by error: ${mix(run.errors)}`);
  lines.push(
    `Signer public key before / after: ${run.signerBefore.slice(0, 18)}… / ${run.signerAfter.slice(0, 18)}… ` +
      `(${run.signerBefore === run.signerAfter ? "unchanged" : "CHANGED"})`,
  );
  return lines.join("\n");
}

export function capTable(results: readonly CapResult[]): string {
  return [
    "| frame | expected | answer | ms | ok |",
    "| --- | --- | --- | --- | --- |",
    ...results.map(
      (r) =>
        `| ${r.name} | ${r.expect} | ${r.result.outcome}: ${r.result.detail} | ${r.millis} | ${r.ok ? "yes" : "**NO**"} |`,
    ),
  ].join("\n");
}

export function httpTable(results: readonly ClassResult[]): string {
  return [
    "| target | class | answers (HTTP status, JSON-RPC code) | slowest ms | alive after |",
    "| --- | --- | --- | --- | --- |",
    ...results.map(
      (r) =>
        `| ${r.target} | ${r.name} | ${mix(r.answers)} | ${r.maxMillis} | ${r.alive ? "yes" : "**NO**"} |`,
    ),
  ].join("\n");
}

export function floodTable(flood: FloodResult, hostAlive: boolean): string {
  return [
    "| single calls | answers | p50 / max ms | batch elements (10 per batch) | answers | held calls after the L2 hung up | host alive |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    `| ${flood.singles} | ${mix(flood.singleCodes)} | ${flood.p50Millis} / ${flood.maxMillis} | ${flood.batches * 10} | ` +
      `${mix(flood.batchCodes)} | ${mix(flood.heldCodes)} | ${hostAlive ? "yes" : "**NO**"} |`,
  ].join("\n");
}

export interface AttackVerdict {
  readonly failures: string[];
}

/**
 * Refusals by the platform's own classes: a refusal all the same, but from a check nobody named (a conversion or
 * a library call that threw before a named check did), so the run counts it as a failure.
 */
const PLATFORM_ERRORS = new Set(["Error", "RangeError", "TypeError", "SyntaxError", "ReferenceError"]);

/** Every failure of the run, in words; empty when the processes held. */
export function verdictOf(parts: {
  readonly mutations?: MutationRun;
  readonly caps?: readonly CapResult[];
  readonly http?: readonly ClassResult[];
  readonly flood?: { readonly result: FloodResult; readonly hostAlive: boolean; readonly slots: number };
}): AttackVerdict {
  const failures: string[] = [];
  const m = parts.mutations;
  if (m !== undefined) {
    for (const v of m.violations) failures.push(`mutation "${v.kind}": ${v.detail}`);
    if (m.signerBefore !== m.signerAfter) failures.push("the enclave's signer key changed");
    const unnamed = [...m.errors].filter(([name]) => PLATFORM_ERRORS.has(name));
    if (unnamed.length > 0)
      failures.push(`refused by a platform error, not a named one: ${mix(new Map(unnamed))}`);
  }
  for (const c of parts.caps ?? [])
    if (!c.ok) failures.push(`cap frame "${c.name}": ${c.result.outcome} ${c.result.detail}`);
  for (const h of parts.http ?? [])
    if (!h.alive) failures.push(`${h.target} stopped answering after "${h.name}"`);
  const f = parts.flood;
  if (f !== undefined) {
    if (!f.hostAlive) failures.push("the host stopped answering after the prover_prove flood");
    const busy = f.result.singleCodes.get("-32005") ?? 0;
    if (busy !== f.result.singles)
      failures.push(`flood: ${f.result.singles - busy} single calls not answered -32005`);
    const batchErrors = [...f.result.batchCodes.entries()]
      .filter(([k]) => k !== "ok")
      .reduce((a, [, n]) => a + n, 0);
    if (batchErrors !== f.result.batches * 10)
      failures.push("flood: a prover_prove inside a batch was not refused");
  }
  return { failures };
}
