/**
 * The synchronous memory gas handlers (evm-memory-gas.ts) give the library's results: random programs of
 * MLOAD, MSTORE, MSTORE8, KECCAK256, CALLDATACOPY, CODECOPY, RETURNDATACOPY, MCOPY and LOG0-4 on offsets and
 * lengths around word edges and far beyond the gas (2^32, 2^64, 2^256 - 1), ending in RETURN or REVERT, run with
 * small and large gas, in a static frame or not, by an EVM with our gas handlers and by one whose opcode map
 * holds the library's, compared on error, gas, returned bytes and logs.
 */
import { type EVM, createEVM } from "@ethereumjs/evm";
import { bytesToHex } from "@ethereumjs/util";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { installEngineFastPaths } from "./evm-install.js";
import { installMemoryGas, memoryExpansionGas } from "./evm-memory-gas.js";
import { commonFor } from "./evm-setup.js";
import { wordToBytes32 } from "./evm-word-ops.js";
import { OpFork } from "./rollup-config.js";

type GasHandler = unknown;
let library: Map<number, GasHandler>;

async function observe(code: Uint8Array, gasLimit: bigint, isStatic: boolean, useLibrary: boolean) {
  const evm: EVM = await createEVM({ common: commonFor(11155420n, OpFork.Isthmus) });
  const map = (evm as unknown as { _opcodeMap: { gasHandler: GasHandler }[] })._opcodeMap;
  for (const [op, handler] of library) {
    if (useLibrary) map[op]!.gasHandler = handler;
    else expect(map[op]!.gasHandler).not.toBe(handler);
  }
  const r = await evm.runCode({ code, gasLimit, isStatic, data: Uint8Array.of(1, 2, 3, 4, 5) });
  return {
    error: r.exceptionError?.error,
    gas: r.executionGasUsed,
    returned: bytesToHex(r.returnValue),
    logs: (r.logs ?? []).map(([, topics, data]) => [topics.map((t) => bytesToHex(t)), bytesToHex(data)]),
  };
}

const OFFSETS = [
  0n,
  1n,
  31n,
  32n,
  33n,
  64n,
  100n,
  1000n,
  4096n,
  1n << 20n,
  1n << 32n,
  1n << 64n,
  (1n << 256n) - 1n,
];
const LENGTHS = [0n, 1n, 31n, 32n, 33n, 64n, 100n, 1n << 16n, 1n << 32n, (1n << 256n) - 1n];
const offset = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 300 }).map(BigInt) },
  { weight: 2, arbitrary: fc.constantFrom(...OFFSETS) },
);
const length = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 200 }).map(BigInt) },
  { weight: 1, arbitrary: fc.constantFrom(...LENGTHS) },
);
const push = (w: bigint) => [0x7f, ...wordToBytes32(w)];
/** Pushes the operands last first, so the first is on top, then the opcode. */
const op = (code: number, ...args: bigint[]) => [...args.reverse().flatMap(push), code];

const piece: fc.Arbitrary<number[]> = fc.oneof(
  { weight: 3, arbitrary: offset.map((o) => op(0x51, o).concat(0x50)) },
  {
    weight: 3,
    arbitrary: fc.tuple(offset, fc.bigInt({ min: 0n, max: 1n << 200n })).map(([o, v]) => op(0x52, o, v)),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(offset, fc.bigInt({ min: 0n, max: 255n })).map(([o, v]) => op(0x53, o, v)),
  },
  { weight: 2, arbitrary: fc.tuple(offset, length).map(([o, l]) => op(0x20, o, l).concat(0x50)) },
  { weight: 1, arbitrary: fc.tuple(offset, offset, length).map(([m, d, l]) => op(0x37, m, d, l)) },
  { weight: 1, arbitrary: fc.tuple(offset, offset, length).map(([m, c, l]) => op(0x39, m, c, l)) },
  // no return data here: any offset or length but zero is beyond it
  {
    weight: 1,
    arbitrary: fc
      .tuple(offset, fc.constantFrom(0n, 1n), fc.constantFrom(0n, 1n))
      .map(([m, d, l]) => op(0x3e, m, d, l)),
  },
  { weight: 1, arbitrary: fc.tuple(offset, offset, length).map(([d, s, l]) => op(0x5e, d, s, l)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(offset, length, fc.integer({ min: 0, max: 4 }))
      .map(([o, l, n]) => op(0xa0 + n, o, l, ...Array.from({ length: n }, (_, i) => BigInt(i + 7)))),
  },
);
const end = fc.tuple(fc.constantFrom(0xf3, 0xfd), offset, length).map(([c, o, l]) => op(c, o, l));

describe("memory gas handlers", () => {
  beforeAll(async () => {
    await installEngineFastPaths();
    // The install hands back the library's own handlers, whichever file of the worker installed them first.
    const original = await installMemoryGas();
    expect(original).toBeDefined();
    library = original!;
  });

  it("charge expansion as the library's subMemUsage: none for a zero length or memory already paid", async () => {
    const runState = {
      stack: { peek: () => [] },
      opCode: 0x51,
      memoryWordCount: 0n,
      highestMemCost: 0n,
      env: {},
      interpreter: { isStatic: () => false, getReturnDataSize: () => 0n },
    };
    // The EVM's copy of the Common carries the library's gas parameters.
    const { common } = await createEVM({ common: commonFor(11155420n, OpFork.Isthmus) });
    expect(memoryExpansionGas(runState, 1000n, 0n, common)).toBe(0n);
    expect(memoryExpansionGas(runState, 0n, 33n, common)).toBe(2n * 3n);
    expect(runState.memoryWordCount).toBe(2n);
    expect(memoryExpansionGas(runState, 32n, 32n, common)).toBe(0n);
    // 1024 words: 3072 + 1024^2 / 512 = 5120 in all, of which 6 already paid
    expect(memoryExpansionGas(runState, 32767n, 1n, common)).toBe(5120n - 6n);
  });

  it("give the library's errors, gas, return data and logs on random programs", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { minLength: 1, maxLength: 12 }),
        end,
        fc.oneof(fc.constant(10_000_000n), fc.bigInt({ min: 100n, max: 40_000n })),
        fc.boolean(),
        async (pieces, last, gas, isStatic) => {
          const code = Uint8Array.from([...pieces.flat(), ...last]);
          const ours = await observe(code, gas, isStatic, false);
          expect(ours).toEqual(await observe(code, gas, isStatic, true));
        },
      ),
      { numRuns: 300 },
    );
  });
});
