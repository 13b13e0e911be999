/**
 * The most executed arithmetic, comparison, bit, stack and jump opcodes of @ethereumjs/evm 10.1.3, working
 * on the stack's array in place. The library's handlers pop their operands into a fresh array
 * (`stack.popN(2)`: one allocation per ADD, AND, EQ, JUMPI …), reduce sums through a generic `mod`, and
 * push the result back through a bounds-checked call; PUSH checks two EIPs before taking its value.
 *
 * Each replacement computes the same word and leaves the stack, program counter and errors as the
 * library's does: whenever its fast path does not apply (too few items, a full stack, an invalid jump
 * destination, PUSH without the jump analysis or under stateless code-chunk gas) it calls the library's
 * handler, which then throws or runs as before. The handlers are replaced in the library's handler table
 * before an EVM copies it, as evm-word-ops.ts does for MSTORE / MLOAD; a version without the expected
 * table keeps its own.
 */
import { statelessCodeGas } from "./evm-fast-paths.js";
import { libraryEntry } from "./library-originals.js";

/** The library's Stack, whose fields these handlers use directly. */
interface StackLike {
  _store: bigint[];
  _len: number;
  _maxHeight: number;
}

interface StackRunState {
  stack: StackLike;
  opCode: number;
  programCounter: number;
  shouldDoJumpAnalysis: boolean;
  cachedPushes: Record<number, bigint>;
  validJumps: Uint8Array;
  code: Uint8Array;
  env: { chargeCodeAccesses?: boolean };
  interpreter: { getCodeSize(): number | bigint };
}

type Common = { isActivatedEIP(eip: number): boolean };
type Handler = (runState: StackRunState, common: Common) => void;

const TWO_POW256 = 1n << 256n;
const MAX_WORD = TWO_POW256 - 1n;
/** Beyond any code's length (a jump destination past the code is invalid either way). */
const MAX_JUMP = 0xffffffffn;

/** The library's handlers these replace, by opcode (filled at install). */
const library = new Map<number, Handler>();
const fallback = (op: number, runState: StackRunState, common: Common): void =>
  library.get(op)!(runState, common);

/** Replaces the top two items (a on top, b below) with `r`. */
function replaceTwo(st: StackLike, len: number, r: bigint): void {
  st._store[len - 2] = r;
  st._len = len - 1;
}

