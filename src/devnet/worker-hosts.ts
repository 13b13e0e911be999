/**
 * The devnet's worker hosts (`--provers N`) under supervision (docs/devnet.md "Several provers"). A worker host that
 * dies (a crash, `kill -9`) is started again after a back-off, in front of the same enclave (whose signer stays
 * registered) and on the same port; the job it held returns to the queue at once (the devnet saw its process die and
 * ends the leases it held: `died`), else when its lease expires. A host whose
 * restarts keep dying soon after they start is given up; the devnet goes on with the others, and when the last one
 * is given up it stops with a failure rather than run a proposer that nothing proves for.
 */
import type { ServiceChild } from "./child.js";

export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface WorkerRestartPolicy {
  /** Restarts in a row that may die within `healthyAfterMs` of their start before the host is given up (0: never restart). */
  readonly maxFailedRestarts: number;
  /** Delay before the first restart; doubled per failed restart up to `maxDelayMs`. */
  readonly firstDelayMs: number;
  readonly maxDelayMs: number;
  /** A host that ran this long had a good run: its next death starts the count over. */
  readonly healthyAfterMs: number;
}

export const DEFAULT_WORKER_RESTART_POLICY: WorkerRestartPolicy = {
  maxFailedRestarts: 3,
  firstDelayMs: 1_000,
  maxDelayMs: 30_000,
  healthyAfterMs: 60_000,
};

/** A supervised worker host as one part of the devnet. */
export interface SupervisedHost {
  readonly name: string;
  /** The running host's process id (a restart changes it). */
  readonly pid: number | undefined;
  /** Resolves only when this host is given up and no other worker host is left. */
  readonly exited: Promise<ChildExit>;
  /** Stops the running host (and any restart pending). */
  stop(graceMs: number): Promise<void>;
}

export interface WorkerHostGroupOptions {
  readonly policy: WorkerRestartPolicy;
  /** The devnet's own report lines. */
  readonly report: (line: string) => void;
  /** Called after a restart (the devnet records its children's process ids). */
  readonly restarted: () => void;
  /** True once the devnet stops its parts: a host's exit is then no news. */
  readonly stopping: () => boolean;
  /**
   * Called with the process id of a host that died (reaped, so it holds nothing any more): ends the leases it held,
   * returning how many. Without it (or when it fails, or gives no answer within `diedTimeoutMs`) the jobs wait out
   * their leases; the restart never waits longer than that on it.
   */
  readonly died?: (pid: number) => Promise<number>;
  /** How long a restart waits on `died` (default 10 s: an unreachable queue database must not stall supervision). */
  readonly diedTimeoutMs?: number;
}

const DEFAULT_DIED_TIMEOUT_MS = 10_000;

const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/** The worker hosts of one devnet: each restarted when it dies, until given up; the last one given up ends it. */
export class WorkerHostGroup {
  private left = 0;

  constructor(private readonly options: WorkerHostGroupOptions) {}

  /** Supervises `first`; `restart` starts the host again. */
  supervise(first: ServiceChild, restart: () => ServiceChild): SupervisedHost {
    const { policy, report, stopping } = this.options;
    this.left += 1;
    let current = first;
    let startedAtMs = Date.now();
    let restarts = 0;
    let failedRestarts = 0;
    let stopped = false;
    let pending: NodeJS.Timeout | undefined;
    let giveUp!: (exit: ChildExit) => void;
    const exited = new Promise<ChildExit>((resolve) => (giveUp = resolve));
    /** What becomes of the dead host's job: returned at once, or when its lease expires. */
    const released = async (pid: number | undefined): Promise<string> => {
      if (this.options.died === undefined || pid === undefined)
        return "its job returns to the queue when its lease expires";
      const timeoutMs = this.options.diedTimeoutMs ?? DEFAULT_DIED_TIMEOUT_MS;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${seconds(timeoutMs)}`)), timeoutMs);
      });
      try {
        const ended = await Promise.race([this.options.died(pid), timedOut]);
        return ended > 0 ? `its ${ended} job(s) returned to the queue at once` : "it held no job";
      } catch (error) {
        return `its job returns to the queue when its lease expires (ending its lease failed: ${error instanceof Error ? error.message : String(error)})`;
      } finally {
        clearTimeout(timer);
      }
    };
    const watch = (child: ServiceChild): void => {
      void child.exited.then(async (exit) => {
        if (stopped || stopping()) return;
        const ranMs = Date.now() - startedAtMs;
        const jobs = await released(child.pid);
        if (stopped || stopping()) return;
        failedRestarts = restarts > 0 && ranMs < policy.healthyAfterMs ? failedRestarts + 1 : 0;
        const what = `[devnet] ${first.name} exited (code ${exit.code}, signal ${exit.signal}) after ${seconds(ranMs)}`;
        if (failedRestarts >= policy.maxFailedRestarts) {
          this.left -= 1;
          report(
            `${what}; given up${policy.maxFailedRestarts === 0 ? " (no restarts)" : ` after ${failedRestarts} restart(s) in a row died within ${seconds(policy.healthyAfterMs)}`}` +
              (this.left > 0
                ? `; ${this.left} worker host(s) go on, ${jobs}`
                : "; no worker host is left: stopping the devnet"),
          );
          if (this.left === 0) giveUp(exit);
          return;
        }
        const delayMs = Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** failedRestarts);
        report(`${what}; restarting it in ${seconds(delayMs)} (${jobs})`);
        pending = setTimeout(() => {
          pending = undefined;
          if (stopped || stopping()) return;
          restarts += 1;
          current = restart();
          startedAtMs = Date.now();
          report(`[devnet] ${first.name} restarted (pid ${current.pid}, restart ${restarts})`);
          this.options.restarted();
          watch(current);
        }, delayMs);
      });
    };
    watch(first);
    return {
      name: first.name,
      get pid() {
        return current.pid;
      },
      exited,
      async stop(graceMs: number): Promise<void> {
        stopped = true;
        if (pending !== undefined) clearTimeout(pending);
        await current.stop(graceMs);
      },
    };
  }
}
