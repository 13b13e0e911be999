/**
 * The challenger loop (docs/proposer.md "The challenger"): follow AggregateVerifier's Proposed events (a few L1
 * blocks deep); for each live proposal whose range the node has made safe, compare its intermediate roots with the
 * node's output roots; for the first wrong one, prove that interval through the host (L1 head = the proposal's
 * recorded l1Head, one intermediate root) and call nullify(). A correct proposal is logged and left alone. Every
 * error is logged and retried after a growing back-off; only stop() ends the loop.
 */
import {
  type Address,
  type Hex,
  BaseError,
  ContractFunctionRevertedError,
  bytesToHex,
  createPublicClient,
  createWalletClient,
  decodeEventLog,
  http,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { httpTransport, NodeClient, ProverClient } from "../../generated/rpc/index.js";
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
} from "../proof/index.js";
import type { ChallengerConfig } from "./config.js";
import { NullifyRevertedError } from "./errors.js";

export interface RunningChallenger {
  readonly address: Address;
  /** Resolves when the loop has ended (after stop()). */
  readonly done: Promise<void>;
  /** Ends the loop: an in-flight proof or transaction is abandoned after `graceMs` (default 10 s). */
  stop(graceMs?: number): Promise<void>;
}

/** A short description of an error for one log line (viem's messages run to pages). */
function briefError(error: unknown): { name: string; message: string; kind?: string } {
  if (error instanceof BaseError) {
    // A revert is reported by the contract's error name and arguments, e.g. ProposalExists(3).
    const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError && reverted.data !== undefined)
      return {
        name: reverted.name,
        message: `${reverted.data.errorName}(${(reverted.data.args ?? []).map(String).join(",")})`,
      };
    return { name: error.name, message: error.shortMessage };
  }
  if (error instanceof Error) {
    const kind = (error as { kind?: unknown }).kind;
    return { name: error.name, message: error.message, ...(typeof kind === "string" ? { kind } : {}) };
  }
  return { name: "unknown", message: String(error) };
}

const hex = (bytes: Uint8Array): Hex => bytesToHex(bytes);
const same = (a: Hex, b: Hex): boolean => a.toLowerCase() === b.toLowerCase();

export function startChallenger(
  config: ChallengerConfig,
  deps: { readonly logger: Logger },
): RunningChallenger {
  const { logger } = deps;
  const account = privateKeyToAccount(config.privateKey);
  const l1: PublicClient = createPublicClient({
    transport: http(config.l1RpcUrl, { retryCount: 0 }),
    pollingInterval: 250,
  });
  const wallet = createWalletClient({ account, transport: http(config.l1RpcUrl, { retryCount: 0 }) });
  const node = new NodeClient(httpTransport(config.rollupRpcUrl, { timeoutMs: 30_000 }));
  const prover = new ProverClient(httpTransport(config.proverUrl, { timeoutMs: config.proveTimeoutMs }));
  const verifier = config.verifier;
  let stopping = false;
  let wake: () => void = () => {};
  const sleep = (ms: number): Promise<void> =>
    stopping
      ? Promise.resolve()
      : new Promise((resolve) => {
          const timer = setTimeout(resolve, ms);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
  const read = <T>(functionName: string, args: readonly unknown[] = []): Promise<T> =>
    l1.readContract({
      address: verifier,
      abi: aggregateVerifierAbi,
      functionName,
      args,
    } as never) as Promise<T>;

  let intervals: VerifierIntervals | undefined;
  /** Next L1 block to scan for Proposed events. */
  let nextBlock = config.startBlock;
  /** Proposal ids seen and not yet settled (checked correct, nullified, or no longer live), ascending. */
  const queue: bigint[] = [];

  async function scan(): Promise<void> {
    const to = (await l1.getBlockNumber()) - BigInt(config.l1Confirmations);
    if (to < nextBlock) return;
    const logs = await l1.getContractEvents({
      address: verifier,
      abi: aggregateVerifierAbi,
      eventName: "Proposed",
      fromBlock: nextBlock,
      toBlock: to,
    });
    for (const log of logs) {
      const id = (log.args as { id?: bigint }).id;
      if (id !== undefined && !queue.includes(id)) queue.push(id);
    }
    queue.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    nextBlock = to + 1n;
  }

  /** Checks proposal `id`: "settled" when nothing more is to be done with it, "pending" to look again later. */
  async function check(id: bigint, c: VerifierIntervals): Promise<"settled" | "pending"> {
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
    logger.warn(
      { ...range, index, proposed: p.intermediateRoots[index], expected: trueRoots[index] },
      "proposal checked: wrong intermediate root",
    );
    const { agreedBlock } = nullifyInterval(p, index, c);
    const agreed = agreedBlock === p.startingBlock ? start! : outputs[index - 1]!;
    const request = nullifyRequest(p, index, c, {
      agreedL2HeadHash: hex(agreed.blockRef.hash),
      trueRoot: trueRoots[index]!,
      challenger: account.address,
    });
    const proveStart = Date.now();
    const result = await prover.prover_prove(request);
    const proveMs = Date.now() - proveStart;
    const args = nullifyArguments(id, p, index, c, result);
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
      { ...range, index, root: args.root, transactionHash, invalidated, proveMs },
      "proposal nullified",
    );
    return "settled";
  }

  async function step(): Promise<void> {
    intervals ??= {
      blockInterval: await read<bigint>("BLOCK_INTERVAL"),
      intermediateBlockInterval: await read<bigint>("INTERMEDIATE_BLOCK_INTERVAL"),
    };
    await scan();
    for (const id of [...queue]) {
      if (stopping) return;
      if ((await check(id, intervals)) === "settled") queue.splice(queue.indexOf(id), 1);
    }
  }

  async function loop(): Promise<void> {
    logger.info({ challenger: account.address, verifier }, "challenger started");
    let backoff = config.pollIntervalMs;
    while (!stopping) {
      try {
        await step();
        backoff = config.pollIntervalMs;
        await sleep(config.pollIntervalMs);
      } catch (error) {
        if (stopping) break;
        logger.warn({ err: briefError(error), retryInMs: backoff }, "challenge attempt failed");
        await sleep(backoff);
        backoff = Math.min(backoff * 2, config.maxBackoffMs);
      }
    }
    logger.info("challenger stopped");
  }

  const done = loop();
  return {
    address: account.address,
    done,
    async stop(graceMs = 10_000) {
      stopping = true;
      wake();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([done, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
    },
  };
}
