/**
 * What both proposer modes (direct and scheduler) do with AggregateVerifier and the node: read the verifier's
 * intervals and its latest block, build the prover_prove request of a range from the node's outputs, check a
 * proof's L1 head (deep enough, still canonical) and submit propose() for a proven range.
 */
import { type Address, type Hex, bytesToHex, decodeEventLog, hexToBytes } from "viem";
import { verifierVersionOf } from "../../contracts/index.js";
import type { ProofRequest, ProofResult, SyncStatus } from "../../generated/rpc/index.js";
import type { Logger } from "../log/index.js";
import {
  aggregateVerifierAbi,
  type OnchainProposal,
  proposeArguments,
  type VerifierIntervals,
} from "../proof/onchain/index.js";
import { contractReader, verifierServiceClients } from "../service-kit/index.js";
import type { ProposerConfig } from "./config.js";
import {
  JournalVersionMismatchError,
  L1HeadReorgedError,
  ParentMismatchError,
  ProposeRevertedError,
} from "./errors.js";

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

export type VerifierFacts = VerifierIntervals & { readonly anchorBlock: bigint; readonly anchorRoot: Hex };

/** The L1 block a proof is made against. */
export type L1Head = SyncStatus["current_l1"];

const hex = (bytes: Uint8Array): Hex => bytesToHex(bytes);

export type ProposerRanges = ReturnType<typeof proposerRanges>;

export function proposerRanges(config: ProposerConfig, logger: Logger) {
  const clients = verifierServiceClients(config);
  const { account, l1, wallet, node } = clients;
  const verifier: Address = config.verifier;
  const read = contractReader(l1, verifier, aggregateVerifierAbi);

  let facts: VerifierFacts | undefined;
  async function immutables(): Promise<VerifierFacts> {
    if (facts !== undefined) return facts;
    const deployed = await verifierVersionOf(l1, verifier);
    if (deployed !== config.journalVersion)
      throw new JournalVersionMismatchError({ verifier, configured: config.journalVersion, deployed });
    facts = {
      blockInterval: await read<bigint>("BLOCK_INTERVAL"),
      intermediateBlockInterval: await read<bigint>("INTERMEDIATE_BLOCK_INTERVAL"),
      anchorBlock: await read<bigint>("ANCHOR_BLOCK"),
      anchorRoot: await read<Hex>("ANCHOR_ROOT"),
    };
    return facts;
  }

  /** The root the next proposal starts from: the anchor's, or the live proposal ending at `latest`. */
  async function parentRoot(latest: bigint): Promise<Hex> {
    const c = await immutables();
    if (latest === c.anchorBlock) return c.anchorRoot;
    const id = await read<bigint>("proposalAt", [latest - c.blockInterval, latest]);
    return (await read<OnchainProposal>("getProposal", [id])).rootClaim;
  }

  /** Throws ParentMismatchError unless the node's output root at `latest` is the onchain parent's. */
  async function checkParent(latest: bigint, agreedRoot: Uint8Array): Promise<void> {
    const onchainParent = await parentRoot(latest);
    if (hex(agreedRoot) !== onchainParent.toLowerCase())
      throw new ParentMismatchError({ block: latest, onchainRoot: onchainParent, nodeRoot: hex(agreedRoot) });
  }

  /** The prover_prove request of the range (start, end] against `l1Head`, from the node's outputs. */
  async function request(start: bigint, end: bigint, l1Head: L1Head): Promise<ProofRequest> {
    const c = await immutables();
    const [agreed, claimed] = await Promise.all([
      node.optimism_outputAtBlock(start),
      node.optimism_outputAtBlock(end),
    ]);
    return {
      l1_head: l1Head.hash,
      l1_head_number: l1Head.number,
      agreed_l2_head_hash: agreed.blockRef.hash,
      agreed_l2_output_root: agreed.outputRoot,
      claimed_l2_output_root: claimed.outputRoot,
      claimed_l2_block_number: end,
      proposer: hexToBytes(account.address),
      intermediate_block_interval: c.intermediateBlockInterval,
    };
  }

  /** True once the L1 head is `l1Confirmations` deep. */
  async function l1HeadDeepEnough(l1HeadNumber: bigint): Promise<boolean> {
    return (await l1.getBlockNumber()) >= l1HeadNumber + BigInt(config.l1Confirmations);
  }

  /** Throws L1HeadReorgedError when the proof's L1 head is no longer canonical. */
  async function checkCanonical(request: ProofRequest): Promise<void> {
    const canonical = await l1.getBlock({ blockNumber: request.l1_head_number });
    if (canonical.hash !== hex(request.l1_head))
      throw new L1HeadReorgedError({
        number: request.l1_head_number,
        expected: hex(request.l1_head),
        actual: canonical.hash,
      });
  }

  /** Submits propose() for the proven range starting at `latest`, waits for the receipt and logs one line. */
  async function propose(
    latest: bigint,
    request: ProofRequest,
    result: ProofResult,
    proveMs: number,
  ): Promise<LandedProposal> {
    const c = await immutables();
    const end = request.claimed_l2_block_number;
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
      l1Head: hex(request.l1_head),
      l1HeadNumber: request.l1_head_number,
      transactionHash,
      proveMs,
      submitMs: Date.now() - submitStart,
    };
    logger.info({ ...landed, l1Block: receipt.blockNumber }, "proposal landed");
    return landed;
  }

  return {
    ...clients,
    immutables,
    latestBlock: () => read<bigint>("latestBlock"),
    parentRoot,
    syncStatus: (): Promise<SyncStatus> => node.optimism_syncStatus(),
    checkParent,
    request,
    l1HeadDeepEnough,
    checkCanonical,
    propose,
  };
}
