/**
 * The two KZG backends against each other: micro-eth-signer with the fast trusted setup (`js`) and c-kzg (`native`,
 * c-kzg-4844 over blst, which loads the ceremony's compressed, subgroup-checked points). The same commitments, blob
 * proofs and openings for a random blob and edge blobs, each side accepting the other's proofs (the five real Goerli
 * sidecars are checked against their published commitments and proofs in src/derive/blob/kzg.test.ts). Equal
 * commitments over a random blob prove the fast setup's G1 Lagrange points are the ceremony's; c-kzg accepting
 * micro-eth-signer's openings proves its G2 point is. Both refuse the same bad inputs. Then the choice of backend
 * (OP_KZG_BACKEND, the fallback when the addon does not load), and the EVM's point-evaluation precompile (0x0a) over
 * each backend: a valid opening returns FIELD_ELEMENTS_PER_BLOB ‖ BLS_MODULUS for 50000 gas; a wrong value, a wrong
 * versioned hash and a non-canonical point fail with all gas consumed.
 */
import { randomBytes } from "node:crypto";
import { createEVM } from "@ethereumjs/evm";
import { createAddressFromString } from "@ethereumjs/util";
import { sha256 } from "@noble/hashes/sha2.js";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { commonFor, opPrecompiles } from "./evm-setup.js";
import {
  type EthKzg,
  KZG_BACKEND_ENV,
  KzgBackendError,
  KzgInputSizeError,
  ethKzgBackendChoice,
  ethereumjsKzg,
  kzgBackendSetting,
  loadEthKzg,
  loadEthKzgBackend,
} from "./kzg.js";
import { OpFork } from "./rollup-config.js";

const BLS_MODULUS = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
const hex = (b: Uint8Array): string => `0x${Buffer.from(b).toString("hex")}`;
const word = (n: bigint): Uint8Array => Uint8Array.from(Buffer.from(n.toString(16).padStart(64, "0"), "hex"));

/** A blob of 4096 random canonical field elements (each below 2^254 < BLS_MODULUS). */
function randomBlob(): Uint8Array {
  const blob = randomBytes(131072);
  for (let i = 0; i < 4096; i++) blob[i * 32]! &= 0x3f;
  return Uint8Array.from(blob);
}

/** A blob whose every element is BLS_MODULUS - 1 (the largest canonical value). */
function maxBlob(): Uint8Array {
  const blob = new Uint8Array(131072);
  const top = word(BLS_MODULUS - 1n);
  for (let i = 0; i < 4096; i++) blob.set(top, i * 32);
  return blob;
}

function versionedHash(commitment: Uint8Array): Uint8Array {
  const out = sha256(commitment);
  out[0] = 0x01;
  return out;
}

