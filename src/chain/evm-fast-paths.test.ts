/**
 * The engine's replacements for @ethereumjs/evm hot spots give the library's results: the jump analysis
 * against the library's own, the word codec against its hex-string helpers, and MSTORE / MLOAD end to end
 * on an EVM created before the install (the library's handlers) and one created after (ours).
 */
import { type EVM, createEVM } from "@ethereumjs/evm";
import { Address, bigIntToBytes, bytesToBigInt, bytesToHex, setLengthLeft } from "@ethereumjs/util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { analyzeCode, fastEipLookup, installJumpAnalysisCache, statelessCodeGas } from "./evm-fast-paths.js";
import { bytes32ToWord, installWordOps, wordToBytes32 } from "./evm-word-ops.js";
import { commonFor } from "./evm-setup.js";
import { OpFork } from "./rollup-config.js";

const word = fc.bigInt({ min: 0n, max: (1n << 256n) - 1n });
const edgeWord = fc.constantFrom(
  0n,
  1n,
  255n,
  256n,
  (1n << 64n) - 1n,
  1n << 64n,
  1n << 128n,
  (1n << 256n) - 1n,
);

describe("jump analysis", () => {
  /** Code rich in PUSHes (including a truncated one at the end) and JUMPDESTs. */
  const code = fc
    .array(
      fc.oneof(
        { weight: 3, arbitrary: fc.integer({ min: 0x5f, max: 0x7f }) },
        { weight: 2, arbitrary: fc.constant(0x5b) },
        { weight: 3, arbitrary: fc.integer({ min: 0, max: 255 }) },
      ),
      { maxLength: 400 },
    )
    .map((a) => Uint8Array.from(a));

  it("equals the library's Interpreter._getValidJumpDestinations", async () => {
    const indexUrl = import.meta.resolve("@ethereumjs/evm");
    const mod = (await import(new URL("./interpreter.js", indexUrl).href)) as {
      Interpreter: { prototype: { _getValidJumpDestinations: (code: Uint8Array) => unknown } };
    };
    // The install hands back the library's own analysis, whichever file of the worker installed it first.
    const library = (await installJumpAnalysisCache()) as ((code: Uint8Array) => unknown) | undefined;
    if (library === undefined) throw new Error("the library's Interpreter was not found");
    const lookup = (op: number) => ({ op });
    const self = { lookupOpInfo: lookup, common: { isActivatedEIP: () => false } };
    fc.assert(
      fc.property(code, (c) => {
        expect(analyzeCode(c, lookup)).toEqual(library.call(self, c));
      }),
      { numRuns: 400 },
    );
    // Installed: each EVM gets its own opcode entries, the code-only part is computed once per code array.
    const patched = mod.Interpreter.prototype._getValidJumpDestinations;
    expect(patched).not.toBe(library);
    const sample = Uint8Array.of(0x60, 0x5b, 0x5b, 0x61, 0x01, 0x02, 0x56, 0x7f, 0xff);
    const one = { ...self, _evm: {} };
    const two = { ...self, _evm: {} };
    const a = patched.call(one, sample) as { jumps: Uint8Array; opcodesCached: unknown[] };
    const b = patched.call(two, sample) as { jumps: Uint8Array; opcodesCached: unknown[] };
    expect(a).toEqual(library.call(self, sample));
    expect(b.jumps).toBe(a.jumps);
    expect(b.opcodesCached).not.toBe(a.opcodesCached);
    expect(patched.call(one, sample)).toBe(a);
    // A PUSH32 cut short by the end of the code pushes its bytes followed by zeros.
    const cut = Uint8Array.of(0x7f, 0x12, 0x34);
    expect(analyzeCode(cut, lookup).pushes[1]).toBe(0x1234n << 240n);
  });
});

