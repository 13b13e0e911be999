/**
 * The KZG backend (micro-eth-signer with the fast trusted setup) against kzg-wasm (c-kzg-4844 in WebAssembly, which
 * loads the ceremony's compressed, subgroup-checked points): the same commitments and blob proofs for a random blob
 * and edge blobs, each side accepting the other's proofs (the five real Goerli sidecars are checked against their
 * published commitments and proofs in src/derive/blob/kzg.test.ts). Equal commitments over a random blob prove the
 * fast setup's G1 Lagrange points are the ceremony's; kzg-wasm accepting our openings proves its G2 point is. Each
 * operation costs over a second of CPU, so one random blob and its opening are computed once and shared. Then the EVM's point-evaluation precompile (0x0a) over the backend:
 * a valid opening returns FIELD_ELEMENTS_PER_BLOB ‖ BLS_MODULUS for 50000 gas; a wrong value, a wrong versioned hash
 * and a non-canonical point fail with all gas consumed.
 */
import { randomBytes } from "node:crypto";
import { createEVM } from "@ethereumjs/evm";
import { createAddressFromString } from "@ethereumjs/util";
import { sha256 } from "@noble/hashes/sha2.js";
import { beforeAll, describe, expect, it } from "vitest";
import { commonFor, opPrecompiles } from "./evm-setup.js";
import { type EthKzg, loadEthKzg } from "./kzg.js";
import { OpFork } from "./rollup-config.js";

/** The kzg-wasm methods this cross-check calls (hex strings in, hex strings out). */
interface KzgWasm {
  blobToKZGCommitment(blob: string): string;
  computeBlobKZGProof(blob: string, commitment: string): string;
  verifyBlobKZGProof(blob: string, commitment: string, proof: string): boolean;
  verifyKZGProof(commitment: string, z: string, y: string, proof: string): boolean;
}

const BLS_MODULUS = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
const hex = (b: Uint8Array): string => `0x${Buffer.from(b).toString("hex")}`;
const unhex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.slice(2), "hex"));
const word = (n: bigint): Uint8Array => unhex(`0x${n.toString(16).padStart(64, "0")}`);

/** A blob of 4096 random canonical field elements (each below 2^254 < BLS_MODULUS). */
function randomBlob(): Uint8Array {
  const blob = randomBytes(131072);
  for (let i = 0; i < 4096; i++) blob[i * 32]! &= 0x3f;
  return blob;
}

/** A blob whose every element is BLS_MODULUS - 1 (the largest canonical value). */
function maxBlob(): Uint8Array {
  const blob = new Uint8Array(131072);
  const top = word(BLS_MODULUS - 1n);
  for (let i = 0; i < 4096; i++) blob.set(top, i * 32);
  return blob;
}

function versionedHash(commitment: string): Uint8Array {
  const out = sha256(unhex(commitment));
  out[0] = 0x01;
  return out;
}

let ours: EthKzg;
let wasm: KzgWasm;
/** One random blob, its commitment and its opening at a random point: computed once (over a second of CPU each). */
let shared: { blob: Uint8Array; commitment: string; z: Uint8Array; y: string; proof: string };
beforeAll(async () => {
  ours = await loadEthKzg();
  const blob = randomBlob();
  const z = word(BigInt(hex(randomBytes(32))) % BLS_MODULUS);
  const [proof, y] = ours.computeProof(hex(blob), hex(z));
  shared = { blob, commitment: ours.blobToKzgCommitment(hex(blob)), z, y, proof };
  // kzg-wasm's load runs c-kzg's PeerDAS precomputation: 14 s of CPU on a calm machine, a minute when loaded.
  const { loadKZG } = await import("kzg-wasm");
  wasm = (await loadKZG()) as unknown as KzgWasm;
}, 300_000);

