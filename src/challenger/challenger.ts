/**
 * The challenger loop (docs/proposer.md "The challenger"): follow AggregateVerifier's Proposed events (a few L1
 * blocks deep); for each live proposal whose range the node has made safe, compare its intermediate roots with the
 * node's output roots; for the first wrong one, prove that interval (L1 head = the proposal's recorded l1Head, one
 * intermediate root) and call nullify(). The proof comes from the host (prover_prove), or with a proof job queue
 * configured from the worker hosts draining it (disputes.ts). A correct proposal is logged and left alone. Every
 * error is logged and retried after a growing back-off; only stop() ends the loop.
 */
import { type Address, type Hex, bytesToHex, decodeEventLog } from "viem";
import { verifierVersionOf } from "../../contracts/index.js";
import type { ProofResult } from "../../generated/rpc/index.js";
import type { Logger } from "../log/index.js";
import {
  aggregateVerifierAbi,
  firstWrongIntermediateRoot,
  intermediateBlocks,
  nullifyArguments,
  nullifyInterval,
  nullifyRequest,
  type OnchainProposal,
  ProposalStatus,
  type VerifierIntervals,
} from "../proof/onchain/index.js";
import {
  startStepLoop,
  type StepLoop,
  contractReader,
  verifierServiceClients,
} from "../service-kit/index.js";
import type { ChallengerConfig } from "./config.js";
import { ChallengerJournalVersionError, NullifyRevertedError } from "./errors.js";
import { type Dispute, disputesOnQueue, type Verdict } from "./disputes.js";

export interface RunningChallenger {
  readonly address: Address;
  /** Resolves when the loop has ended (after stop()). */
  readonly done: Promise<void>;
  /** Ends the loop: an in-flight proof or transaction is abandoned after `graceMs` (default 10 s). */
  stop(graceMs?: number): Promise<void>;
}

const hex = (bytes: Uint8Array): Hex => bytesToHex(bytes);
const same = (a: Hex, b: Hex): boolean => a.toLowerCase() === b.toLowerCase();

