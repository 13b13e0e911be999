/**
 * The in-place stack, arithmetic and jump handlers (evm-stack-ops.ts) give the library's results: random
 * programs of the replaced opcodes (with edge words: 0, 1, 2^255, 2^256 - 1, shift amounts around 256, jump
 * destinations valid, invalid and out of range, too few stack items) and a stack overflow, run by an EVM with
 * our handlers and by one whose opcode map holds the library's, compared on error, gas, final stack and
 * program counter.
 */
import { type EVM, createEVM } from "@ethereumjs/evm";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { installEngineFastPaths } from "./evm-install.js";
import { commonFor } from "./evm-setup.js";
import { installStackOps } from "./evm-stack-ops.js";
import { wordToBytes32 } from "./evm-word-ops.js";
import { OpFork } from "./rollup-config.js";

type Handler = unknown;
let library: Map<number, Handler>;

async function observe(code: Uint8Array, useLibrary: boolean) {
  const evm: EVM = await createEVM({ common: commonFor(11155420n, OpFork.Isthmus) });
  const map = (evm as unknown as { _opcodeMap: { opHandler: Handler }[] })._opcodeMap;
  for (const [op, handler] of library) {
    if (useLibrary) map[op]!.opHandler = handler;
    else expect(map[op]!.opHandler).not.toBe(handler);
  }
  let r;
  try {
    r = await evm.runCode({ code, gasLimit: 1_000_000n });
  } catch (e) {
    // The library's PUSH throws a TypeError on some truncated PUSHes: the same throw is the same result.
    return { thrown: (e as Error).message };
  }
  const runState = (r as unknown as { runState: { stack: { getStack(): bigint[] }; programCounter: number } })
    .runState;
  return {
    error: r.exceptionError?.error,
    gas: r.executionGasUsed,
    stack: runState.stack.getStack(),
    pc: runState.programCounter,
  };
}

const EDGE = [0n, 1n, 2n, 255n, 256n, 257n, 1n << 255n, (1n << 256n) - 1n, (1n << 256n) - 2n, 1n << 64n];
const word = fc.oneof(fc.constantFrom(...EDGE), fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }));
const OPS = [0x01, 0x02, 0x03, 0x10, 0x11, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1b, 0x1c, 0x50, 0x5b, 0x5f];

const piece: fc.Arbitrary<number[]> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...OPS).map((op) => [op]) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 255 }).map((v) => [0x60, v]) },
  { weight: 2, arbitrary: word.map((w) => [0x7f, ...wordToBytes32(w)]) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 15 }).map((n) => [0x80 + n]) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 15 }).map((n) => [0x90 + n]) },
  // a jump (or conditional jump) to a small destination: a JUMPDEST, another byte, or past the code
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 0, max: 90 }), fc.constantFrom(0x56, 0x57))
      .map(([d, j]) => [0x60, d, j]),
  },
  // a truncated PUSH at the end of the code
  { weight: 1, arbitrary: fc.constant<number[]>([0x7f, 0x01, 0x02]) },
);

describe("stack, arithmetic and jump handlers", () => {
  beforeAll(async () => {
    await installEngineFastPaths();
    const originals = await installStackOps();
    expect(originals).toBeDefined();
    library = originals!;
  });

  it("gives the library's result on hand-written programs (overflow, underflow, loops)", async () => {
    const programs = [
      Uint8Array.from(Array(1030).fill(0x5f)), // PUSH0 beyond 1024 items
      Uint8Array.from([...Array(1024).fill(0x5f), 0x80]), // DUP1 on a full stack
      Uint8Array.from([...Array(1024).fill(0x5f), 0x60, 0x01]), // PUSH1 on a full stack
      Uint8Array.from([0x01]),
      Uint8Array.from([0x60, 0x01, 0x90]),
      Uint8Array.from([0x60, 0x01, 0x81]),
      Uint8Array.from([0x57]),
      // count down from 100 with JUMPI, summing into the second item
      Uint8Array.from([
        0x5f, 0x60, 0x64, 0x5b, 0x80, 0x91, 0x01, 0x90, 0x60, 0x01, 0x90, 0x03, 0x80, 0x60, 0x03, 0x57,
      ]),
      // JUMP into PUSH data and past the code
      Uint8Array.from([0x60, 0x03, 0x56, 0x60, 0x5b]),
      Uint8Array.from([0x63, 0xff, 0xff, 0xff, 0xff, 0x56]),
      Uint8Array.from([0x7f, ...wordToBytes32((1n << 256n) - 1n), 0x56, 0x5b]),
    ];
    for (const code of programs) expect(await observe(code, false)).toEqual(await observe(code, true));
  });

  it("gives the library's result on random programs (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 60 }), async (pieces) => {
        const code = Uint8Array.from(pieces.flat());
        expect(await observe(code, false)).toEqual(await observe(code, true));
      }),
      { numRuns: 300 },
    );
  });
});