describe("the KZG backend against kzg-wasm", () => {
  it("loads once per process", async () => {
    expect(await loadEthKzg()).toBe(ours);
  });

  it("computes the same commitments and blob proofs, and each accepts the other's proofs", () => {
    // A random blob: commitment and blob proof from both libraries.
    const b = hex(shared.blob);
    expect(shared.commitment).toBe(wasm.blobToKZGCommitment(b).toLowerCase());
    const proof = ours.computeBlobProof(b, shared.commitment);
    expect(proof).toBe(wasm.computeBlobKZGProof(b, shared.commitment).toLowerCase());
    expect(ours.verifyBlobProof(b, shared.commitment, proof)).toBe(true);
    expect(wasm.verifyBlobKZGProof(b, shared.commitment, proof)).toBe(true);
    // Every element at BLS_MODULUS - 1 and the all-zero blob (the point at infinity): the same commitments, and
    // kzg-wasm accepts our proofs.
    for (const edge of [maxBlob(), new Uint8Array(131072)]) {
      const e = hex(edge);
      const commitment = ours.blobToKzgCommitment(e);
      expect(commitment).toBe(wasm.blobToKZGCommitment(e).toLowerCase());
      const edgeProof = ours.computeBlobProof(e, commitment);
      expect(ours.verifyBlobProof(e, commitment, edgeProof)).toBe(true);
      expect(wasm.verifyBlobKZGProof(e, commitment, edgeProof)).toBe(true);
    }
    expect(ours.blobToKzgCommitment(hex(new Uint8Array(131072)))).toBe(`0xc0${"00".repeat(47)}`);
  });

  it("opens a blob at a random point as kzg-wasm verifies, and both refuse a wrong value", () => {
    const { commitment, z, y, proof } = shared;
    expect(ours.verifyProof(commitment, hex(z), y, proof)).toBe(true);
    expect(wasm.verifyKZGProof(commitment, hex(z), y, proof)).toBe(true);
    const wrongY = hex(word((BigInt(y) + 1n) % BLS_MODULUS));
    expect(ours.verifyProof(commitment, hex(z), wrongY, proof)).toBe(false);
    expect(wasm.verifyKZGProof(commitment, hex(z), wrongY, proof)).toBe(false);
  });

  it("refuses what kzg-wasm refuses: a non-canonical element, a point off the curve, a non-canonical z", () => {
    const blob = shared.blob.slice();
    blob.set(word(BLS_MODULUS), 32 * 7);
    expect(() => ours.blobToKzgCommitment(hex(blob))).toThrow();
    expect(() => wasm.blobToKZGCommitment(hex(blob))).toThrow();
    const { commitment, z, y, proof } = shared;
    const offCurve = `0x${(parseInt(commitment.slice(2, 4), 16) | 0x80).toString(16)}${"11".repeat(47)}`;
    expect(ours.verifyBlobProof(hex(shared.blob), offCurve, proof)).toBe(false);
    expect(wasm.verifyBlobKZGProof(hex(shared.blob), offCurve, proof)).toBe(false);
    expect(ours.verifyProof(commitment, hex(z), y, offCurve)).toBe(false);
    expect(wasm.verifyKZGProof(commitment, hex(z), y, offCurve)).toBe(false);
    const zPlusModulus = hex(word(BigInt(hex(z)) + BLS_MODULUS));
    expect(ours.verifyProof(commitment, zPlusModulus, y, proof)).toBe(false);
    expect(wasm.verifyKZGProof(commitment, zPlusModulus, y, proof)).toBe(false);
  });
});

describe("the point-evaluation precompile (0x0a) over the backend", () => {
  type Result = { executionGasUsed: bigint; returnValue: Uint8Array; exceptionError?: unknown };
  /** Calls 0x0a in an EVM built as src/chain's block builder builds one (OP precompiles at Ecotone). */
  async function precompile(): Promise<(data: Uint8Array) => Promise<Result>> {
    const common = commonFor(10n, OpFork.Ecotone);
    const evm = await createEVM({ common, customPrecompiles: opPrecompiles(common, OpFork.Ecotone) });
    const to = createAddressFromString("0x000000000000000000000000000000000000000a");
    return async (data) => (await evm.runCall({ to, data, gasLimit: 100_000n })).execResult;
  }

  it("returns FIELD_ELEMENTS_PER_BLOB ‖ BLS_MODULUS for a valid opening, and fails with all gas otherwise", async () => {
    const call = await precompile();
    const { commitment, z, y, proof } = shared;
    const input = (vh: Uint8Array, zz: Uint8Array, yy: Uint8Array): Uint8Array =>
      Uint8Array.from([...vh, ...zz, ...yy, ...unhex(commitment), ...unhex(proof)]);
    const ok = await call(input(versionedHash(commitment), z, unhex(y)));
    expect(ok.exceptionError).toBeUndefined();
    expect(ok.executionGasUsed).toBe(50_000n);
    expect(hex(ok.returnValue)).toBe(hex(Uint8Array.from([...word(4096n), ...word(BLS_MODULUS)])));
    const wrongValue = await call(input(versionedHash(commitment), z, word(BigInt(y) ^ 1n)));
    expect(wrongValue.exceptionError).toBeDefined();
    expect(wrongValue.executionGasUsed).toBe(100_000n);
    const otherHash = versionedHash(commitment);
    otherHash[31]! ^= 1;
    const wrongHash = await call(input(otherHash, z, unhex(y)));
    expect(wrongHash.exceptionError).toBeDefined();
    expect(wrongHash.executionGasUsed).toBe(100_000n);
    const zPlusModulus = word(BigInt(hex(z)) + BLS_MODULUS);
    const nonCanonical = await call(input(versionedHash(commitment), zPlusModulus, unhex(y)));
    expect(nonCanonical.exceptionError).toBeDefined();
    expect(nonCanonical.executionGasUsed).toBe(100_000n);
  });
});
