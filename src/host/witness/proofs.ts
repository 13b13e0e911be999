/**
 * The `proofs` strategy's block witness: L2 block n executed here on its parent's state, from nothing but what
 * `eth_getProof` at the parent answers. Each run stops at the first state it lacks; the accounts and storage slots
 * the run had read by then (the builder's state reads, recorded before each trie walk) are proven with one
 * `eth_getProof(address, slots, parent)` per account, their code fetched by code hash (`debug_dbGet(0x63‖hash)`,
 * else `eth_getCode`) and checked, and the block runs again, until it seals. Headers a BLOCKHASH reads are fetched
 * by walking the parent's ancestors with `debug_getRawHeader`. Everything fetched is the block's witness.
 *
 * Before the builder exists (its system calls), the run's reads are unknown: the EIP-4788 and EIP-2935 contracts'
 * accounts and the slots the block's system calls write are proven up front.
 *
 * A deletion that collapses a trie branch reads the remaining sibling node, which no proof of a key the block touches
 * holds. Its place in the trie is found from the proven paths, then:
 * - a key whose hash passes there is searched (at most 16^5 tries, so a sibling at most 5 nibbles deep) and proven
 *   at the parent;
 * - deeper, the keys whose paths pass the collapsed branch are proven at the block itself: after the collapse the
 *   sibling, when it is a leaf or an extension, sits merged under a longer path in that proof, and the sibling is
 *   that node under each shorter path, the one that hashes to the wanted hash (a sibling that is itself a branch
 *   is not found so: its hash then reaches the parent branch unchanged, and only a key under it reads it).
 */
import { RLP } from "@ethereumjs/rlp";
import {
  BEACON_ROOTS_ADDRESS,
  BlockBuilder,
  type BlockHeader,
  HISTORY_STORAGE_ADDRESS,
  MissingPreimageError,
  PreimageStore,
  type RollupConfig,
  bytesEqual,
  decodeHeader,
  fromHex,
  keccak256,
  keccak256Key,
  toHex,
  toHexRaw,
} from "../../chain/index.js";
import { JsonRpcClient, RemoteCallError, RpcL2Provider } from "../../chain-rpc/index.js";
import { HostError } from "../errors.js";
import { checkedRawHeader, codeByHash, payloadAttributesOf } from "./l2-reads.js";

/** Runs of one block before the strategy gives up (each run proves at least one new account or slot). */
const MAX_RUNS = 2048;
/** How far back BLOCKHASH reads (and so the headers this strategy may fetch). */
const BLOCKHASH_WINDOW = 256n;
/** The EIP-4788 and EIP-2935 ring buffer lengths. */
const HISTORY_BUFFER = 8191n;

const EMPTY_CODE_HASH = keccak256(new Uint8Array(0));

/** A block could not be executed from proofs alone. */
export class ProofsWitnessError extends HostError<"witness-fetch"> {
  override readonly name = "ProofsWitnessError";
  constructor(message: string, details: { readonly block: bigint } & Record<string, unknown>) {
    super(message, { kind: "witness-fetch", details: { hint: "state", ...details } });
  }
}

const slotKey = (n: bigint): string => n.toString(16).padStart(64, "0");

function missingKeyOf(error: unknown): Uint8Array | undefined {
  for (let e: unknown = error; e instanceof Error; e = e.cause)
    if (e instanceof MissingPreimageError) return e.key;
  return undefined;
}

interface AccountProofJson {
  readonly accountProof?: unknown;
  readonly codeHash?: unknown;
  readonly storageHash?: unknown;
  readonly storageProof?: unknown;
}

/** Most keys tried when looking for one whose trie path passes a given node (16^5: a prefix of 5 nibbles). */
const MAX_KEY_SEARCH = 1 << 20;

const nibblesOf = (bytes: Uint8Array): number[] => [...bytes].flatMap((b) => [b >> 4, b & 15]);

/** The nibbles of a leaf or extension node's hex-prefix encoded path. */
function hexPrefixNibbles(encoded: Uint8Array): number[] {
  const nibbles = nibblesOf(encoded);
  return (nibbles[0]! & 1) === 1 ? nibbles.slice(1) : nibbles.slice(2);
}

/** Where a node was found: its trie path, and the index of the key whose walk passed a reference to it. */
interface NodePlace {
  readonly path: number[];
  readonly via: number;
}

/**
 * The trie path (nibbles) of the node named `target` (last 31 bytes of its hash, a typed key's), found by walking
 * from `root` along the paths of `keys` (hashed trie keys) through the nodes in `store`; undefined when no walk
 * passes a reference to it.
 */
