/**
 * Two measured hot spots of @ethereumjs/evm 10.1.3, removed without changing behaviour:
 *
 * 1. Jump-destination analysis runs for every call frame that contains a JUMP (allocating arrays of
 *    the code's length and a bigint per PUSH). Its result depends only on the code bytes and the
 *    EVM's opcode table, so it is cached per EVM instance and code array (the state manager hands out
 *    the same code array for an address while it is cached, so repeated calls hit the cache).
 * 2. Common.isActivatedEIP scans an array on every call (several times per opcode); our Commons
 *    never change hardfork, so the lookup becomes a Set.
 *
 * (1) patches a private method of the library's Interpreter, reached through its module file; if a
 * future version lacks the method, the patch is skipped and the library's own analysis runs.
 */
import type { Common } from "@ethereumjs/common";

type JumpAnalysis = { jumps: Uint8Array; pushes: Record<number, bigint>; opcodesCached: unknown[] };
type InterpreterProto = {
  _getValidJumpDestinations?: (this: { _evm: object }, code: Uint8Array) => JumpAnalysis;
};

const analysisCache = new WeakMap<object, WeakMap<Uint8Array, JumpAnalysis>>();
let patched: Promise<void> | undefined;

/** Installs the jump-analysis cache once per process. */
export function installJumpAnalysisCache(): Promise<void> {
  if (patched === undefined) {
    patched = (async () => {
      const indexUrl = import.meta.resolve("@ethereumjs/evm");
      const mod = (await import(new URL("./interpreter.js", indexUrl).href)) as {
        Interpreter?: { prototype: InterpreterProto };
      };
      const proto = mod.Interpreter?.prototype;
      const original = proto?._getValidJumpDestinations;
      if (proto === undefined || typeof original !== "function") return;
      proto._getValidJumpDestinations = function (code: Uint8Array): JumpAnalysis {
        let perEvm = analysisCache.get(this._evm);
        if (perEvm === undefined) {
          perEvm = new WeakMap();
          analysisCache.set(this._evm, perEvm);
        }
        let result = perEvm.get(code);
        if (result === undefined) {
          result = original.call(this, code);
          perEvm.set(code, result);
        }
        return result;
      };
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
  return common;
}
