/**
 * The proposer loop (docs/proposer.md "What it does"): read AggregateVerifier's latestBlock and intervals; once the
 * node's safe head reaches latestBlock + BLOCK_INTERVAL, prove that range through the host (agreed = the parent's
 * end, L1 head = the L1 block the node had derived up to, a few confirmations deep), submit propose(), wait for the
 * receipt and log one line. Every error is logged and retried after a growing back-off; only stop() ends the loop.
 */
import { type Address, type Hex, bytesToHex, decodeEventLog, hexToBytes } from "viem";
import type { ProofRequest } from "../../generated/rpc/index.js";
import type { Logger } from "../log/index.js";
import {
  aggregateVerifierAbi,
  type OnchainProposal,
  proposeArguments,
  type VerifierIntervals,
} from "../proof/onchain/index.js";
import { startStepLoop, type StepLoop, verifierServiceClients } from "../service-kit/index.js";
import type { ProposerConfig } from "./config.js";
import { L1HeadReorgedError, ParentMismatchError, ProposeRevertedError } from "./errors.js";

/** One landed proposal, as logged. */
export interface LandedProposal {
  readonly id: bigint;
  readonly startingBlock: bigint;
  readonly endingBlock: bigint;
  readonly rootClaim: Hex;
  readonly l1Head: Hex;
  readonly l1HeadNumber: bigint;
  readonly transactionHash: Hex;
  readonly proveMs: number;
  readonly submitMs: number;
}

export interface RunningProposer {
  readonly address: Address;
  /** Resolves when the loop has ended (after stop()). */
  readonly done: Promise<void>;
  /** Ends the loop: an in-flight proof or transaction is abandoned after `graceMs` (default 10 s). */
  stop(graceMs?: number): Promise<void>;
}

const hex = (bytes: Uint8Array): Hex => bytesToHex(bytes);

export function startProposer(config: ProposerConfig, deps: { readonly logger: Logger }): RunningProposer {
  const { logger } = deps;
  const { account, l1, wallet, node, prover } = verifierServiceClients(config);
  const verifier = config.verifier;
  const read = <T>(functionName: string, args: readonly unknown[] = []): Promise<T> =>
    l1.readContract({
      address: verifier,
      abi: aggregateVerifierAbi,
      functionName,
      args,
    } as never) as Promise<T>;

  let intervals: (VerifierIntervals & { anchorBlock: bigint; anchorRoot: Hex }) | undefined;
  async function immutables() {
    intervals ??= {
      blockInterval: await read<bigint>("BLOCK_INTERVAL"),
      intermediateBlockInterval: await read<bigint>("INTERMEDIATE_BLOCK_INTERVAL"),
      anchorBlock: await read<bigint>("ANCHOR_BLOCK"),
      anchorRoot: await read<Hex>("ANCHOR_ROOT"),
    };
    return intervals;
  }

  /** The root the next proposal starts from: the anchor's, or the live proposal ending at `latest`. */
  async function parentRoot(latest: bigint, c: Awaited<ReturnType<typeof immutables>>): Promise<Hex> {
    if (latest === c.anchorBlock) return c.anchorRoot;
    const id = await read<bigint>("proposalAt", [latest - c.blockInterval, latest]);
    return (await read<OnchainProposal>("getProposal", [id])).rootClaim;
  }

  /** One step: proposes the next range when it is safe; "waiting" when it is not yet. */
  async function step(loop: StepLoop): Promise<"again" | "wait"> {
    const c = await immutables();
    const latest = await read<bigint>("latestBlock");
    const end = latest + c.blockInterval;
    const status = await node.optimism_syncStatus();
    if (status.safe_l2.number < end) {
      logger.debug(
        { latestBlock: latest, next: end, safe: status.safe_l2.number },
        "waiting for the safe head",
      );
      return "wait";
    }
    // The node had derived the range from L1 up to current_l1: that block is the proof's L1 head.
    const l1Head = status.current_l1;
    const [agreed, claimed, onchainParent] = await Promise.all([
      node.optimism_outputAtBlock(latest),
      node.optimism_outputAtBlock(end),
      parentRoot(latest, c),
    ]);
    if (hex(agreed.outputRoot) !== onchainParent.toLowerCase())
      throw new ParentMismatchError({
        block: latest,
        onchainRoot: onchainParent,
        nodeRoot: hex(agreed.outputRoot),
      });
    const request: ProofRequest = {
      l1_head: l1Head.hash,
      l1_head_number: l1Head.number,
      agreed_l2_head_hash: agreed.blockRef.hash,
      agreed_l2_output_root: agreed.outputRoot,
      claimed_l2_output_root: claimed.outputRoot,
      claimed_l2_block_number: end,
      proposer: hexToBytes(account.address),
      intermediate_block_interval: c.intermediateBlockInterval,
    };
    logger.info({ start: latest, end, l1Head: hex(l1Head.hash), l1HeadNumber: l1Head.number }, "proving");
    // The L1 head's confirmations accrue while the proof runs (waiting first would add up to an L1 slot to
    // every proposal); it is checked to be deep enough and still canonical before anything is submitted.
    const proveStart = Date.now();
    let proveMs = 0;
    const confirmed = async (): Promise<boolean> => {
      const depth = l1Head.number + BigInt(config.l1Confirmations);
      while (!loop.stopping && (await l1.getBlockNumber()) < depth) await loop.sleep(config.pollIntervalMs);
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
    const canonical = await l1.getBlock({ blockNumber: l1Head.number });
    if (canonical.hash !== hex(l1Head.hash))
      throw new L1HeadReorgedError({
        number: l1Head.number,
        expected: hex(l1Head.hash),
        actual: canonical.hash,
      });
    const args = proposeArguments(result, latest, c);

    const submitStart = Date.now();
    const { request: tx } = await l1.simulateContract({
      address: verifier,
      abi: aggregateVerifierAbi,
      functionName: "propose",
      args: [args.endingBlock, args.rootClaim, [...args.intermediateRoots], args.proof],
      account,
    });
    const transactionHash = await wallet.writeContract({ ...tx, chain: null });
    const receipt = await l1.waitForTransactionReceipt({ hash: transactionHash, timeout: 120_000 });
    if (receipt.status !== "success") throw new ProposeRevertedError({ transactionHash, endingBlock: end });
    let id = 0n;
    for (const log of receipt.logs) {
      if (log.address.toLowerCase() !== verifier.toLowerCase()) continue;
      const event = decodeEventLog({
        abi: aggregateVerifierAbi,
        data: log.data,
        topics: log.topics,
        strict: false,
      });
      if (event.eventName === "Proposed") id = (event.args as { id: bigint }).id;
    }
    const landed: LandedProposal = {
      id,
      startingBlock: latest,
      endingBlock: end,
      rootClaim: args.rootClaim,
      l1Head: hex(l1Head.hash),
      l1HeadNumber: l1Head.number,
      transactionHash,
      proveMs,
      submitMs: Date.now() - submitStart,
    };
    logger.info({ ...landed, l1Block: receipt.blockNumber }, "proposal landed");
    // Catching up: after a landed proposal the next range is tried at once.
    return "again";
  }

  logger.info({ proposer: account.address, verifier }, "proposer started");
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
