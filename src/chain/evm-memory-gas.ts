/**
 * Synchronous gas handlers for the memory opcodes of @ethereumjs/evm 10.1.3. The library declares these gas
 * handlers `async` although they compute only: every MLOAD, MSTORE, MSTORE8, KECCAK256, CALLDATACOPY,
 * CODECOPY, RETURNDATACOPY, MCOPY, LOG0-4, RETURN and REVERT cost a promise and a microtask turn of the
 * interpreter loop for its gas, and the memory expansion (`subMemUsage`) rounds the end up to words through a
 * generic `divCeil` (a bigint division and a `mod` with a sign check). Here the same gas is computed without a
 * promise, words as `(end + 31) >> 5` (the operands are stack words, never negative), with the library's
 * parameters (`common.param`) and its highest-cost bookkeeping.
 *
 * The library's handler runs for what these do not cover: stateless code-chunk gas (EIP-6800 / EIP-7864:
 * CODECOPY's code-chunk charge), a static frame's LOG and a RETURNDATACOPY beyond the return data (both throw
 * there). The handlers are replaced in the library's gas table (`dynamicGasHandlers` of opcodes/gas.js, reached
 * through its module file) before an EVM copies it, as evm-storage-ops.ts does for SLOAD and SSTORE.
 */
import { statelessCodeGas } from "./evm-fast-paths.js";
import { libraryEntry } from "./library-originals.js";

type Common = { isActivatedEIP(eip: number): boolean; param(name: string): bigint };

/** The parts of the library's run state the memory gas handlers use. */
interface MemoryGasRunState {
  stack: { peek(n?: number): bigint[] };
  opCode: number;
  memoryWordCount: bigint;
  highestMemCost: bigint;
  env: { eof?: unknown };
  interpreter: { isStatic(): boolean; getReturnDataSize(): bigint };
}

type GasHandler = (runState: MemoryGasRunState, gas: bigint, common: Common) => Promise<bigint> | bigint;

/** Memory expansion gas of touching `length` bytes from `offset` (the library's `subMemUsage`, same effects). */
export function memoryExpansionGas(
  runState: MemoryGasRunState,
  offset: bigint,
  length: bigint,
  common: Common,
): bigint {
  if (length === 0n) return 0n;
  const words = (offset + length + 31n) >> 5n;
  if (words <= runState.memoryWordCount) return 0n;
  let cost = words * common.param("memoryGas") + (words * words) / common.param("quadCoefficientDivGas");
  if (cost > runState.highestMemCost) {
    const highest = runState.highestMemCost;
    runState.highestMemCost = cost;
    cost -= highest;
  }
  runState.memoryWordCount = words;
  return cost;
}

/** Words of `length` bytes, rounded up. */
function wordsOf(length: bigint): bigint {
  return (length + 31n) >> 5n;
}

/** Gas of a copy into memory: expansion, then `copyGas` per word copied. */
function copyGas(runState: MemoryGasRunState, memOffset: bigint, length: bigint, common: Common): bigint {
  let gas = memoryExpansionGas(runState, memOffset, length, common);
  if (length !== 0n) gas += common.param("copyGas") * wordsOf(length);
  return gas;
}

const LOG0 = 0xa0;
const LOG4 = 0xa4;