function pathOfNode(
  store: PreimageStore,
  root: Uint8Array,
  keys: readonly Uint8Array[],
  target: Uint8Array,
): NodePlace | undefined {
  const isTarget = (ref: unknown): boolean =>
    ref instanceof Uint8Array && ref.length === 32 && bytesEqual(ref.subarray(1), target.subarray(1));
  for (const [via, key] of keys.entries()) {
    const path = nibblesOf(key);
    let ref: unknown = root;
    let depth = 0;
    while (ref instanceof Uint8Array && ref.length === 32) {
      const raw = store.tryGet(keccak256Key(ref));
      if (raw === undefined) break;
      let node: unknown;
      try {
        node = RLP.decode(raw);
      } catch {
        break;
      }
      if (!Array.isArray(node)) break;
      if (node.length === 17) {
        for (let i = 0; i < 16; i++)
          if (isTarget(node[i])) return { path: [...path.slice(0, depth), i], via };
        ref = node[path[depth]!];
        depth++;
      } else if (node.length === 2 && node[0] instanceof Uint8Array) {
        const shared = hexPrefixNibbles(node[0]);
        if (isTarget(node[1])) return { path: [...path.slice(0, depth), ...shared], via };
        depth += shared.length;
        ref = node[1];
      } else break;
    }
  }
  return undefined;
}

/** The hex-prefix encoding of a leaf's or an extension's path. */
function hexPrefix(nibbles: readonly number[], leaf: boolean): Uint8Array {
  const odd = nibbles.length % 2;
  const flag = (leaf ? 2 : 0) + odd;
  const out = new Uint8Array(1 + (nibbles.length - odd) / 2);
  out[0] = (flag << 4) | (odd === 1 ? nibbles[0]! : 0);
  for (let i = odd, j = 1; i < nibbles.length; i += 2, j++) out[j] = (nibbles[i]! << 4) | nibbles[i + 1]!;
  return out;
}

/**
 * The node named `target` (a typed key) that one of the leaves or extensions in `nodes` was before a collapse
 * merged it under a longer path: the same node under each shorter path, checked by its hash; undefined when none.
 */
function beforeCollapse(nodes: readonly Uint8Array[], target: Uint8Array): Uint8Array | undefined {
  for (const raw of nodes) {
    let node: unknown;
    try {
      node = RLP.decode(raw);
    } catch {
      continue;
    }
    if (!Array.isArray(node) || node.length !== 2 || !(node[0] instanceof Uint8Array) || node[0].length === 0)
      continue;
    const leaf = node[0][0]! >> 5 === 1;
    const path = hexPrefixNibbles(node[0]);
    // A leaf may end with an empty path; an extension keeps at least one nibble.
    for (let cut = 1; cut <= path.length - (leaf ? 0 : 1); cut++) {
      const candidate = RLP.encode([hexPrefix(path.slice(cut), leaf), node[1] as Uint8Array]);
      if (bytesEqual(keccak256(candidate).subarray(1), target.subarray(1))) return candidate;
    }
  }
  return undefined;
}

/** A key (32-byte slot, or 20-byte address) whose keccak256 starts with `prefix`, by search; undefined past the bound. */
function keyUnder(prefix: readonly number[], length: 20 | 32): Uint8Array | undefined {
  if (prefix.length > 5) return undefined;
  const key = new Uint8Array(length);
  const view = new DataView(key.buffer);
  for (let i = 0; i < MAX_KEY_SEARCH; i++) {
    view.setUint32(length - 4, i);
    const hash = keccak256(key);
    if (prefix.every((nibble, j) => ((hash[j >> 1]! >> ((j & 1) === 0 ? 4 : 0)) & 15) === nibble))
      return key.slice();
  }
  return undefined;
}

/** The trie nodes an eth_getProof answer holds (account proof, then each storage proof), as bytes. */
function proofNodesOf(answer: AccountProofJson | undefined): Uint8Array[] {
  const nodes: unknown[] = [];
  if (Array.isArray(answer?.accountProof)) nodes.push(...(answer.accountProof as unknown[]));
  if (Array.isArray(answer?.storageProof))
    for (const entry of answer.storageProof as { proof?: unknown }[])
      if (Array.isArray(entry?.proof)) nodes.push(...(entry.proof as unknown[]));
  return nodes.filter((node): node is string => typeof node === "string").map((node) => fromHex(node));
}

const quantity = (n: bigint): string => `0x${n.toString(16)}`;