export function startChallenger(
  config: ChallengerConfig,
  deps: { readonly logger: Logger },
): RunningChallenger {
  const { logger } = deps;
  const { account, l1, wallet, node, prover } = verifierServiceClients(config);
  const verifier = config.verifier;
  const read = contractReader(l1, verifier, aggregateVerifierAbi);

  let intervals: VerifierIntervals | undefined;
  /** Next L1 block to scan for Proposed events. */
  let nextBlock = config.startBlock;
  /** Proposal ids seen and not yet settled (checked correct, nullified, or no longer live), ascending. */
  const watched: bigint[] = [];

  async function scan(): Promise<void> {
    const to = (await l1.getBlockNumber()) - BigInt(config.l1Confirmations);
    // At most --l1-log-range blocks per eth_getLogs call; each chunk's events are kept before the next is
    // asked for, so an error resumes from the chunk that failed.
    while (nextBlock <= to) {
      const chunkEnd = nextBlock + config.l1LogRange - 1n < to ? nextBlock + config.l1LogRange - 1n : to;
      const logs = await l1.getContractEvents({
        address: verifier,
        abi: aggregateVerifierAbi,
        eventName: "Proposed",
        fromBlock: nextBlock,
        toBlock: chunkEnd,
      });
      for (const log of logs) {
        const id = (log.args as { id?: bigint }).id;
        if (id !== undefined && !watched.includes(id)) watched.push(id);
      }
      watched.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      nextBlock = chunkEnd + 1n;
    }
  }

  /**
   * Checks proposal `id`: "settled" when nothing more is to be done with it, "pending" to look again later, or the
   * dispute of its first wrong interval.
   */
  async function check(id: bigint, c: VerifierIntervals): Promise<Verdict> {
    const p = await read<OnchainProposal>("getProposal", [id]);
    const range = { id, start: p.startingBlock, end: p.endingBlock };
    if (p.status !== ProposalStatus.Proven) {
      logger.info({ ...range, status: ProposalStatus[p.status] }, "proposal not live: nothing to check");
      return "settled";
    }
    if ((await node.optimism_syncStatus()).safe_l2.number < p.endingBlock) return "pending";
    const blocks = intermediateBlocks(p.startingBlock, c);
    const [start, ...outputs] = await Promise.all(
      [p.startingBlock, ...blocks].map((block) => node.optimism_outputAtBlock(block)),
    );
    if (!same(hex(start!.outputRoot), p.startingRoot)) {
      // Built on a wrong parent: nullifying the parent invalidates this one.
      logger.warn(
        { ...range, parentId: p.parentId },
        "proposal starts from a wrong root: left to its parent",
      );
      return p.parentId === 0n ? "settled" : "pending";
    }
    const trueRoots = outputs.map((output) => hex(output.outputRoot));
    const index = firstWrongIntermediateRoot(p, trueRoots);
    if (index === undefined) {
      logger.info({ ...range, rootClaim: p.rootClaim, proposer: p.proposer }, "proposal checked: correct");
      return "settled";
    }
    const { agreedBlock } = nullifyInterval(p, index, c);
    const agreed = agreedBlock === p.startingBlock ? start! : outputs[index - 1]!;
    const request = nullifyRequest(p, index, c, {
      agreedL2HeadHash: hex(agreed.blockRef.hash),
      trueRoot: trueRoots[index]!,
      challenger: account.address,
    });
    return { id, proposal: p, index, request };
  }

  /** Calls nullify() with the proof of the dispute's interval, waits for the receipt and logs one line. */
  async function nullify(dispute: Dispute, result: ProofResult, proveMs: number): Promise<void> {
    const { id, proposal: p, index } = dispute;
    const args = nullifyArguments(id, p, index, intervals!, result);
    const { request: tx } = await l1.simulateContract({
      address: verifier,
      abi: aggregateVerifierAbi,
      functionName: "nullify",
      args: [args.id, args.proofBytes, args.index, args.root],
      account,
    });
    const transactionHash = await wallet.writeContract({ ...tx, chain: null });
    const receipt = await l1.waitForTransactionReceipt({ hash: transactionHash, timeout: 120_000 });
    if (receipt.status !== "success") throw new NullifyRevertedError({ transactionHash, id });
    const invalidated: bigint[] = [];
    for (const log of receipt.logs) {
      if (!same(log.address, verifier)) continue;
      const event = decodeEventLog({
        abi: aggregateVerifierAbi,
        data: log.data,
        topics: log.topics,
        strict: false,
      });
      if (event.eventName === "ParentInvalidated") invalidated.push((event.args as { id: bigint }).id);
    }
    logger.info(
      {
        id,
        start: p.startingBlock,
        end: p.endingBlock,
        index,
        root: args.root,
        transactionHash,
        invalidated,
        proveMs,
      },
      "proposal nullified",
    );
  }

  /** Without a queue: proves the dispute through the host at once, then nullifies. */
  async function proveAndNullify(dispute: Dispute): Promise<"settled"> {
    const proveStart = Date.now();
    const result = await prover.prover_prove(dispute.request);
    await nullify(dispute, result, Date.now() - proveStart);
    return "settled";
  }

  const disputes =
    config.queue === undefined
      ? undefined
      : disputesOnQueue(config.queue, {
          namespace: `challenger:${account.address.toLowerCase()}`,
          logger,
          nullify,
        });

  async function step(loop: StepLoop): Promise<"wait"> {
    if (intervals === undefined) {
      const deployed = await verifierVersionOf(l1, verifier);
      if (deployed !== config.journalVersion)
        throw new ChallengerJournalVersionError({ verifier, configured: config.journalVersion, deployed });
    }
    intervals ??= {
      blockInterval: await read<bigint>("BLOCK_INTERVAL"),
      intermediateBlockInterval: await read<bigint>("INTERMEDIATE_BLOCK_INTERVAL"),
    };
    await scan();
    // With a queue every dispute is enqueued at once (proved in parallel), and nullified in proposal order.
    const round = disputes?.round();
    for (const id of [...watched]) {
      if (loop.stopping) break;
      const verdict = await check(id, intervals);
      if (typeof verdict !== "string")
        logger.warn(
          {
            id,
            start: verdict.proposal.startingBlock,
            end: verdict.proposal.endingBlock,
            index: verdict.index,
            proposed: verdict.proposal.intermediateRoots[verdict.index],
            expected: hex(verdict.request.claimed_l2_output_root),
          },
          "proposal checked: wrong intermediate root",
        );
      const outcome =
        typeof verdict === "string"
          ? verdict
          : round === undefined
            ? await proveAndNullify(verdict)
            : await round.resolve(verdict);
      if (outcome === "settled") watched.splice(watched.indexOf(id), 1);
    }
    await round?.end();
    return "wait";
  }

  logger.info(
    {
      challenger: account.address,
      verifier,
      ...(config.queue === undefined
        ? {}
        : { queue: config.queue.databaseUrl === undefined ? "sqlite" : "postgres" }),
    },
    "challenger started",
  );
  const loop = startStepLoop(step, {
    pollIntervalMs: config.pollIntervalMs,
    maxBackoffMs: config.maxBackoffMs,
    logger,
    failureMessage: "challenge attempt failed",
  });
  const done = loop.done.then(async () => {
    await disputes?.close();
    logger.info("challenger stopped");
  });
  return {
    address: account.address,
    done,
    async stop(graceMs) {
      await loop.stop(graceMs);
      await done;
    },
  };
}
