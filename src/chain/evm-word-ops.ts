/**
 * MSTORE and MLOAD of @ethereumjs/evm 10.1.3 convert a stack word to and from its 32 memory bytes through
 * hex strings: `setLengthLeft(bigIntToBytes(word), 32)` (a hex string, then two array spreads to pad) and
 * `bytesToBigInt` (a hex string parsed as a BigInt). Here the same conversions go through four 64-bit lanes
 * of a DataView, with the same results for every word (0 ≤ word < 2^256, as the stack holds).
 *
 * The handlers are replaced in the library's opcode handler table (`handlers` of opcodes/functions.js,
 * reached through its module file) before an EVM copies it: every EVM created after the install uses them,
 * whichever interpreter loop runs. A version without the expected table keeps its own handlers.
 */

import { libraryEntry } from "./library-originals.js";

type Handler = (runState: WordRunState) => void;

/** The parts of the library's run state the two handlers use. */
interface WordRunState {
  stack: { pop(): bigint; popN(n: number): bigint[]; push(value: bigint): void };
  memory: {
    read(offset: number, size: number, avoidCopy?: boolean): Uint8Array;
    write(offset: number, size: number, value: Uint8Array): void;
  };
}

const MSTORE = 0x52;
const MLOAD = 0x51;

/**
 * One 32-byte scratch word and its DataView, made once: building a DataView per conversion cost more than the
 * conversion (about 3x in a micro-benchmark), and `BigInt.asUintN(64, …)` lets V8 write each lane without the
 * heap BigInt a `& MASK64` makes. MSTORE writes from it (Memory.write copies it at once); a caller that keeps
 * the bytes gets a copy.
 */
const scratch = new Uint8Array(32);
const scratchView = new DataView(scratch.buffer);

/** Writes the 32-byte big-endian encoding of `word` into the scratch word and returns the scratch word. */
function wordIntoScratch(word: bigint): Uint8Array {
  scratchView.setBigUint64(24, BigInt.asUintN(64, word));
  scratchView.setBigUint64(16, BigInt.asUintN(64, word >> 64n));
  scratchView.setBigUint64(8, BigInt.asUintN(64, word >> 128n));
  scratchView.setBigUint64(0, BigInt.asUintN(64, word >> 192n));
  return scratch;
}

/** The 32-byte big-endian encoding of a 256-bit word, in a new array (or written into `out`). */
export function wordToBytes32(word: bigint, out?: Uint8Array): Uint8Array {
  const bytes = wordIntoScratch(word);
  if (out === undefined) return bytes.slice();
  out.set(bytes);
  return out;
}

/** The word whose 32-byte big-endian encoding is `bytes` (exactly 32 bytes; copied into the scratch word to read it). */
export function bytes32ToWord(bytes: Uint8Array): bigint {
  scratch.set(bytes);
  const hi = (scratchView.getBigUint64(0) << 64n) | scratchView.getBigUint64(8);
  const lo = (scratchView.getBigUint64(16) << 64n) | scratchView.getBigUint64(24);
  return hi === 0n ? lo : (hi << 128n) | lo;
}

function mstore(runState: WordRunState): void {
  const [offset, word] = runState.stack.popN(2);
  runState.memory.write(Number(offset), 32, wordIntoScratch(word!));
}

function mload(runState: WordRunState): void {
  const pos = runState.stack.pop();
  runState.stack.push(bytes32ToWord(runState.memory.read(Number(pos), 32, true)));
}

let installed: Promise<{ mstore: Handler; mload: Handler } | undefined> | undefined;

/**
 * Replaces MSTORE and MLOAD in the library's handler table once per process. Resolves to the library's own
 * handlers (kept for comparison), or undefined when the table was not found and nothing was replaced.
 */
export function installWordOps(): Promise<{ mstore: Handler; mload: Handler } | undefined> {
  installed ??= (async () => {
    const indexUrl = import.meta.resolve("@ethereumjs/evm");
    const mod = (await import(new URL("./opcodes/functions.js", indexUrl).href)) as {
      handlers?: Map<number, Handler>;
    };
    const table = mod.handlers;
    const originalStore = table && libraryEntry(table, MSTORE);
    const originalLoad = table && libraryEntry(table, MLOAD);
    if (table === undefined || originalStore === undefined || originalLoad === undefined) return undefined;
    table.set(MSTORE, mstore);
    table.set(MLOAD, mload);
    return { mstore: originalStore, mload: originalLoad };
  })();
  return installed;
}