let js: EthKzg;
let native: EthKzg;
/** One random blob, its commitment and its opening at a random point, computed by micro-eth-signer once. */
let shared: { blob: Uint8Array; commitment: Uint8Array; z: Uint8Array; y: Uint8Array; proof: Uint8Array };
beforeAll(async () => {
  [js, native] = await Promise.all([loadEthKzgBackend("js"), loadEthKzgBackend("native")]);
  const blob = randomBlob();
  const z = word(BigInt(hex(randomBytes(32))) % BLS_MODULUS);
  const [proof, y] = js.computeKzgProof(blob, z);
  shared = { blob, commitment: js.blobToKzgCommitment(blob), z, y, proof };
}, 300_000);

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("the two KZG backends", { timeout: 120_000 }, () => {
  it("load once per process, each under its name", async () => {
    expect(js.backend).toBe("js");
    expect(native.backend).toBe("native");
    expect(await loadEthKzgBackend("js")).toBe(js);
    expect(await loadEthKzgBackend("native")).toBe(native);
  });

  it("compute the same commitments and blob proofs, and each accepts the other's proofs", () => {
    const { blob, commitment } = shared;
    expect(hex(native.blobToKzgCommitment(blob))).toBe(hex(commitment));
    const proof = js.computeBlobKzgProof(blob, commitment);
    expect(hex(native.computeBlobKzgProof(blob, commitment))).toBe(hex(proof));
    expect(js.verifyBlobKzgProof(blob, commitment, proof)).toBe(true);
    expect(native.verifyBlobKzgProof(blob, commitment, proof)).toBe(true);
    // Every element at BLS_MODULUS - 1, and the all-zero blob (the point at infinity). A blob inside a larger buffer
    // (a subarray, as a beacon response's blobs are) is read at its offset.
    const zero = new Uint8Array(131072 + 64).subarray(32, 32 + 131072);
    for (const edge of [maxBlob(), zero]) {
      const edgeCommitment = js.blobToKzgCommitment(edge);
      expect(hex(native.blobToKzgCommitment(edge))).toBe(hex(edgeCommitment));
      const edgeProof = native.computeBlobKzgProof(edge, edgeCommitment);
      expect(hex(js.computeBlobKzgProof(edge, edgeCommitment))).toBe(hex(edgeProof));
      expect(js.verifyBlobKzgProof(edge, edgeCommitment, edgeProof)).toBe(true);
      expect(native.verifyBlobKzgProof(edge, edgeCommitment, edgeProof)).toBe(true);
    }
    expect(hex(native.blobToKzgCommitment(zero))).toBe(`0xc0${"00".repeat(47)}`);
  });

  it("open a blob at a random point alike, verify each other's opening, and refuse a wrong value", () => {
    const { blob, commitment, z, y, proof } = shared;
    const [nativeProof, nativeY] = native.computeKzgProof(blob, z);
    expect([hex(nativeProof), hex(nativeY)]).toEqual([hex(proof), hex(y)]);
    expect(js.verifyKzgProof(commitment, z, y, proof)).toBe(true);
    expect(native.verifyKzgProof(commitment, z, y, proof)).toBe(true);
    const wrongY = word((BigInt(hex(y)) + 1n) % BLS_MODULUS);
    expect(js.verifyKzgProof(commitment, z, wrongY, proof)).toBe(false);
    expect(native.verifyKzgProof(commitment, z, wrongY, proof)).toBe(false);
    // Another blob's proof for this blob and commitment.
    const otherProof = native.computeBlobKzgProof(maxBlob(), native.blobToKzgCommitment(maxBlob()));
    expect(js.verifyBlobKzgProof(blob, commitment, otherProof)).toBe(false);
    expect(native.verifyBlobKzgProof(blob, commitment, otherProof)).toBe(false);
  });

  it("refuse alike: a non-canonical element, points off the curve, a non-canonical z, wrong sizes", () => {
    const { commitment, z, y, proof } = shared;
    const nonCanonical = shared.blob.slice();
    nonCanonical.set(word(BLS_MODULUS), 32 * 7);
    const offCurve = Uint8Array.from([commitment[0]! | 0x80, ...new Uint8Array(47).fill(0x11)]);
    const zPlusModulus = word(BigInt(hex(z)) + BLS_MODULUS);
    for (const kzg of [js, native]) {
      expect(() => kzg.blobToKzgCommitment(nonCanonical), kzg.backend).toThrow();
      expect(() => kzg.computeKzgProof(shared.blob, zPlusModulus), kzg.backend).toThrow();
      expect(kzg.verifyBlobKzgProof(shared.blob, offCurve, proof), kzg.backend).toBe(false);
      expect(kzg.verifyBlobKzgProof(nonCanonical, commitment, proof), kzg.backend).toBe(false);
      expect(kzg.verifyKzgProof(commitment, z, y, offCurve), kzg.backend).toBe(false);
      expect(kzg.verifyKzgProof(offCurve, z, y, proof), kzg.backend).toBe(false);
      expect(kzg.verifyKzgProof(commitment, zPlusModulus, y, proof), kzg.backend).toBe(false);
      expect(() => kzg.blobToKzgCommitment(shared.blob.subarray(1)), kzg.backend).toThrow(KzgInputSizeError);
      expect(() => kzg.computeBlobKzgProof(shared.blob, commitment.subarray(1))).toThrow(KzgInputSizeError);
      expect(kzg.verifyBlobKzgProof(shared.blob, commitment, proof.subarray(1)), kzg.backend).toBe(false);
      expect(kzg.verifyKzgProof(commitment, z.subarray(1), y, proof), kzg.backend).toBe(false);
    }
  });
});

