/**
 * Execution witnesses: a block executed on its parent's state from the node's store, every preimage the
 * execution read recorded, and the reads sorted into reth's four lists (trie nodes, code, key preimages,
 * ancestor headers). What a stateless executor needs to run the block again from the witness alone.
 */
import { RLP } from "@ethereumjs/rlp";
import {
  type BlockHeader,
  BlockBuilder,
  FastTrie,
  type PayloadAttributes,
  type PreimageSource,
  PreimageTrieDB,
  type RollupConfig,
  type SealedBlock,
  encodeHeader,
  keccak256,
  toHexRaw,
} from "../chain/index.js";
import { NodeError } from "./errors.js";
import type { HashSource } from "./state/sources.js";

/** reth's ExecutionWitness: lists of bytes (headers RLP-encoded, oldest first). */
export interface BlockWitness {
  state: Uint8Array[];
  codes: Uint8Array[];
  keys: Uint8Array[];
  headers: Uint8Array[];
}

/** A transaction of a payload could not be included, or the block could not be built. */
export class WitnessExecutionError extends NodeError {
  constructor(message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, "witness-execution", options);
  }
}

/** Bytes of trie nodes the witness executions of one thread keep between them (WitnessNodeCache). */
export const WITNESS_NODE_CACHE_BYTES = 64 * 2 ** 20;

/**
 * Trie nodes the witness executions read by hash, kept between them: consecutive blocks walk mostly the same nodes,
 * and a value read here costs a map lookup instead of a SQLite query. Values are content-addressed, so an entry
 * is never stale. Two generations bounded by bytes: when the young one fills it becomes the old one (the old one is
 * dropped), and a hit in the old one moves into the young one.
 */
export class WitnessNodeCache {
  private young = new Map<string, Uint8Array>();
  private old = new Map<string, Uint8Array>();
  private youngBytes = 0;

  /** `maxBytes`: values and keys of both generations together at most about this many bytes. */
  constructor(private readonly maxBytes: number) {}

  get(hashHex: string): Uint8Array | undefined {
    const value = this.young.get(hashHex);
    if (value !== undefined) return value;
    const older = this.old.get(hashHex);
    if (older !== undefined) this.add(hashHex, older);
    return older;
  }

  add(hashHex: string, value: Uint8Array): void {
    this.young.set(hashHex, value);
    // The key's characters and the map entry, roughly.
    this.youngBytes += value.length + hashHex.length * 2 + 64;
    if (this.youngBytes > this.maxBytes / 2) {
      this.old = this.young;
      this.young = new Map();
      this.youngBytes = 0;
    }
  }

  /** Entries held (both generations). */
  get size(): number {
    return this.young.size + this.old.size;
  }
}

/** A preimage source over the store that remembers every value it answered, by unprefixed hex hash. */
class RecordingSource implements PreimageSource {
  readonly read = new Map<string, Uint8Array>();

  constructor(
    private readonly store: WitnessStore,
    private readonly nodes: WitnessNodeCache | undefined,
  ) {}

  private remember(value: Uint8Array | undefined): Uint8Array | undefined {
    // The store is keyed by 31 bytes of the hash: the value's own hash names it.
    if (value !== undefined) this.read.set(toHexRaw(keccak256(value)), value);
    return value;
  }

  get(key: Uint8Array): Uint8Array {
    const value = this.store.get(key);
    this.remember(value);
    return value;
  }

  tryGet(key: Uint8Array): Uint8Array | undefined {
    return this.remember(this.store.tryGet(key));
  }

  tryGetByKeccak256Hex(hashHex: string): Uint8Array | undefined {
    let value = this.nodes?.get(hashHex);
    if (value === undefined) {
      value = this.store.tryGetByKeccak256Hex(hashHex);
      if (value !== undefined) this.nodes?.add(hashHex, value);
    }
    // Read by its full hash: the hash it was asked by names it (a value already remembered is not hashed again).
    if (value !== undefined) {
      const id = hashHex.startsWith("0x") ? hashHex.slice(2) : hashHex;
      if (!this.read.has(id)) this.remember(value);
    }
    return value;
  }
}

/** What a witness execution reads: trie nodes and code by hash, sealed blocks (for ancestor headers). */
export interface WitnessStore extends HashSource {
  blockNumberByHash(hash: Uint8Array): bigint | undefined;
  blockByNumber(number: bigint): { readonly header: BlockHeader } | undefined;
}

