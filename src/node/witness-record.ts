/**
 * Block witnesses recorded as the node builds its blocks, or as a read replica verifies them (`--witness-window`): the
 * hash of every value the block builder read from the store (trie nodes, code, ancestor headers) and the keys it
 * hashed, kept with the sealed block. debug_executionWitness (and debug_executePayload asked for a sealed block's own
 * payload) then answers from the record, reading each value by its hash, instead of executing the block again. The
 * window is a count of recent blocks, as reth's ress provider bounds the blocks it serves witnesses for
 * (`max_witness_window`, crates/ress/provider, which executes each again on request and keeps an LRU cache of those it
 * built).
 *
 * A builder that sealed the block read at least what an execution of the block from its parent reads: every trie node
 * on the path to a key the block touched was read from the store when first reached (a node the block replaced was read
 * before it was replaced), and a collapse after deletions resolves the remaining child whichever flashblock it happens
 * in. It may have read more (transactions it tried and dropped, paths its flashblock snapshots walked): a witness holds
 * more than its block needs, never less. Outside the window or without a record, the block is executed again.
 */
import { type BlockHeader, bytesEqual, keccak256, toHexRaw } from "../chain/index.js";
import {
  type BlockWitness,
  type WitnessInput,
  type WitnessStore,
  executeWithWitness,
  sortReads,
} from "./execution-witness.js";
import { type HashSource, OverlaySource } from "./state/sources.js";
import type { WitnessRecord, WitnessRecordSource } from "./store/witness-records.js";

/**
 * Blocks whose witness records the node keeps by default: 4 hours of 2-second blocks, room for the safe head's lag
 * behind the chain, a 600-block proposal and a queue of proofs (at Base's target gas about 126 KiB each, 0.9 GB).
 */
export const DEFAULT_WITNESS_WINDOW = 7200;

/**
 * The store as a block builder's source, noting the hash of every value it answers. Reads by typed key (a keccak256
 * preimage key: ancestor headers) and by hash (trie nodes, code) are both noted; values are not kept (the store has
 * them).
 */
export class ReadRecorder implements HashSource {
  /** Unprefixed hex hashes of the values read, each once. */
  private readonly read = new Set<string>();

  constructor(private readonly store: HashSource) {}

  get(key: Uint8Array): Uint8Array {
    const value = this.store.get(key);
    this.noteTyped(value);
    return value;
  }

  tryGet(key: Uint8Array): Uint8Array | undefined {
    const value = this.store.tryGet(key);
    if (value !== undefined) this.noteTyped(value);
    return value;
  }

  tryGetByKeccak256Hex(hashHex: string): Uint8Array | undefined {
    const value = this.store.tryGetByKeccak256Hex(hashHex);
    if (value !== undefined) this.read.add(hashHex);
    return value;
  }

  /**
   * A value read by its typed key (an ancestor header, for BLOCKHASH): the key's type byte stands in for the hash's
   * first byte, so the value's own hash names it (the store holds only keccak256 preimages).
   */
  private noteTyped(value: Uint8Array): void {
    this.read.add(toHexRaw(keccak256(value)));
  }

  /** How many distinct values were read. */
  get size(): number {
    return this.read.size;
  }

  /** The record of what was read, with the keys the block's state hashed. */
  record(keys: Uint8Array[]): WitnessRecord {
    let hex = "";
    for (const h of this.read) hex += h;
    return { reads: new Uint8Array(Buffer.from(hex, "hex")), keys };
  }
}

/** The recorded reads' hashes, each as unprefixed hex. */
export function recordedHashes(reads: Uint8Array): string[] {
  if (reads.length % 32 !== 0)
    throw new Error("a stored witness record's reads are not whole 32-byte hashes");
  const hex = Buffer.from(reads.buffer, reads.byteOffset, reads.length).toString("hex");
  const out = new Array<string>(reads.length / 32);
  for (let i = 0; i < out.length; i++) out[i] = hex.slice(i * 64, i * 64 + 64);
  return out;
}

/**
 * The witness of the sealed child of `parent` whose hash is `hash`, from its stored record: each recorded value read
 * from the store by its hash, sorted into reth's lists as an execution's reads are. Undefined when no record of that
 * block is kept (outside the window, or recorded by no builder here).
 */
export function witnessFromRecord(
  store: WitnessStore & WitnessRecordSource,
  parent: BlockHeader,
  hash: Uint8Array,
): BlockWitness | undefined {
  const record = store.witnessRecord(parent.number + 1n);
  if (record === undefined || !bytesEqual(record.hash, hash)) return undefined;
  const read = new Map<string, Uint8Array>();
  for (const h of recordedHashes(record.reads)) {
    const value = store.tryGetByKeccak256Hex(h);
    // The store keeps every value it was ever given: a recorded hash it lacks is the store's own fault.
    if (value === undefined)
      throw new Error(`the witness record of block ${parent.number + 1n} names ${h}, which the store lacks`);
    read.set(h, value);
  }
  return sortReads({ store, parent }, read, record.keys, new OverlaySource(store, read));
}

/** A witness to answer: what to build, and the sealed block it rebuilds when the caller has established one. */
export interface WitnessRequest extends WitnessInput {
  store: WitnessStore & WitnessRecordSource;
  /** The hash of the sealed child of `parent` this input builds again (its record answers, when kept). */
  sealed?: Uint8Array;
}

/**
 * The witness of `input`: from the sealed block's record when one is kept, else by executing the block with every
 * read recorded. `recorded` says which.
 */
export async function witnessFor(
  input: WitnessRequest,
): Promise<{ blockHash: Uint8Array; witness: BlockWitness; recorded: boolean }> {
  if (input.sealed !== undefined) {
    const witness = witnessFromRecord(input.store, input.parent, input.sealed);
    if (witness !== undefined) return { blockHash: input.sealed, witness, recorded: true };
  }
  const { block, witness } = await executeWithWitness(input);
  return { blockHash: block.blockHash, witness, recorded: false };
}
