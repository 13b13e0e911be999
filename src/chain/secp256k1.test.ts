import { createTx } from "@ethereumjs/tx";
import { RLP } from "@ethereumjs/rlp";
import {
  SECP256K1_ORDER,
  bigIntToBytes,
  bigIntToUnpaddedBytes,
  bytesToHex,
  concatBytes,
} from "@ethereumjs/util";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { commonFor } from "./evm-setup.js";
import { OpFork } from "./rollup-config.js";
import { decodeTransaction } from "./transactions.js";
import { type Ecrecover, ecrecoverJs, ecrecoverNative, secp256k1Backend } from "./secp256k1.js";

const N = SECP256K1_ORDER;
const HALF_N = N / 2n;

/** What an implementation answers: the key as hex, or that it threw. */
function outcome(f: Ecrecover, ...args: Parameters<Ecrecover>): string {
  try {
    return bytesToHex(f(...args));
  } catch {
    return "invalid";
  }
}

function native(): Ecrecover {
  if (ecrecoverNative === undefined) throw new Error("libsecp256k1 did not load");
  return ecrecoverNative;
}

const secretKey = fc
  .bigInt({ min: 1n, max: N - 1n })
  .map((k) => bigIntToBytes(k).slice(0))
  .map((b) => {
    const out = new Uint8Array(32);
    out.set(b, 32 - b.length);
    return out;
  });
const hash32 = fc.uint8Array({ minLength: 32, maxLength: 32 });
/** v as transactions and the precompile carry it: 0/1, 27/28, EIP-155 for small chain ids, and junk. */
const vFor = (parity: number, chainId: bigint): fc.Arbitrary<{ v: bigint; chainId?: bigint }> =>
  fc.constantFrom<{ v: bigint; chainId?: bigint }>(
    { v: BigInt(parity) },
    { v: 27n + BigInt(parity) },
    { v: chainId * 2n + 35n + BigInt(parity), chainId },
  );

describe("secp256k1 recovery: libsecp256k1 and pure JS agree", () => {
  it("uses libsecp256k1 on this platform (the secp256k1 package ships a linux-x64 prebuilt addon)", () => {
    expect(secp256k1Backend).toBe("libsecp256k1");
  });

  it("recovers the signer's key from valid signatures, low-s and high-s alike", () => {
    fc.assert(
      fc.property(
        secretKey,
        hash32,
        fc.bigInt({ min: 1n, max: 1n << 40n }),
        fc.boolean(),
        fc.nat(2),
        (sk, msg, chainId, flipS, vForm) => {
          const sig = secp256k1.sign(msg, sk, { prehash: false, format: "recovered" });
          let parity = sig[0]!;
          let s = sig.subarray(33);
          if (flipS) {
            // The same signature with s' = n - s and the other recovery id (the precompile accepts it).
            s = bigIntToBytes(N - BigInt(bytesToHex(s)));
            parity ^= 1;
          }
          const forms = [
            { v: BigInt(parity) },
            { v: 27n + BigInt(parity) },
            { v: chainId * 2n + 35n + BigInt(parity), chainId },
          ];
          const { v, chainId: c } = forms[vForm]!;
          const r = sig.subarray(1, 33);
          const expected = bytesToHex(secp256k1.getPublicKey(sk, false).subarray(1));
          expect(outcome(ecrecoverJs, msg, v, r, s, c)).toBe(expected);
          expect(outcome(native(), msg, v, r, s, c)).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("accept and reject the same arbitrary (mostly invalid) signatures", () => {
    const scalar = fc.oneof(
      fc.constantFrom(0n, 1n, N - 1n, N, N + 1n, HALF_N, HALF_N + 1n, (1n << 256n) - 1n),
      fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
    );
    const v = fc.oneof(
      fc.bigInt({ min: 0n, max: 40n }),
      fc.nat(1).chain((p) => vFor(p, 11155420n).map((x) => x.v)),
      fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
    );
    fc.assert(
      fc.property(
        hash32,
        v,
        scalar,
        scalar,
        fc.option(fc.constantFrom(1n, 10n, 11155420n)),
        (msg, vv, r, s, c) => {
          const rb = bigIntToBytes(r);
          const sb = bigIntToBytes(s);
          const chainId = c ?? undefined;
          expect(outcome(native(), msg, vv, rb, sb, chainId)).toBe(
            outcome(ecrecoverJs, msg, vv, rb, sb, chainId),
          );
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("transactions: a high-s signature is invalid, its low-s twin recovers the signer (through commonFor)", () => {
    fc.assert(
      fc.property(secretKey, fc.bigInt({ min: 0n, max: 1000n }), (sk, nonce) => {
        const common = commonFor(11155420n, OpFork.Isthmus);
        const unsigned = createTx(
          { type: 2, nonce, gasLimit: 21000n, maxFeePerGas: 10n, to: `0x${"11".repeat(20)}` },
          { common },
        );
        const signed = unsigned.sign(sk);
        const sender = bytesToHex(secp256k1.getPublicKey(sk, false).subarray(1));
        expect(bytesToHex(signed.getSenderPublicKey())).toBe(sender);
        // The same transaction signed with s' = n - s and the other y parity, encoded by hand.
        const fields = signed.raw();
        fields[9] = bigIntToUnpaddedBytes(signed.v! ^ 1n);
        fields[11] = bigIntToUnpaddedBytes(N - signed.s!);
        const highS = concatBytes(new Uint8Array([2]), RLP.encode(fields));
        expect(() => decodeTransaction(highS, commonFor(11155420n, OpFork.Isthmus))).toThrow(
          /s-values greater than secp256k1n\/2/,
        );
        const lowS = decodeTransaction(signed.serialize(), commonFor(11155420n, OpFork.Isthmus));
        expect(lowS.body.kind === "signed" && bytesToHex(lowS.body.tx.getSenderPublicKey())).toBe(sender);
      }),
      { numRuns: 50 },
    );
  });
});

describe("secp256k1 backend selection", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("falls back to the pure-JS path when libsecp256k1 is not to be used", async () => {
    vi.stubEnv("OP_ENGINE_SECP256K1", "noble");
    // A copy of its own (a query on its URL), not the worker's module graph reset: the other files of this shared
    // test worker keep the modules they evaluated.
    const copy = "./secp256k1.js?copy=noble";
    const fresh = (await import(/* @vite-ignore */ copy)) as typeof import("./secp256k1.js");
    expect(fresh.secp256k1Backend).toBe("noble");
    expect(fresh.ecrecoverNative).toBeUndefined();
    expect(fresh.ecrecover).toBe(fresh.ecrecoverJs);
  });
});
