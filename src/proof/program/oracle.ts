/**
 * The preimage oracle the proof program reads through (docs/proof.md "The oracle"). One interface, two
 * implementations: the enclave's offline oracle over the verified preimages of a Prove request (this file), and
 * the host's fetching oracle (src/host/witness), which loads what the program is about to read when it hears a
 * hint and records every value it serves.
 *
 * Reads are synchronous (the execution engine walks tries synchronously); hints and `fetchMissing` are the two
 * asynchronous points where a fetching oracle may go to the network. The offline oracle answers both with
 * "nothing new", so a missing preimage is a refusal (MissingWitnessError), never a default.
 */
import {
  MissingPreimageError,
  type PreimageSource,
  type PreimageStore,
  fromHex,
  keccak256Key,
  toHex,
} from "../../chain/index.js";
import type { Preimage } from "../../../generated/protocol/index.js";
import { MissingWitnessError, RefusedPreimageKeyError } from "./errors.js";
import { refusalReasonOf } from "../preimages/index.js";

/** What the program is about to read (kona's hint names, our own encoding: `<type> <0x hex args…>`). */
export type Hint =
  | { readonly type: "l1-block-header"; readonly hash: Uint8Array }
  | { readonly type: "l1-transactions"; readonly hash: Uint8Array }
  | { readonly type: "l1-receipts"; readonly hash: Uint8Array }
  | {
      readonly type: "l1-blob";
      readonly versionedHash: Uint8Array;
      readonly blockHash: Uint8Array;
      readonly blockNumber: bigint;
      readonly index: number;
    }
  | { readonly type: "starting-l2-output"; readonly outputRoot: Uint8Array }
  | { readonly type: "l2-block-header"; readonly hash: Uint8Array }
  | { readonly type: "l2-transactions"; readonly hash: Uint8Array };

/** The hint as text, e.g. `l1-block-header 0xab…` (logs and the host's metrics). */
export function formatHint(hint: Hint): string {
  switch (hint.type) {
    case "l1-blob":
      return `${hint.type} ${toHex(hint.versionedHash)} ${toHex(hint.blockHash)} ${hint.blockNumber} ${hint.index}`;
    case "starting-l2-output":
      return `${hint.type} ${toHex(hint.outputRoot)}`;
    default:
      return `${hint.type} ${toHex(hint.hash)}`;
  }
}

export interface ProgramOracle extends PreimageSource {
  /** The program is about to read what `hint` names; a fetching oracle loads it first. */
  hint(hint: Hint): Promise<void>;
  /**
   * `key` was missing during a synchronous read (a trie walk, block execution): a fetching oracle tries to load
   * it and answers true when it now has it; the offline oracle answers false (the program then refuses).
   */
  fetchMissing(key: Uint8Array): Promise<boolean>;
  /**
   * Optional fast path of src/chain's trie database: the value whose keccak256 is `hashHex` (unprefixed hex of
   * the full hash), or undefined. A fetching oracle learns the full hash here, which a typed key lacks.
   */
  tryGetByKeccak256Hex?(hashHex: string): Uint8Array | undefined;
  /**
   * Optional, called between a block's transactions: a fetching oracle answers a promise when the event loop should
   * run (the answers of requests fetched ahead arrive, the next ones are sent) and undefined otherwise.
   */
  yieldPoint?(): Promise<void> | undefined;
}

/** The enclave's oracle: the request's verified preimages and nothing else. */
export class OfflineOracle implements ProgramOracle {
  constructor(private readonly store: PreimageSource) {}

  tryGetByKeccak256Hex(hashHex: string): Uint8Array | undefined {
    return this.store.tryGet(keccak256Key(fromHex(hashHex)));
  }

  get(key: Uint8Array): Uint8Array {
    return this.store.get(key);
  }

  tryGet(key: Uint8Array): Uint8Array | undefined {
    return this.store.tryGet(key);
  }

  async hint(): Promise<void> {}

  async fetchMissing(): Promise<boolean> {
    return false;
  }
}

/**
 * Refuses a Prove whose preimages carry a key the enclave never takes from the host (refusalReasonOf: precompile
 * results, global generic keys, local keys that are not a boot index).
 */
export function refusePrecompileKeys(preimages: readonly Preimage[]): void {
  refuseUnacceptedKeys(preimages.map(([key]) => key));
}

/** The same refusal for a store's keys (a store built by other means). */
export function refusePrecompileKeysIn(store: PreimageStore): void {
  refuseUnacceptedKeys(Array.from(store.entries(), ([key]) => key));
}

/** The same refusal over 32-byte keys (the enclave's PreimageTable). */
export function refuseUnacceptedKeys(keys: Iterable<Uint8Array>): void {
  for (const key of keys) {
    const reason = refusalReasonOf(key);
    if (reason !== undefined) throw new RefusedPreimageKeyError(key.slice(), reason);
  }
}

/**
 * Runs a synchronous read; when it needs a preimage the oracle lacks, asks the oracle to fetch it and runs the
 * read again. A key the oracle cannot supply, or one that is still missing after it said it had it, is a
 * MissingWitnessError naming `what`.
 */
export async function readWithFetch<T>(
  oracle: ProgramOracle,
  what: string,
  read: () => T | Promise<T>,
): Promise<T> {
  const fetched = new Set<string>();
  for (;;) {
    try {
      return await read();
    } catch (error) {
      if (!(error instanceof MissingPreimageError)) throw error;
      const id = toHex(error.key);
      if (fetched.has(id) || !(await oracle.fetchMissing(error.key)))
        throw new MissingWitnessError(error.key, what, { cause: error });
      fetched.add(id);
    }
  }
}
