/** Re-executes a whole block from its payload attributes and transactions (the enclave/prover path). */
import { BlockBuilder, type PayloadAttributes, type SealedBlock } from "./block-builder.js";
import type { BlockHeader } from "./header.js";
import type { PreimageSource } from "./preimage-store.js";
import type { RollupConfig } from "./rollup-config.js";
import { ChainError } from "./errors.js";

/** A transaction in the payload could not be included: the block is invalid. */
export class InvalidBlockError extends ChainError {
  readonly transactionIndex: number;
  constructor(transactionIndex: number, cause: Error) {
    super(`transaction ${transactionIndex} cannot be included: ${cause.message}`, "invalid-block", {
      details: { transactionIndex },
      cause,
    });
    this.transactionIndex = transactionIndex;
  }
}

export interface ExecuteBlockInput {
  config: RollupConfig;
  parent: BlockHeader;
  attributes: PayloadAttributes;
  /** EIP-2718 encoded, in block order (the first is the L1 attributes deposit). */
  transactions: readonly Uint8Array[];
  source: PreimageSource;
  /**
   * Called between transactions; a promise it answers is awaited first. The host's run hands the event loop back
   * here, so the requests it fetches ahead progress while it executes (an execution awaits only microtasks).
   */
  betweenTransactions?: () => Promise<void> | undefined;
  /** BlockBuilderOptions.keepEveryWrite: for a store-backed execution (the node's), not the proof program's. */
  keepEveryWrite?: boolean;
}

export async function executeBlock(input: ExecuteBlockInput): Promise<SealedBlock> {
  return (await buildBlock(input)).seal();
}

/**
 * executeBlock, also answering (on request) the addresses and storage slots whose keccak256 the block's state used as
 * trie keys (BlockBuilder.keyPreimages: a node's witness record of the block keeps them).
 */
export async function executeBlockWithKeys(
  input: ExecuteBlockInput,
): Promise<{ sealed: SealedBlock; keyPreimages: () => Uint8Array[] }> {
  const builder = await buildBlock(input);
  const sealed = await builder.seal();
  return { sealed, keyPreimages: () => builder.keyPreimages };
}

/** A builder with every transaction of the block added (a transaction that cannot be: InvalidBlockError). */
async function buildBlock(input: ExecuteBlockInput): Promise<BlockBuilder> {
  const builder = await BlockBuilder.start({
    config: input.config,
    parent: input.parent,
    attributes: input.attributes,
    source: input.source,
    keepEveryWrite: input.keepEveryWrite === true,
  });
  for (let i = 0; i < input.transactions.length; i++) {
    const pause = input.betweenTransactions?.();
    if (pause !== undefined) await pause;
    const result = await builder.addTransaction(input.transactions[i]!);
    if (!result.ok) throw new InvalidBlockError(i, result.error);
  }
  return builder;
}
