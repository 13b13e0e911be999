/**
 * The program's prologue without a devnet: the agreed output root opened over a preimage store to the agreed L2
 * head, each way the opening can fail refused with its own class (docs/proof.md "Fail closed").
 */
import { describe, expect, it } from "vitest";
import {
  type BlockHeader,
  EMPTY_TRIE_ROOT,
  encodeHeader,
  headerHash,
  keccak256,
  OutputRootPreimageError,
  outputRootPreimageV0,
  PreimageStore,
} from "../../chain/index.js";
import {
  AgreedOutputMismatchError,
  InvalidWitnessError,
  MissingWitnessError,
  OfflineOracle,
  openAgreedOutput,
} from "./index.js";

const bytes = (fill: number, length = 32) => new Uint8Array(length).fill(fill);

/** An L2 header; from Isthmus (a requests hash) its withdrawalsRoot is the message passer's storage root. */
function l2Header(stateRoot: Uint8Array, passerRoot: Uint8Array | undefined): BlockHeader {
  return {
    parentHash: bytes(1),
    ommersHash: bytes(2),
    beneficiary: bytes(3, 20),
    stateRoot,
    transactionsRoot: EMPTY_TRIE_ROOT,
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: new Uint8Array(256),
    difficulty: 0n,
    number: 41n,
    gasLimit: 30_000_000n,
    gasUsed: 0n,
    timestamp: 1_700_000_000n,
    extraData: new Uint8Array(),
    mixHash: bytes(4),
    nonce: new Uint8Array(8),
    baseFeePerGas: 1n,
    withdrawalsRoot: passerRoot ?? EMPTY_TRIE_ROOT,
    blobGasUsed: 0n,
    excessBlobGas: 0n,
    parentBeaconBlockRoot: bytes(5),
    ...(passerRoot === undefined ? {} : { requestsHash: bytes(6) }),
  };
}

/** A store with `header` and the output root over `preimage` (stored under `root`, by default its hash). */
function agreed(header: BlockHeader, preimage: Uint8Array, root = keccak256(preimage)) {
  const store = new PreimageStore();
  store.putKeccak256(encodeHeader(header));
  store.putKeccak256Trusted(root, preimage);
  return { oracle: new OfflineOracle(store), root };
}

async function refusal(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => expect.unreachable("the agreed output was opened"),
    (error: unknown) => error,
  );
}

describe("openAgreedOutput", () => {
  const stateRoot = bytes(0xa1);
  const passerRoot = bytes(0xb2);
  const header = l2Header(stateRoot, passerRoot);
  const hash = headerHash(header);

  it("opens the output root to the agreed head whose header carries its state and message passer roots", async () => {
    const { oracle, root } = agreed(header, outputRootPreimageV0(stateRoot, passerRoot, hash));
    const head = await openAgreedOutput(oracle, root);
    expect(head.number).toBe(41n);
    expect(head.hash).toEqual(hash);
    expect(head.header).toEqual(header);
  });

  it("refuses a missing preimage as missing", async () => {
    const store = new PreimageStore();
    const error = await refusal(openAgreedOutput(new OfflineOracle(store), bytes(0x33)));
    expect(error).toBeInstanceOf(MissingWitnessError);
    expect((error as MissingWitnessError).message).toContain("(agreed output root)");
  });

  it("refuses a preimage of another length or hash as an invalid witness, the opening's error as its cause", async () => {
    const preimage = outputRootPreimageV0(stateRoot, passerRoot, hash);
    for (const [value, fault] of [
      [preimage.subarray(0, 96), "length"],
      [Uint8Array.from(preimage, (b, i) => (i === 127 ? b ^ 1 : b)), "hash"],
    ] as const) {
      const { oracle } = agreed(header, value, keccak256(preimage));
      const error = await refusal(openAgreedOutput(oracle, keccak256(preimage)));
      expect(error).toBeInstanceOf(InvalidWitnessError);
      expect((error as InvalidWitnessError).details).toEqual({ what: "agreed output" });
      expect((error as InvalidWitnessError).cause).toBeInstanceOf(OutputRootPreimageError);
      expect(((error as InvalidWitnessError).cause as OutputRootPreimageError).fault).toBe(fault);
    }
  });

  it("refuses an output root of another version", async () => {
    const preimage = outputRootPreimageV0(stateRoot, passerRoot, hash);
    preimage[31] = 1;
    const { oracle, root } = agreed(header, preimage);
    const error = await refusal(openAgreedOutput(oracle, root));
    expect(error).toBeInstanceOf(AgreedOutputMismatchError);
    expect((error as AgreedOutputMismatchError).details).toEqual({ field: "version" });
  });

  it("refuses a head whose state root or Isthmus message passer root is not the output root's", async () => {
    for (const [preimage, field] of [
      [outputRootPreimageV0(bytes(0xee), passerRoot, hash), "stateRoot"],
      [outputRootPreimageV0(stateRoot, bytes(0xee), hash), "messagePasserStorageRoot"],
    ] as const) {
      const { oracle, root } = agreed(header, preimage);
      const error = await refusal(openAgreedOutput(oracle, root));
      expect(error).toBeInstanceOf(AgreedOutputMismatchError);
      expect((error as AgreedOutputMismatchError).details).toEqual({ field, number: 41n });
    }
  });

  it("reads a pre-Isthmus head's message passer root from its state, and refuses a state without the account", async () => {
    const before = l2Header(EMPTY_TRIE_ROOT, undefined);
    const beforeHash = headerHash(before);
    const { oracle, root } = agreed(before, outputRootPreimageV0(EMPTY_TRIE_ROOT, passerRoot, beforeHash));
    const error = await refusal(openAgreedOutput(oracle, root));
    expect(error).toBeInstanceOf(AgreedOutputMismatchError);
    expect((error as AgreedOutputMismatchError).details).toEqual({ field: "messagePasserStorageRoot" });
    expect((error as Error).message).toMatch(/L2ToL1MessagePasser account is absent/);
  });
});
