/**
 * The shape of a conformance check and the runner that turns each one into PASS, FAIL or SKIP.
 * A check passes by returning (optionally a detail string), fails by throwing, and skips by throwing
 * `CheckSkipped` with the reason. Every check names the spec requirement it covers.
 */
import { ConformanceError, type ConformanceErrorOptions } from "./errors.js";

export type CheckStatus = "PASS" | "FAIL" | "SKIP";

export type TargetKind = "enclave" | "host" | "node";

export interface Check<Context> {
  /** Stable identifier, e.g. `enclave.content-verification.keccak256`. */
  readonly id: string;
  /** The requirement covered, quoted from the spec (e.g. `safety 4: every hash-keyed preimage is content-verified`). */
  readonly covers: string;
  run(context: Context): Promise<string | void>;
}

export interface CheckResult {
  readonly id: string;
  readonly target: TargetKind;
  readonly covers: string;
  readonly status: CheckStatus;
  /** Why it failed or was skipped, or what was observed when it passed. */
  readonly detail: string;
}

/** Thrown by a check that does not apply to the implementation under test; the message is the reason. */
export class CheckSkipped extends ConformanceError<"check-skipped"> {
  override readonly name = "CheckSkipped";
  constructor(message: string, options: ConformanceErrorOptions = {}) {
    super(message, { kind: "check-skipped", ...options });
  }
}

/** Thrown by a check when the implementation does not conform; the message says what was observed. */
export class CheckFailed extends ConformanceError<"check-failed"> {
  override readonly name = "CheckFailed";
  constructor(message: string, options: ConformanceErrorOptions = {}) {
    super(message, { kind: "check-failed", ...options });
  }
}

/** A check that did not finish within its time limit. */
export class CheckTimeoutError extends ConformanceError<"check-timeout"> {
  override readonly name = "CheckTimeoutError";
  constructor(
    readonly check: string,
    readonly timeoutMs: number,
  ) {
    super(`${check} did not finish within ${timeoutMs} ms`, {
      kind: "check-timeout",
      details: { check, timeoutMs },
    });
  }
}

/** Throws CheckFailed with `message` unless `condition` holds. */
export function expectThat(condition: boolean, message: string): asserts condition {
  if (!condition) throw new CheckFailed(message);
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number, id: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckTimeoutError(id, timeoutMs)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Runs one check; never throws. */
export async function runCheck<Context>(
  target: TargetKind,
  check: Check<Context>,
  context: Context,
  timeoutMs: number,
): Promise<CheckResult> {
  const base = { id: check.id, target, covers: check.covers };
  try {
    const detail = await withTimeout(check.run(context), timeoutMs, check.id);
    return { ...base, status: "PASS", detail: detail ?? "" };
  } catch (error) {
    if (error instanceof CheckSkipped) return { ...base, status: "SKIP", detail: error.message };
    const message =
      error instanceof Error
        ? `${error.name === "CheckFailed" ? "" : `${error.name}: `}${error.message}`
        : String(error);
    return { ...base, status: "FAIL", detail: message };
  }
}

/** One output line: `PASS <id> [<covers>] <detail>`. */
export function formatResult(result: CheckResult): string {
  const detail = result.detail === "" ? "" : ` ${result.status === "PASS" ? "" : "— "}${result.detail}`;
  return `${result.status} ${result.id} [${result.covers}]${detail}`;
}

export function formatSummary(results: readonly CheckResult[]): string {
  const count = (status: CheckStatus) => results.filter((r) => r.status === status).length;
  return `${count("PASS")} passed, ${count("FAIL")} failed, ${count("SKIP")} skipped`;
}
