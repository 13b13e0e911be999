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
const MASK64 = (1n << 64n) - 1n;

/** The 32-byte big-endian encoding of a 256-bit word, written into `out` (a new array by default). */
export function wordToBytes32(word: bigint, out: Uint8Array = new Uint8Array(32)): Uint8Array {
  const view = new DataView(out.buffer, out.byteOffset, 32);
  view.setBigUint64(24, word & MASK64);
  view.setBigUint64(16, (word >> 64n) & MASK64);
  view.setBigUint64(8, (word >> 128n) & MASK64);
  view.setBigUint64(0, (word >> 192n) & MASK64);
  return out;
}

/** The word whose 32-byte big-endian encoding is `bytes` (exactly 32 bytes). */
export function bytes32ToWord(bytes: Uint8Array): bigint {
  const view = new DataView(bytes.buffer, bytes.byteOffset, 32);
  const hi = (view.getBigUint64(0) << 64n) | view.getBigUint64(8);
  const lo = (view.getBigUint64(16) << 64n) | view.getBigUint64(24);
  return hi === 0n ? lo : (hi << 128n) | lo;
}

/** One scratch word for MSTORE: Memory.write copies it into memory at once. */
const scratch = new Uint8Array(32);

function mstore(runState: WordRunState): void {
  const [offset, word] = runState.stack.popN(2);
  runState.memory.write(Number(offset), 32, wordToBytes32(word!, scratch));
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
    const originalStore = table?.get(MSTORE);
    const originalLoad = table?.get(MLOAD);
    if (table === undefined || originalStore === undefined || originalLoad === undefined) return undefined;
    table.set(MSTORE, mstore);
    table.set(MLOAD, mload);
    return { mstore: originalStore, mload: originalLoad };
  })();
  return installed;
}