/** One block's run state: what is proven so far and the values fetched. */
class BlockProof {
  readonly store = new PreimageStore();
  readonly values: Uint8Array[] = [];
  /** Proven slots by unprefixed hex address ("" marks the account itself). */
  readonly proven = new Map<string, Set<string>>();
  readonly codes = new Set<string>();
  /** Storage roots by unprefixed hex address, from the proofs. */
  readonly storageRoots = new Map<string, Uint8Array>();
  /** The oldest ancestor header fetched so far. */
  oldest: BlockHeader;

  constructor(
    readonly number: bigint,
    readonly parent: BlockHeader,
    parentRlp: Uint8Array,
  ) {
    this.oldest = parent;
    this.put(parentRlp);
  }

  put(value: Uint8Array): void {
    this.store.putKeccak256(value);
    this.values.push(value);
  }

  /** The reads not yet proven, by address. */
  unproven(reads: ReadonlyMap<string, ReadonlySet<string>>): Map<string, string[]> {
    const wanted = new Map<string, string[]>();
    for (const [address, slots] of reads) {
      const done = this.proven.get(address);
      const fresh = [...slots].filter((slot) => done?.has(slot) !== true);
      if (done === undefined || fresh.length > 0) wanted.set(address, fresh);
    }
    return wanted;
  }
}

export class ProofsExecutor {
  private readonly blocks: RpcL2Provider;

  constructor(
    private readonly client: JsonRpcClient,
    private readonly config: RollupConfig,
  ) {
    this.blocks = new RpcL2Provider(client.url, client.limits);
  }

  private async rawHeader(hash: Uint8Array, block: bigint): Promise<Uint8Array> {
    const rlp = await checkedRawHeader(this.client, hash);
    if (rlp === "unknown")
      throw new ProofsWitnessError(`the L2 node does not know header ${toHex(hash)}`, { block });
    if (rlp === "wrong-hash")
      throw new ProofsWitnessError(`debug_getRawHeader ${toHex(hash)} does not hash to the block hash`, {
        block,
      });
    return rlp;
  }

  async blockWitness(number: bigint): Promise<Uint8Array[]> {
    const block = await this.blocks.blockByNumber(number);
    if (block === undefined || number === 0n) return [];
    const parentRlp = await this.rawHeader(block.header.parentHash, number);
    const proof = new BlockProof(number, decodeHeader(parentRlp), parentRlp);
    const attributes = payloadAttributesOf(this.config, block.header);
    const ts = block.header.timestamp;
    // The system calls' accounts and the slots they write, before any run can report its reads.
    await this.prove(
      proof,
      new Map([
        [
          toHexRaw(BEACON_ROOTS_ADDRESS.bytes),
          [slotKey(ts % HISTORY_BUFFER), slotKey((ts % HISTORY_BUFFER) + HISTORY_BUFFER)],
        ],
        [toHexRaw(HISTORY_STORAGE_ADDRESS.bytes), [slotKey((number - 1n) % HISTORY_BUFFER)]],
      ]),
    );
    let lastMissing = "";
    for (let run = 0; run < MAX_RUNS; run++) {
      let builder: BlockBuilder | undefined;
      try {
        builder = await BlockBuilder.start({
          config: this.config,
          parent: proof.parent,
          attributes,
          source: proof.store,
        });
        for (const tx of block.transactions) await builder.addTransaction(tx);
        await builder.seal();
        return proof.values;
      } catch (error) {
        const missing = missingKeyOf(error);
        if (missing === undefined) throw error;
        const reads = builder?.stateReads ?? new Map<string, ReadonlySet<string>>();
        const wanted = proof.unproven(reads);
        if (wanted.size > 0) await this.prove(proof, wanted);
        else if (
          lastMissing === toHex(missing) ||
          !((await this.siblingNode(proof, missing)) || (await this.ancestorHeader(proof, missing)))
        )
          throw new ProofsWitnessError(
            `L2 block ${number} reads ${toHex(missing)}, which no eth_getProof of the accounts and slots it touches contains`,
            { block: number, key: toHex(missing) },
          );
        lastMissing = toHex(missing);
      }
    }
    throw new ProofsWitnessError(`L2 block ${number} needed more than ${MAX_RUNS} runs`, { block: number });
  }