describe("the choice of backend", () => {
  it("reads OP_KZG_BACKEND: native, js, unset or empty for auto; anything else is an error", () => {
    expect(kzgBackendSetting({})).toBe("auto");
    expect(kzgBackendSetting({ [KZG_BACKEND_ENV]: "" })).toBe("auto");
    expect(kzgBackendSetting({ [KZG_BACKEND_ENV]: "native" })).toBe("native");
    expect(kzgBackendSetting({ [KZG_BACKEND_ENV]: "js" })).toBe("js");
    expect(() => kzgBackendSetting({ [KZG_BACKEND_ENV]: "wasm" })).toThrow(KzgBackendError);
  });

  it("is c-kzg when its addon loads and nothing is asked, once per process", async () => {
    vi.stubEnv(KZG_BACKEND_ENV, "");
    const kzg = await loadEthKzg();
    expect(kzg).toBe(native);
    expect(await loadEthKzg()).toBe(kzg);
    expect(ethKzgBackendChoice()).toEqual({ backend: "native", reason: "c-kzg loaded" });
  });

  let copies = 0;
  /**
   * A fresh copy of the module (its choice not yet made), optionally with node:module's require failing. A copy of
   * its own (a query on its URL), not the worker's module graph reset: the other files of this shared test worker
   * keep the modules they evaluated.
   */
  async function freshModule(addonMissing: boolean): Promise<typeof import("./kzg.js")> {
    if (addonMissing) {
      vi.doMock("node:module", () => ({
        createRequire: () => (id: string) => {
          throw new Error(`Cannot find module '${id}'`);
        },
      }));
    }
    try {
      const copy = `./kzg.js?copy=${++copies}`;
      return (await import(/* @vite-ignore */ copy)) as typeof import("./kzg.js");
    } finally {
      vi.doUnmock("node:module");
    }
  }

  it("follows OP_KZG_BACKEND, and refuses an unknown value", async () => {
    vi.stubEnv(KZG_BACKEND_ENV, "js");
    const asJs = await freshModule(false);
    expect((await asJs.loadEthKzg()).backend).toBe("js");
    expect(asJs.ethKzgBackendChoice()).toEqual({ backend: "js", reason: `${KZG_BACKEND_ENV}=js` });
    // A second copy of the module in this thread finds c-kzg's setup already loaded, and uses it.
    vi.stubEnv(KZG_BACKEND_ENV, "native");
    const asNative = await freshModule(false);
    const loaded = await asNative.loadEthKzg();
    expect(loaded.backend).toBe("native");
    expect(hex(loaded.blobToKzgCommitment(shared.blob))).toBe(hex(shared.commitment));
    vi.stubEnv(KZG_BACKEND_ENV, "wasm");
    const unknown = await freshModule(false);
    await expect(unknown.loadEthKzg()).rejects.toThrow(/OP_KZG_BACKEND must be/);
  });

  it("gives the precompile micro-eth-signer until c-kzg is chosen for blobs, without loading c-kzg for it", async () => {
    vi.stubEnv(KZG_BACKEND_ENV, "");
    const fresh = await freshModule(false);
    expect((await fresh.loadPointEvaluationKzg()).backend).toBe("js");
    expect(fresh.ethKzgBackendChoice()).toBeUndefined();
    expect((await fresh.loadEthKzg()).backend).toBe("native");
    expect((await fresh.loadPointEvaluationKzg()).backend).toBe("native");
    vi.stubEnv(KZG_BACKEND_ENV, "native");
    const asked = await freshModule(false);
    expect((await asked.loadPointEvaluationKzg()).backend).toBe("native");
  });

  it("falls back to micro-eth-signer, with one warning, when c-kzg does not load; never when native is asked", async () => {
    vi.stubEnv(KZG_BACKEND_ENV, "");
    const warnings: string[] = [];
    const onWarning = (w: Error & { code?: string }): void => {
      if (w.code === "OP_KZG_FALLBACK") warnings.push(w.message);
    };
    process.on("warning", onWarning);
    try {
      const missing = await freshModule(true);
      const kzg = await missing.loadEthKzg();
      expect(kzg.backend).toBe("js");
      expect(await missing.loadEthKzg()).toBe(kzg);
      expect(missing.ethKzgBackendChoice()?.reason).toMatch(
        /c-kzg\) did not load: Cannot find module 'c-kzg'/,
      );
      await vi.waitFor(() => expect(warnings).toHaveLength(1));
      expect(warnings[0]).toMatch(/using the pure-JavaScript KZG backend/);
      vi.stubEnv(KZG_BACKEND_ENV, "native");
      const forced = await freshModule(true);
      await expect(forced.loadEthKzg()).rejects.toBeInstanceOf(forced.KzgBackendError);
    } finally {
      process.off("warning", onWarning);
    }
  });
});

