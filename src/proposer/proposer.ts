/**
 * The proposer loop (docs/proposer.md "What it does"): read AggregateVerifier's latestBlock and intervals; once the
 * node's safe head reaches latestBlock + BLOCK_INTERVAL, prove that range through the host (agreed = the parent's
 * end, L1 head = the L1 block the node had derived up to, a few confirmations deep), submit propose(), wait for the
 * receipt and log one line. Every error is logged and retried after a growing back-off; only stop() ends the loop.
 * With a proof job queue configured the proposer schedules instead (scheduler.ts).
 */
import { bytesToHex } from "viem";
import type { Logger } from "../log/index.js";
import { startStepLoop, type StepLoop } from "../service-kit/index.js";
import type { ProposerConfig } from "./config.js";
import { proposerRanges, type RunningProposer } from "./ranges.js";
import { startScheduler } from "./scheduler.js";

export type { LandedProposal, RunningProposer } from "./ranges.js";

export function startProposer(config: ProposerConfig, deps: { readonly logger: Logger }): RunningProposer {
  if (config.queue !== undefined) return startScheduler(config, config.queue, deps);
  const { logger } = deps;
  const ranges = proposerRanges(config, logger);
  const { account, prover } = ranges;

  /** One step: proposes the next range when it is safe; "waiting" when it is not yet. */
  async function step(loop: StepLoop): Promise<"again" | "wait"> {
    const c = await ranges.immutables();
    const latest = await ranges.latestBlock();
    const end = latest + c.blockInterval;
    const status = await ranges.syncStatus();
    if (status.safe_l2.number < end) {
      logger.debug(
        { latestBlock: latest, next: end, safe: status.safe_l2.number },
        "waiting for the safe head",
      );
      return "wait";
    }
    // The node had derived the range from L1 up to current_l1: that block is the proof's L1 head.
    const l1Head = status.current_l1;
    const request = await ranges.request(latest, end, l1Head);
    await ranges.checkParent(latest, request.agreed_l2_output_root);
    logger.info(
      { start: latest, end, l1Head: bytesToHex(l1Head.hash), l1HeadNumber: l1Head.number },
      "proving",
    );
    // The L1 head's confirmations accrue while the proof runs (waiting first would add up to an L1 slot to
    // every proposal); it is checked to be deep enough and still canonical before anything is submitted.
    const proveStart = Date.now();
    let proveMs = 0;
    const confirmed = async (): Promise<boolean> => {
      while (!loop.stopping && !(await ranges.l1HeadDeepEnough(l1Head.number)))
        await loop.sleep(config.pollIntervalMs);
      return !loop.stopping;
    };
    const [result, ready] = await Promise.all([
      prover.prover_prove(request).then((r) => {
        proveMs = Date.now() - proveStart;
        return r;
      }),
      confirmed(),
    ]);
    if (!ready) return "wait";
    await ranges.checkCanonical(request);
    await ranges.propose(latest, request, result, proveMs);
    // Catching up: after a landed proposal the next range is tried at once.
    return "again";
  }

  logger.info({ proposer: account.address, verifier: config.verifier }, "proposer started");
  const loop = startStepLoop(step, {
    pollIntervalMs: config.pollIntervalMs,
    maxBackoffMs: config.maxBackoffMs,
    logger,
    failureMessage: "proposal attempt failed",
  });
  return {
    address: account.address,
    done: loop.done.then(() => logger.info("proposer stopped")),
    stop: (graceMs) => loop.stop(graceMs),
  };
}