/** Our gas handler for each opcode, given the library's (which runs where ours does not apply). */
const replacements: [number, (library: GasHandler) => GasHandler][] = [
  [
    0x20, // KECCAK256
    () => (runState, gas, common) => {
      const [offset, length] = runState.stack.peek(2) as [bigint, bigint];
      gas += memoryExpansionGas(runState, offset, length, common);
      return gas + common.param("keccak256WordGas") * wordsOf(length);
    },
  ],
  [
    0x37, // CALLDATACOPY
    () => (runState, gas, common) => {
      const [memOffset, , length] = runState.stack.peek(3) as [bigint, bigint, bigint];
      return gas + copyGas(runState, memOffset, length, common);
    },
  ],
  [
    0x39, // CODECOPY
    (library) => (runState, gas, common) => {
      if (statelessCodeGas(common)) return library(runState, gas, common);
      const [memOffset, , length] = runState.stack.peek(3) as [bigint, bigint, bigint];
      return gas + copyGas(runState, memOffset, length, common);
    },
  ],
  [
    0x3e, // RETURNDATACOPY
    (library) => (runState, gas, common) => {
      const [memOffset, dataOffset, length] = runState.stack.peek(3) as [bigint, bigint, bigint];
      if (dataOffset + length > runState.interpreter.getReturnDataSize())
        return library(runState, gas, common);
      return gas + copyGas(runState, memOffset, length, common);
    },
  ],
  [
    0x51, // MLOAD
    () => (runState, gas, common) =>
      gas + memoryExpansionGas(runState, runState.stack.peek()[0]!, 32n, common),
  ],
  [
    0x52, // MSTORE
    () => (runState, gas, common) =>
      gas + memoryExpansionGas(runState, runState.stack.peek()[0]!, 32n, common),
  ],
  [
    0x53, // MSTORE8
    () => (runState, gas, common) =>
      gas + memoryExpansionGas(runState, runState.stack.peek()[0]!, 1n, common),
  ],
  [
    0x5e, // MCOPY
    () => (runState, gas, common) => {
      const [dst, src, length] = runState.stack.peek(3) as [bigint, bigint, bigint];
      gas += 3n * wordsOf(length);
      gas += memoryExpansionGas(runState, src, length, common);
      return gas + memoryExpansionGas(runState, dst, length, common);
    },
  ],
  ...[0, 1, 2, 3, 4].map((topics): [number, (library: GasHandler) => GasHandler] => [
    LOG0 + topics,
    (library) => (runState, gas, common) => {
      if (runState.interpreter.isStatic() || runState.opCode < LOG0 || runState.opCode > LOG4)
        return library(runState, gas, common);
      const [memOffset, memLength] = runState.stack.peek(2) as [bigint, bigint];
      gas += memoryExpansionGas(runState, memOffset, memLength, common);
      return (
        gas +
        common.param("logTopicGas") * BigInt(runState.opCode - LOG0) +
        memLength * common.param("logDataGas")
      );
    },
  ]),
  [
    0xf3, // RETURN
    () => (runState, gas, common) => {
      const [offset, length] = runState.stack.peek(2) as [bigint, bigint];
      return gas + memoryExpansionGas(runState, offset, length, common);
    },
  ],
  [
    0xfd, // REVERT
    () => (runState, gas, common) => {
      const [offset, length] = runState.stack.peek(2) as [bigint, bigint];
      return gas + memoryExpansionGas(runState, offset, length, common);
    },
  ],
];

let installed: Promise<Map<number, GasHandler> | undefined> | undefined;

/**
 * Replaces the memory opcodes' gas handlers in the library's table once per process. Resolves to the library's
 * own by opcode (kept for comparison), or undefined when the table or one of them was not found and nothing was
 * replaced.
 */
export function installMemoryGas(): Promise<Map<number, GasHandler> | undefined> {
  installed ??= (async () => {
    const indexUrl = import.meta.resolve("@ethereumjs/evm");
    const gas = (await import(new URL("./opcodes/gas.js", indexUrl).href)) as {
      dynamicGasHandlers?: Map<number, GasHandler>;
    };
    const table = gas.dynamicGasHandlers;
    if (table === undefined) return undefined;
    const library = new Map<number, GasHandler>();
    for (const [op] of replacements) {
      const handler = libraryEntry(table, op);
      if (handler === undefined) return undefined;
      library.set(op, handler);
    }
    for (const [op, make] of replacements) table.set(op, make(library.get(op)!));
    return library;
  })();
  return installed;
}