describe("the point-evaluation precompile (0x0a) over each backend", () => {
  type Result = { executionGasUsed: bigint; returnValue: Uint8Array; exceptionError?: unknown };
  /**
   * Calls 0x0a in an EVM built as src/chain's block builder builds one (OP precompiles at Ecotone), over `kzg`, or
   * over the backend the precompile loads on first use (`loadPointEvaluationKzg`).
   */
  async function precompile(kzg: EthKzg | undefined): Promise<(data: Uint8Array) => Promise<Result>> {
    const common = commonFor(10n, OpFork.Ecotone);
    if (kzg !== undefined) (common.customCrypto as { kzg?: unknown }).kzg = ethereumjsKzg(kzg);
    const evm = await createEVM({ common, customPrecompiles: opPrecompiles(common, OpFork.Ecotone) });
    const to = createAddressFromString("0x000000000000000000000000000000000000000a");
    return async (data) => (await evm.runCall({ to, data, gasLimit: 100_000n })).execResult;
  }

  it.each(["js", "native", "loaded on first use"] as const)(
    "%s: returns FIELD_ELEMENTS_PER_BLOB ‖ BLS_MODULUS for a valid opening, and fails with all gas otherwise",
    async (which) => {
      const call = await precompile(which === "js" ? js : which === "native" ? native : undefined);
      const { commitment, z, y, proof } = shared;
      const input = (vh: Uint8Array, zz: Uint8Array, yy: Uint8Array, pp = proof): Uint8Array =>
        Uint8Array.from([...vh, ...zz, ...yy, ...commitment, ...pp]);
      const ok = await call(input(versionedHash(commitment), z, y));
      expect(ok.exceptionError).toBeUndefined();
      expect(ok.executionGasUsed).toBe(50_000n);
      expect(hex(ok.returnValue)).toBe(hex(Uint8Array.from([...word(4096n), ...word(BLS_MODULUS)])));
      const otherHash = versionedHash(commitment);
      otherHash[31]! ^= 1;
      const offCurve = Uint8Array.from([0x80 | 0x20, ...new Uint8Array(47).fill(0x11)]);
      for (const data of [
        input(versionedHash(commitment), z, word(BigInt(hex(y)) ^ 1n)),
        input(otherHash, z, y),
        input(versionedHash(commitment), word(BigInt(hex(z)) + BLS_MODULUS), y),
        input(versionedHash(commitment), z, y, offCurve),
      ]) {
        const failed = await call(data);
        expect(failed.exceptionError).toBeDefined();
        expect(failed.executionGasUsed).toBe(100_000n);
      }
    },
  );
});
