/**
 * What a value the witness lacks was (src/host/witness/missing-value.ts): a state built by the chain's own genesis
 * code (accounts, one with code and storage) under a header, then one value taken away at a time. The missing
 * value is named by kind (trie node, code, header), by its full hash, and by the block whose execution reads it;
 * a hash nothing names is `unknown`. The error the oracle throws with it is sorted by the failure table.
 */
import { RLP } from "@ethereumjs/rlp";
import { describe, expect, it } from "vitest";
import {
  type BlockHeader,
  bigIntToBytes,
  bigIntToWord,
  buildGenesisState,
  EMPTY_OMMERS_HASH,
  EMPTY_TRIE_ROOT,
  encodeHeader,
  FastTrie,
  keccak256,
  keccak256Key,
  PreimageKeyType,
  PreimageStore,
  toHex,
} from "../../src/chain/index.js";
import { proofFailure } from "../../src/host/proof-failures.js";
import { proofRpcError } from "../../src/host/handlers.js";
import { MissingWitnessValueError, missingValueOrigin } from "../../src/host/witness/index.js";

const CODE = Uint8Array.from([0x60, 0x00, 0x54, 0x60, 0x01, 0x01, 0x60, 0x00, 0x55, 0x00]);
const SLOTS = new Map([1n, 2n, 3n, 4n, 5n, 6n].map((slot) => [slot, slot * 1000n]));
const address = (i: number) => Uint8Array.from({ length: 20 }, (_, j) => (i * 31 + j * 7) & 0xff);

const store = new PreimageStore();
const alloc = new Map(
  Array.from({ length: 40 }, (_, i) => [
    address(i),
    i === 5 ? { balance: 1n, code: CODE, storage: SLOTS } : { balance: BigInt(i + 1) },
  ]),
);
const stateRoot = buildGenesisState(store, alloc);
const storageRoot = new FastTrie({
  getNode() {
    throw new Error("unused");
  },
  putNode() {},
}).update(
  EMPTY_TRIE_ROOT,
  [...SLOTS].map(([slot, value]) => [keccak256(bigIntToWord(slot)), RLP.encode(bigIntToBytes(value))]),
);
const parentHash = keccak256(Uint8Array.of(1, 2, 3));
const header: BlockHeader = {
  parentHash,
  ommersHash: EMPTY_OMMERS_HASH,
  beneficiary: new Uint8Array(20),
  stateRoot,
  transactionsRoot: EMPTY_TRIE_ROOT,
  receiptsRoot: EMPTY_TRIE_ROOT,
  logsBloom: new Uint8Array(256),
  difficulty: 0n,
  number: 7n,
  gasLimit: 30_000_000n,
  gasUsed: 0n,
  timestamp: 1_700_000_000n,
  extraData: new Uint8Array(0),
  mixHash: new Uint8Array(32),
  nonce: new Uint8Array(8),
  baseFeePerGas: 1n,
};
const values = [
  encodeHeader(header),
  ...Array.from(store.entries())
    .filter(([key]) => key[0] === PreimageKeyType.Keccak256)
    .map(([, value]) => value),
];

/** The origin of `hash` among the values without its own. */
const originOf = (hash: Uint8Array) =>
  missingValueOrigin(
    keccak256Key(hash),
    values.filter((value) => toHex(keccak256(value)) !== toHex(hash)),
  );

describe("a value the witness lacks", () => {
  it("the state root: a trie node read executing the block after the header", () => {
    expect(originOf(stateRoot)).toEqual({ kind: "trie-node", hash: stateRoot, block: 8n });
  });

  it("a node under the root: a trie node of the same block", () => {
    const root = RLP.decode(values.find((v) => toHex(keccak256(v)) === toHex(stateRoot))!) as Uint8Array[];
    const child = root.find((item) => item.length === 32)!;
    expect(originOf(child)).toEqual({ kind: "trie-node", hash: child, block: 8n });
  });

  it("an account's code and its storage root", () => {
    const codeHash = keccak256(CODE);
    expect(originOf(codeHash)).toEqual({ kind: "code", hash: codeHash, block: 8n });
    expect(originOf(storageRoot)).toEqual({ kind: "trie-node", hash: storageRoot, block: 8n });
  });

  it("a header: the parent of the header that names it", () => {
    expect(originOf(parentHash)).toEqual({ kind: "header", hash: parentHash, block: 7n });
  });

  it("a hash no value names is unknown", () => {
    expect(originOf(keccak256(Uint8Array.of(9)))).toEqual({
      kind: "unknown",
      hash: undefined,
      block: undefined,
    });
  });

  it("the error names the kind, the hash, the block and the endpoint, and is sorted as the endpoint's fault", () => {
    const error = new MissingWitnessValueError({
      kind: "code",
      hash: toHex(keccak256(CODE)),
      block: 8n,
      endpoint: "http://127.0.0.1:9545",
      strategy: "execution-witness",
    });
    expect(error.message).toBe(
      `the L2 block witnesses from http://127.0.0.1:9545 (execution-witness) lack the code ${toHex(keccak256(CODE))} of L2 block 8, and the endpoint does not answer it by hash`,
    );
    expect(error.details).toMatchObject({ hint: "state", kind: "code", block: 8n });
    expect(proofFailure(error, true)).toMatchObject({ outcome: "witness_error", log: { level: "warn" } });
    expect(proofRpcError(error).code).toBe(-32000);
  });
});
