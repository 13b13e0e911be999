/**
 * The proposer loop (docs/proposer.md "What it does"): read AggregateVerifier's latestBlock and intervals; once the
 * node's safe head reaches latestBlock + BLOCK_INTERVAL, prove that range through the host (agreed = the parent's
 * end, L1 head = the L1 block the node had derived up to, a few confirmations deep), submit propose(), wait for the
 * receipt and log one line. Every error is logged and retried after a growing back-off; only stop() ends the loop.
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
  hexToBytes,
  http,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { httpTransport, NodeClient, ProverClient, type ProofRequest } from "../../generated/rpc/index.js";
import type { Logger } from "../log/index.js";
import {
  aggregateVerifierAbi,
  type OnchainProposal,
  proposeArguments,
  type VerifierIntervals,
} from "../proof/index.js";
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

/** A short description of an error for one log line (viem's messages run to pages). */
export function briefError(error: unknown): { name: string; message: string; kind?: string } {
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

export function startProposer(config: ProposerConfig, deps: { readonly logger: Logger }): RunningProposer {
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
  async function step(): Promise<"proposed" | "waiting"> {
    const c = await immutables();
    const latest = await read<bigint>("latestBlock");
    const end = latest + c.blockInterval;
    const status = await node.optimism_syncStatus();
    if (status.safe_l2.number < end) {
      logger.debug(
        { latestBlock: latest, next: end, safe: status.safe_l2.number },
        "waiting for the safe head",
      );
      return "waiting";
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
    while (!stopping && (await l1.getBlockNumber()) < l1Head.number + BigInt(config.l1Confirmations))
      await sleep(config.pollIntervalMs);
    if (stopping) return "waiting";
    const canonical = await l1.getBlock({ blockNumber: l1Head.number });
    if (canonical.hash !== hex(l1Head.hash))
      throw new L1HeadReorgedError({
        number: l1Head.number,
        expected: hex(l1Head.hash),
        actual: canonical.hash,
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
    const proveStart = Date.now();
    const result = await prover.prover_prove(request);
    const proveMs = Date.now() - proveStart;
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
    return "proposed";
  }

  async function loop(): Promise<void> {
    logger.info({ proposer: account.address, verifier }, "proposer started");
    let backoff = config.pollIntervalMs;
    while (!stopping) {
      try {
        // Catching up: after a landed proposal the next range is tried at once.
        if ((await step()) === "waiting") await sleep(config.pollIntervalMs);
        backoff = config.pollIntervalMs;
      } catch (error) {
        if (stopping) break;
        logger.warn({ err: briefError(error), retryInMs: backoff }, "proposal attempt failed");
        await sleep(backoff);
        backoff = Math.min(backoff * 2, config.maxBackoffMs);
      }
    }
    logger.info("proposer stopped");
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
