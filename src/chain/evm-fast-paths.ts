/**
 * Two measured hot spots of @ethereumjs/evm 10.1.3, removed without changing behaviour:
 *
 * 1. Jump-destination analysis runs for every call frame that contains a JUMP (allocating arrays of
 *    the code's length and a bigint per PUSH). Its result depends only on the code bytes and the
 *    EVM's opcode table, so it is cached per EVM instance and code array (the state manager hands out
 *    the same code array for an address while it is cached, so repeated calls hit the cache). The
 *    code-only part (jump destinations and PUSH values) is also kept per code array for the process,
 *    and is computed without the library's hex round trip per PUSH (bytesToBigInt through a hex
 *    string); with EIP-8024's immediates active the library's analysis runs.
 * 2. Common.isActivatedEIP scans an array on every call (several times per opcode); our Commons
 *    never change hardfork, so the lookup becomes a Set.
 *
 * (1) patches a private method of the library's Interpreter, reached through its module file; if a
 * future version lacks the method, the patch is skipped and the library's own analysis runs.
 */
import type { Common } from "@ethereumjs/common";
import { libraryMember } from "./library-originals.js";

type JumpAnalysis = { jumps: Uint8Array; pushes: Record<number, bigint>; opcodesCached: unknown[] };
type InterpreterThis = {
  _evm: object;
  common: { isActivatedEIP(eip: number): boolean };
  lookupOpInfo(op: number): unknown;
};
type InterpreterProto = {
  _getValidJumpDestinations?: (this: InterpreterThis, code: Uint8Array) => JumpAnalysis;
};

/** The value a PUSH of `size` bytes at `start` pushes (bytes past the code's end read as zeros). */
function pushValue(code: Uint8Array, start: number, size: number): bigint {
  const end = Math.min(start + size, code.length);
  let value = 0n;
  // Six bytes at a time fit a double exactly.
  for (let j = start; j < end;) {
    const k = Math.min(j + 6, end);
    let chunk = 0;
    for (let t = j; t < k; t++) chunk = chunk * 256 + code[t]!;
    value = j === start ? BigInt(chunk) : (value << BigInt(8 * (k - j))) | BigInt(chunk);
    j = k;
  }
  const missing = size - (end - start);
  return missing > 0 ? value << BigInt(8 * missing) : value;
}

/** The part of the analysis that depends on the code bytes only. */
interface CodeAnalysis {
  jumps: Uint8Array;
  pushes: Record<number, bigint>;
}

/** JUMPDEST positions outside PUSH data, and each PUSH's value by the position after its opcode. */
function jumpsAndPushes(code: Uint8Array): CodeAnalysis {
  const n = code.length;
  const jumps = new Uint8Array(n);
  const pushes: Record<number, bigint> = {};
  for (let i = 0; i < n; i++) {
    const op = code[i]!;
    if (op >= 0x60 && op <= 0x7f) {
      const size = op - 0x5f;
      pushes[i + 1] = pushValue(code, i + 1, size);
      i += size;
    } else if (op === 0x5b) {
      jumps[i] = 1;
    }
  }
  return { jumps, pushes };
}

/** The opcode table entry of every opcode position (PUSH data positions left empty). */
function opcodeEntries<T>(code: Uint8Array, lookup: (op: number) => T): T[] {
  const n = code.length;
  const entries = new Array<T>(n);
  for (let i = 0; i < n; i++) {
    const op = code[i]!;
    entries[i] = lookup(op);
    if (op >= 0x60 && op <= 0x7f) i += op - 0x5f;
  }
  return entries;
}

/**
 * The library's jump-destination analysis (Interpreter._getValidJumpDestinations without EIP-8024):
 * JUMPDEST positions outside PUSH data, each PUSH's value by the position after its opcode, and the
 * opcode table entry of every opcode position (push data positions left empty).
 */