  /**
   * A trie node no proven key's path contains, but which a proven path references (a deletion collapsing a branch
   * reads the remaining sibling): found by its place in the trie, then proven with a key searched to pass there,
   * or, deeper, rebuilt from the block's own proof of the key that passed the collapsed branch.
   */
  private async siblingNode(proof: BlockProof, missing: Uint8Array): Promise<boolean> {
    for (const [address, slots] of proof.proven) {
      const root = proof.storageRoots.get(address);
      if (root === undefined) continue;
      const list = [...slots];
      const place = pathOfNode(
        proof.store,
        root,
        list.map((slot) => keccak256(fromHex(`0x${slot}`))),
        missing,
      );
      if (place === undefined) continue;
      const found = await this.nodeAt(proof, missing, place, `0x${address}`, list[place.via]!);
      if (found) return true;
    }
    const addresses = [...proof.proven.keys()];
    const accounts = addresses.map((address) => keccak256(fromHex(`0x${address}`)));
    const place = pathOfNode(proof.store, proof.parent.stateRoot, accounts, missing);
    return place !== undefined && (await this.nodeAt(proof, missing, place, `0x${addresses[place.via]}`));
  }

  /**
   * The node `missing` at `place` in the state trie (no `slot`) or in `address`'s storage trie: by a key searched
   * to pass there, proven at the parent; else from the block's proof of the key that passed there (`slot`, or the
   * account), rebuilt as it was before a collapse merged it.
   */
  private async nodeAt(
    proof: BlockProof,
    missing: Uint8Array,
    place: NodePlace,
    address: string,
    slot?: string,
  ): Promise<boolean> {
    const parent = quantity(proof.parent.number);
    const searched = keyUnder(place.path, slot === undefined ? 20 : 32);
    if (searched !== undefined) {
      const nodes = await this.proofNodes(
        slot === undefined ? toHex(searched) : address,
        slot === undefined ? [] : [toHex(searched)],
        parent,
      );
      for (const node of nodes) proof.put(node);
      if (proof.store.tryGet(missing) !== undefined) return true;
    }
    const after = await this.proofNodes(
      address,
      slot === undefined ? [] : [`0x${slot}`],
      quantity(proof.number),
    );
    const rebuilt = beforeCollapse(after, missing);
    if (rebuilt === undefined) return false;
    proof.put(rebuilt);
    return true;
  }

  /** The nodes of `eth_getProof(address, slots, at)`: the account proof's, then the storage proofs'. */
  private async proofNodes(address: string, slots: readonly string[], at: string): Promise<Uint8Array[]> {
    const answer = (await this.client.call("eth_getProof", [address, slots, at])) as AccountProofJson;
    return proofNodesOf(answer);
  }

  /** Fetches older headers until one is keyed by `missing` (a BLOCKHASH read); false when none within the window. */
  private async ancestorHeader(proof: BlockProof, missing: Uint8Array): Promise<boolean> {
    while (proof.parent.number - proof.oldest.number < BLOCKHASH_WINDOW && proof.oldest.number > 0n) {
      const rlp = await this.rawHeader(proof.oldest.parentHash, proof.number);
      proof.put(rlp);
      proof.oldest = decodeHeader(rlp);
      if (proof.store.tryGet(missing) !== undefined) return true;
    }
    return false;
  }

  /** One eth_getProof per account at the parent; every node, and the account's code, enters the block's witness. */
  private async prove(proof: BlockProof, wanted: ReadonlyMap<string, readonly string[]>): Promise<void> {
    const at = `0x${proof.parent.number.toString(16)}`;
    await Promise.all(
      [...wanted].map(async ([address, slots]) => {
        const answer = (await this.client.call("eth_getProof", [
          `0x${address}`,
          slots.map((slot) => `0x${slot}`),
          at,
        ])) as AccountProofJson;
        for (const node of proofNodesOf(answer)) proof.put(node);
        if (typeof answer?.storageHash === "string")
          proof.storageRoots.set(address, fromHex(answer.storageHash));
        const done = proof.proven.get(address) ?? new Set<string>();
        for (const slot of slots) done.add(slot);
        proof.proven.set(address, done);
        if (typeof answer?.codeHash === "string")
          await this.code(proof, address, fromHex(answer.codeHash), at);
      }),
    );
  }

  private async code(proof: BlockProof, address: string, codeHash: Uint8Array, at: string): Promise<void> {
    const id = toHexRaw(codeHash);
    if (codeHash.length !== 32 || bytesEqual(codeHash, EMPTY_CODE_HASH) || proof.codes.has(id)) return;
    let code = await codeByHash(this.client, codeHash);
    if (code === undefined) {
      try {
        const raw = await this.client.call("eth_getCode", [`0x${address}`, at]);
        if (typeof raw === "string") code = fromHex(raw);
      } catch (error) {
        if (!(error instanceof RemoteCallError)) throw error;
      }
    }
    // A code that does not hash to the account's code hash is left out: the run then misses it and says so.
    if (code === undefined || !bytesEqual(keccak256(code), codeHash)) return;
    proof.codes.add(id);
    proof.put(code);
  }
}
