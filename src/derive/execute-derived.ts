/**
 * The one "execute, else its deposit-only replacement" step every caller of `derive()` takes for a derived block
 * (the proof program's driver, the node's safe-head tracker): the payload as derived, and when src/chain refuses it
 * as invalid (InvalidBlockError), its deposit-only version (Holocene "Engine Queue"). Execution itself is the
 * caller's (its state source, its retries); what it returns is passed back to `next()` with `depositOnly`.
 */
import { InvalidBlockError } from "../chain/index.js";
import type { DerivedBlock } from "./driver.js";

/** A derived block as executed: the caller's result, and whether it is the deposit-only replacement. */
export interface ExecutedDerivedBlock<Sealed> {
  readonly sealed: Sealed;
  readonly depositOnly: boolean;
}

/**
 * Executes `block`'s transactions with `execute`; when that throws InvalidBlockError, `onInvalid` is told and the
 * deposit-only transactions are executed instead. Any other error is the caller's.
 */
export async function executeDerivedBlock<Sealed>(
  block: Pick<DerivedBlock, "transactions" | "depositOnlyTransactions">,
  execute: (transactions: readonly Uint8Array[]) => Promise<Sealed>,
  onInvalid?: (error: InvalidBlockError) => void,
): Promise<ExecutedDerivedBlock<Sealed>> {
  try {
    return { sealed: await execute(block.transactions), depositOnly: false };
  } catch (error) {
    if (!(error instanceof InvalidBlockError)) throw error;
    onInvalid?.(error);
    return { sealed: await execute(block.depositOnlyTransactions), depositOnly: true };
  }
}