export function analyzeCode<T>(
  code: Uint8Array,
  lookup: (op: number) => T,
): CodeAnalysis & { opcodesCached: T[] } {
  return { ...jumpsAndPushes(code), opcodesCached: opcodeEntries(code, lookup) };
}

/**
 * The code-only part by code array, shared by every EVM of the process: the preimage store hands out the
 * same array for the same code in every block it serves, so a contract is analysed once, not once per block.
 * Neither part is ever written by the interpreter (it reads `validJumps[dest]` and `cachedPushes[pc]`).
 */
const codeAnalysisCache = new WeakMap<Uint8Array, CodeAnalysis>();

/**
 * Jump destinations and PUSH values of `code`, shared by every EVM of the process (the synchronous interpreter
 * loop's analysis: it dispatches through the EVM's opcode table by opcode byte, so it needs no per-EVM part).
 * Not for EIP-8024's immediates, under which the library's own analysis applies.
 */
export function codeJumpAnalysis(code: Uint8Array): CodeAnalysis {
  let shared = codeAnalysisCache.get(code);
  if (shared === undefined) {
    shared = jumpsAndPushes(code);
    codeAnalysisCache.set(code, shared);
  }
  return shared;
}

const analysisCache = new WeakMap<object, WeakMap<Uint8Array, JumpAnalysis>>();
type JumpDestinations = (this: InterpreterThis, code: Uint8Array) => JumpAnalysis;
let patched: Promise<JumpDestinations | undefined> | undefined;

/**
 * Installs the jump-analysis cache once per process. Resolves to the library's own analysis (kept for
 * comparison), or undefined when the interpreter was not found and nothing was replaced.
 */
export function installJumpAnalysisCache(): Promise<JumpDestinations | undefined> {
  if (patched === undefined) {
    patched = (async () => {
      const indexUrl = import.meta.resolve("@ethereumjs/evm");
      const mod = (await import(new URL("./interpreter.js", indexUrl).href)) as {
        Interpreter?: { prototype: InterpreterProto };
      };
      const proto = mod.Interpreter?.prototype;
      if (proto === undefined) return undefined;
      const original = libraryMember(proto, "_getValidJumpDestinations") as JumpDestinations | undefined;
      if (typeof original !== "function") return undefined;
      proto._getValidJumpDestinations = function (code: Uint8Array): JumpAnalysis {
        let perEvm = analysisCache.get(this._evm);
        if (perEvm === undefined) {
          perEvm = new WeakMap();
          analysisCache.set(this._evm, perEvm);
        }
        let result = perEvm.get(code);
        if (result === undefined) {
          if (this.common.isActivatedEIP(8024)) {
            result = original.call(this, code);
          } else {
            result = {
              ...codeJumpAnalysis(code),
              opcodesCached: opcodeEntries(code, (op) => this.lookupOpInfo(op)),
            };
          }
          perEvm.set(code, result);
        }
        return result;
      };
      return original;
    })();
  }
  return patched;
}

/** Replaces the instance's EIP lookup with a Set over the same (fixed) activated EIPs. */
export function fastEipLookup(common: Common): Common {
  const cache = (common as unknown as { _activatedEIPsCache?: number[] })._activatedEIPsCache;
  if (!Array.isArray(cache)) return common;
  const active = new Set(cache);
  common.isActivatedEIP = (eip: number) => active.has(eip);
  (common as StatelessFlag).statelessCodeGas = active.has(6800) || active.has(7864);
  return common;
}

type StatelessFlag = { statelessCodeGas?: boolean };

/**
 * Whether stateless code-chunk gas (EIP-6800 or EIP-7864) is on: the flag `fastEipLookup` leaves on its
 * Commons (PUSH asks on every execution), else the two lookups.
 */
export function statelessCodeGas(common: { isActivatedEIP(eip: number): boolean }): boolean {
  return (
    (common as StatelessFlag).statelessCodeGas ?? (common.isActivatedEIP(6800) || common.isActivatedEIP(7864))
  );
}