/** What to build: the parent, the attributes and the transactions of the block. */
export interface WitnessInput {
  config: RollupConfig;
  store: WitnessStore;
  parent: BlockHeader;
  attributes: PayloadAttributes;
  transactions: readonly Uint8Array[];
  /** Trie nodes kept from earlier witness executions (read through, filled as they are read). */
  nodeCache?: WitnessNodeCache;
}

/**
 * Builds the block on `parent` with every read recorded and answers the block and its witness. A
 * transaction that cannot be included is a WitnessExecutionError naming its index.
 */
export async function executeWithWitness(
  input: WitnessInput,
): Promise<{ block: SealedBlock; witness: BlockWitness }> {
  const source = new RecordingSource(input.store, input.nodeCache);
  const builder = await BlockBuilder.start({
    config: input.config,
    parent: input.parent,
    attributes: input.attributes,
    source,
    // The written nodes are dropped, and a lookup through `source` would record a node as read (PreimageTrieDBOptions).
    keepEveryWrite: true,
  });
  for (let i = 0; i < input.transactions.length; i++) {
    const result = await builder.addTransaction(input.transactions[i]!);
    if (!result.ok)
      throw new WitnessExecutionError(`transaction ${i} cannot be included: ${result.error.message}`, {
        cause: result.error,
        details: { transactionIndex: i },
      });
  }
  const block = await builder.seal();
  const keys = builder.keyPreimages;
  return { block, witness: sortReads(input, source.read, keys) };
}

/** The account RLP fields [nonce, balance, storageRoot, codeHash]. */
function codeHashOf(accountRlp: Uint8Array): string | undefined {
  const fields = RLP.decode(accountRlp) as Uint8Array[];
  const codeHash = fields[3];
  return codeHash instanceof Uint8Array && codeHash.length === 32 ? toHexRaw(codeHash) : undefined;
}

/**
 * Whether `value` opens as a block header: a list of 256 to 65 535 bytes (0xf9 and two length bytes) whose first
 * items are two 32-byte strings (parent hash, ommers hash) and a 20-byte one (coinbase). Every header does; no trie
 * node does (a branch's third item is empty, a 32-byte hash or an embedded list; leaves and extensions have two
 * items), so only such values are looked up among the block hashes.
 */
function mayBeHeader(value: Uint8Array): boolean {
  return value[0] === 0xf9 && value[3] === 0xa0 && value[36] === 0xa0 && value[69] === 0x94;
}

/**
 * Sorts the recorded reads: ancestor headers (read by BLOCKHASH) set the oldest header of the witness,
 * whose headers then run from it to the parent, as reth's do (just the parent when no BLOCKHASH reached
 * further back); code is what an account read names by its code hash; every other read is a trie node.
 * `trieSource` is where the accounts' code hashes are looked up in the parent's state (default the store).
 */
export function sortReads(
  input: Pick<WitnessInput, "store" | "parent">,
  read: Map<string, Uint8Array>,
  keys: Uint8Array[],
  trieSource: HashSource = input.store,
): BlockWitness {
  const trie = new FastTrie(new PreimageTrieDB(trieSource));
  const codeHashes = new Set<string>();
  for (const key of keys) {
    if (key.length !== 20) continue;
    const account = trie.get(input.parent.stateRoot, keccak256(key));
    const codeHash = account === undefined ? undefined : codeHashOf(account);
    if (codeHash !== undefined) codeHashes.add(codeHash);
  }
  // BLOCKHASH(k) reads header k + 1 for its parent hash; reth's witness holds header k itself.
  let oldest = input.parent.number;
  const state: Uint8Array[] = [];
  const codes: Uint8Array[] = [];
  for (const [hash, value] of read) {
    const number = mayBeHeader(value)
      ? input.store.blockNumberByHash(Uint8Array.from(Buffer.from(hash, "hex")))
      : undefined;
    if (number !== undefined) {
      if (number - 1n < oldest) oldest = number - 1n;
    } else if (codeHashes.has(hash)) codes.push(value);
    else state.push(value);
  }
  const headers: Uint8Array[] = [];
  for (let n = oldest; n <= input.parent.number; n++) {
    const header = n === input.parent.number ? input.parent : input.store.blockByNumber(n)?.header;
    if (header === undefined)
      throw new WitnessExecutionError(`ancestor header ${n} is missing from the store`);
    headers.push(encodeHeader(header));
  }
  return { state, codes, keys, headers };
}