// One explicit function per opcode (not one built from a shared template): each stays monomorphic and small
// enough for V8 to inline its arithmetic, which a template calling an operator function would not be.
const replacements: [number, Handler][] = [
  [
    0x01, // ADD
    (rs, c) => {
      const st = rs.stack;
      const len = st._len;
      if (len < 2) return fallback(0x01, rs, c);
      const r = st._store[len - 1]! + st._store[len - 2]!;
      replaceTwo(st, len, r >= TWO_POW256 ? r - TWO_POW256 : r);
    },
  ],
  [
    0x02, // MUL
    (rs, c) => {
      const st = rs.stack;
      const len = st._len;
      if (len < 2) return fallback(0x02, rs, c);
      replaceTwo(st, len, BigInt.asUintN(256, st._store[len - 1]! * st._store[len - 2]!));
    },
  ],
  [
    0x03, // SUB
    (rs, c) => {
      const st = rs.stack;
      const len = st._len;
      if (len < 2) return fallback(0x03, rs, c);
      const r = st._store[len - 1]! - st._store[len - 2]!;
      replaceTwo(st, len, r < 0n ? r + TWO_POW256 : r);
    },
  ],
  [
    0x10, // LT
    (rs, c) => {
      const st = rs.stack;
      const len = st._len;
      if (len < 2) return fallback(0x10, rs, c);
      replaceTwo(st, len, st._store[len - 1]! < st._store[len - 2]! ? 1n : 0n);
    },
  ],
  [
    0x11, // GT
    (rs, c) => {
      const st = rs.stack;
      const len = st._len;
      if (len < 2) return fallback(0x11, rs, c);
      replaceTwo(st, len, st._store[len - 1]! > st._store[len - 2]! ? 1n : 0n);
    },
  ],
  [
    0x14, // EQ
    (rs, c) => {
      const st = rs.stack;
      const len = st._len;
      if (len < 2) return fallback(0x14, rs, c);
      replaceTwo(st, len, st._store[len - 1]! === st._store[len - 2]! ? 1n : 0n);
    },
  ],
  [
    0x15, // ISZERO
    (rs, c) => {
      const st = rs.stack;
      const len = st._len;
      if (len < 1) return fallback(0x15, rs, c);
      st._store[len - 1] = st._store[len - 1] === 0n ? 1n : 0n;
    },
  ],
  [
    0x16, // AND
    (rs, c) => {
      const st = rs.stack;
      const len = st._len;
      if (len < 2) return fallback(0x16, rs, c);
      replaceTwo(st, len, st._store[len - 1]! & st._store[len - 2]!);
    },
  ],
  [
    0x17, // OR
    (rs, c) => {
      const st = rs.stack;
      const len = st._len;
      if (len < 2) return fallback(0x17, rs, c);
      replaceTwo(st, len, st._store[len - 1]! | st._store[len - 2]!);
    },
  ],
  [
    0x18, // XOR
    (rs, c) => {
      const st = rs.stack;
      const len = st._len;
      if (len < 2) return fallback(0x18, rs, c);
      replaceTwo(st, len, st._store[len - 1]! ^ st._store[len - 2]!);
    },
  ],
  [
    0x19, // NOT
    (rs, c) => {
      const st = rs.stack;
      const len = st._len;
      if (len < 1) return fallback(0x19, rs, c);
      st._store[len - 1] = MAX_WORD - st._store[len - 1]!;
    },
  ],
  [
    0x1b, // SHL
    (rs, c) => {
      const st = rs.stack;
      const len = st._len;
      if (len < 2) return fallback(0x1b, rs, c);
      const shift = st._store[len - 1]!;
      replaceTwo(st, len, shift > 256n ? 0n : (st._store[len - 2]! << shift) & MAX_WORD);
    },
  ],
  [
    0x1c, // SHR
    (rs, c) => {
      const st = rs.stack;
      const len = st._len;
      if (len < 2) return fallback(0x1c, rs, c);
      const shift = st._store[len - 1]!;
      replaceTwo(st, len, shift > 256n ? 0n : st._store[len - 2]! >> shift);
    },
  ],
  [
    0x50, // POP
    (rs, c) => {
      const st = rs.stack;
      if (st._len < 1) return fallback(0x50, rs, c);
      st._len--;
    },
  ],
  [
    0x56, // JUMP
    (rs, c) => {
      const st = rs.stack;
      const len = st._len;
      if (len < 1) return fallback(0x56, rs, c);
      const dest = st._store[len - 1]!;
      // Out of range or not a JUMPDEST: the library's handler pops and throws its own error.
      if (dest > MAX_JUMP || rs.validJumps[Number(dest)] !== 1) return fallback(0x56, rs, c);
      st._len = len - 1;
      rs.programCounter = Number(dest);
    },
  ],
  [
    0x57, // JUMPI
    (rs, c) => {
      const st = rs.stack;
      const len = st._len;
      if (len < 2) return fallback(0x57, rs, c);
      const dest = st._store[len - 1]!;
      if (st._store[len - 2] === 0n) {
        st._len = len - 2;
        return;
      }
      if (dest > MAX_JUMP || rs.validJumps[Number(dest)] !== 1) return fallback(0x57, rs, c);
      st._len = len - 2;
      rs.programCounter = Number(dest);
    },
  ],
  [
    0x60, // PUSH1..PUSH32
    (rs, c) => {
      const st = rs.stack;
      if (
        rs.shouldDoJumpAnalysis ||
        st._len >= st._maxHeight ||
        (rs.env.chargeCodeAccesses === true && statelessCodeGas(c))
      ) {
        return fallback(0x60, rs, c);
      }
      st._store[st._len++] = rs.cachedPushes[rs.programCounter]!;
      rs.programCounter += rs.opCode - 0x5f;
    },
  ],
  [
    0x80, // DUP1..DUP16
    (rs, c) => {
      const st = rs.stack;
      const len = st._len;
      const position = rs.opCode - 0x7f;
      if (len < position || len >= st._maxHeight) return fallback(0x80, rs, c);
      st._store[len] = st._store[len - position]!;
      st._len = len + 1;
    },
  ],
  [
    0x90, // SWAP1..SWAP16
    (rs, c) => {
      const st = rs.stack;
      const position = rs.opCode - 0x8f;
      if (st._len <= position) return fallback(0x90, rs, c);
      const s = st._store;
      const head = st._len - 1;
      const tmp = s[head]!;
      s[head] = s[head - position]!;
      s[head - position] = tmp;
    },
  ],
];

/** Opcodes sharing one handler in the library's table (PUSHn, DUPn, SWAPn). */
const RANGES: Record<number, number> = { 0x60: 0x7f, 0x80: 0x8f, 0x90: 0x9f };

let installed: Promise<Map<number, Handler> | undefined> | undefined;

/**
 * Replaces the handlers in the library's table once per process. Resolves to the library's own handlers by
 * opcode (kept for comparison), or undefined when the table was not found and nothing was replaced.
 */
export function installStackOps(): Promise<Map<number, Handler> | undefined> {
  installed ??= (async () => {
    const indexUrl = import.meta.resolve("@ethereumjs/evm");
    const mod = (await import(new URL("./opcodes/functions.js", indexUrl).href)) as {
      handlers?: Map<number, Handler>;
    };
    const table = mod.handlers;
    if (table === undefined || replacements.some(([op]) => typeof libraryEntry(table, op) !== "function"))
      return undefined;
    const originals = new Map<number, Handler>();
    for (const [op, handler] of replacements) {
      library.set(op, libraryEntry(table, op)!);
      const last = RANGES[op] ?? op;
      for (let code = op; code <= last; code++) {
        originals.set(code, libraryEntry(table, code)!);
        table.set(code, handler);
      }
    }
    return originals;
  })();
  return installed;
}