describe("word codec", () => {
  it("encodes and decodes words as the library's hex-string helpers do", () => {
    fc.assert(
      fc.property(fc.oneof(word, edgeWord), (w) => {
        const bytes = wordToBytes32(w);
        expect(bytes).toEqual(setLengthLeft(bigIntToBytes(w), 32));
        expect(bytes32ToWord(bytes)).toBe(bytesToBigInt(bytes));
        expect(bytes32ToWord(bytes)).toBe(w);
      }),
      { numRuns: 1000 },
    );
  });

  it("hands out a fresh array per word and reads a word inside a larger buffer", () => {
    fc.assert(
      fc.property(word, word, fc.nat({ max: 31 }), (a, b, at) => {
        const first = wordToBytes32(a);
        const second = wordToBytes32(b);
        expect(first).not.toBe(second);
        expect(bytes32ToWord(first)).toBe(a);
        const out = new Uint8Array(32);
        expect(wordToBytes32(b, out)).toBe(out);
        expect(out).toEqual(second);
        const big = new Uint8Array(64).fill(0xee);
        big.set(first, at);
        expect(bytes32ToWord(big.subarray(at, at + 32))).toBe(a);
      }),
      { numRuns: 300 },
    );
  });
});

describe("stateless code-chunk gas flag", () => {
  it("follows the Common's EIP-6800 / EIP-7864 activation, with or without fastEipLookup", () => {
    const plain = commonFor(11155420n, OpFork.Isthmus);
    expect(statelessCodeGas(plain)).toBe(false);
    expect(statelessCodeGas(fastEipLookup(commonFor(11155420n, OpFork.Isthmus)))).toBe(false);
    for (const eip of [6800, 7864]) {
      const lookup = (e: number) => e === eip;
      expect(statelessCodeGas({ isActivatedEIP: lookup })).toBe(true);
      const common = commonFor(11155420n, OpFork.Isthmus);
      (common as unknown as { _activatedEIPsCache: number[] })._activatedEIPsCache.push(eip);
      expect(statelessCodeGas(fastEipLookup(common))).toBe(true);
    }
  });
});

describe("MSTORE and MLOAD", () => {
  const CONTRACT = new Address(new Uint8Array(20).fill(0xcc));
  const push32 = (w: bigint) => [0x7f, ...wordToBytes32(w)];
  const push2 = (n: number) => [0x61, n >> 8, n & 0xff];

  /**
   * Stores each word at its offset, loads each back and stores the loaded word 32 bytes further on, then
   * returns the memory written.
   */
  function program(stores: [number, bigint][]): Uint8Array {
    const ops: number[] = [];
    for (const [offset, w] of stores) ops.push(...push32(w), ...push2(offset), 0x52);
    for (const [offset] of stores) ops.push(...push2(offset), 0x51, ...push2(offset + 32), 0x52);
    ops.push(0x59, 0x5f, 0xf3); // RETURN(0, MSIZE)
    return Uint8Array.from(ops);
  }

  async function run(evm: EVM, code: Uint8Array) {
    await evm.stateManager.putCode(CONTRACT, code);
    const r = await evm.runCall({ to: CONTRACT, gasLimit: 10_000_000n });
    return {
      error: r.execResult.exceptionError?.error,
      gas: r.execResult.executionGasUsed,
      memory: bytesToHex(r.execResult.returnValue),
    };
  }

  it("give the library's memory, stack and gas on an EVM created after the install", async () => {
    const common = commonFor(11155420n, OpFork.Isthmus);
    const library = await installWordOps();
    expect(library).toBeDefined();
    const after = await createEVM({ common });
    // An EVM builds its opcode map from the handler table when it is created (the interpreter reads the map):
    // the one created after the install runs our handlers; the reference EVM gets the library's back in its
    // map (another file of this worker may have installed ours first).
    const opcodeMap = (evm: EVM) => (evm as unknown as { _opcodeMap: { opHandler: unknown }[] })._opcodeMap;
    expect(opcodeMap(after)[0x52]!.opHandler).not.toBe(library!.mstore);
    expect(opcodeMap(after)[0x51]!.opHandler).not.toBe(library!.mload);
    const before = await createEVM({ common });
    opcodeMap(before)[0x52]!.opHandler = library!.mstore;
    opcodeMap(before)[0x51]!.opHandler = library!.mload;
    const stores = fc.array(fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.oneof(word, edgeWord)), {
      minLength: 1,
      maxLength: 12,
    });
    await fc.assert(
      fc.asyncProperty(stores, async (s) => {
        const code = program(s);
        const ours = await run(after, code);
        expect(ours.error).toBeUndefined();
        expect(ours.memory.length).toBeGreaterThanOrEqual(2 + 2 * 64);
        expect(ours).toEqual(await run(before, code));
      }),
      { numRuns: 150 },
    );
  });
});
