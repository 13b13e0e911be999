/**
 * A synchronous dispatch loop for @ethereumjs/evm 10.1.3's interpreter. The library awaits every opcode
 * (`await this.runStep()`, itself async), so each PUSH, DUP or ADD costs a promise and a microtask turn.
 * Here an opcode whose gas and logic are synchronous (most executed ones) runs without any await; only
 * an opcode with an async gas handler (memory, storage, calls: the library declares them all async) or
 * async logic awaits, exactly where the library awaited. The steps are the library's own, in its order:
 * dynamic gas, invalid-opcode check, useGas, pc + 1, the EIP-7928 pending out-of-gas check, the handler,
 * the access-witness commit; the end-of-frame EIP-8037 rule is copied from `run`. The opcode's entry is taken
 * from the EVM's opcode table by the opcode byte (the library's `lookupOpInfo`) rather than from a table per
 * code position built for every EVM and code, and the jump analysis (jump destinations, PUSH values) is the
 * process-wide one of evm-fast-paths.ts, taken when the frame starts (the library takes it at the first jump, so
 * every PUSH before it decoded its bytes); `useGas` is inlined (its DEBUG logging is off on this path).
 *
 * The library's loop runs instead (so nothing is lost) whenever something it supports needs it: `step`
 * listeners or DEBUG (tracing), its performance profiler, EOF (EIP-3540), stateless code-chunk gas
 * (EIP-6800 / EIP-7864), or EIP-8024's immediates (a different jump analysis). The patch reaches the private Interpreter through its module file; a version
 * without the expected methods keeps its own loop.
 */
import { EVMError } from "@ethereumjs/evm";
import { EthereumJSErrorWithoutCode } from "@ethereumjs/util";
import { codeJumpAnalysis } from "./evm-fast-paths.js";
import { libraryMember } from "./library-originals.js";

/** The parts of the library's opcode table entry and Interpreter this loop uses. */
interface OpEntry {
  opcodeInfo: {
    code: number;
    name: string;
    feeBigInt: bigint;
    dynamicGas: boolean;
    isAsync: boolean;
    isInvalid: boolean;
  };
  opHandler: (runState: RunState, common: unknown) => Promise<void> | undefined;
  gasHandler: (runState: RunState, gas: bigint, common: unknown) => bigint | Promise<bigint>;
}

interface RunState {
  programCounter: number;
  code: Uint8Array;
  opCode: number;
  gasLeft: bigint;
  validJumps: Uint8Array;
  cachedPushes: Record<number, bigint>;
  shouldDoJumpAnalysis: boolean;
  eip7928PostTargetCallOog?: unknown;
  eip8037BurnLeftoverAfterCreateHaltOntoAlive?: boolean;
  env: { accessWitness?: { commit(): void; revert(): void } };
}

interface InterpreterLike {
  _runState: RunState;
  _evm: { DEBUG: boolean; events: { listenerCount(name: string): number }; _opcodeMap: OpEntry[] };
  common: { isActivatedEIP(eip: number): boolean };
  profilerOpts?: { enabled?: boolean };
}

type Run = (
  this: InterpreterLike,
  code: Uint8Array,
  opts?: { pc?: number },
) => Promise<{ runState: RunState; exceptionError?: EVMError }>;

function isEvmError(e: unknown): e is EVMError {
  return typeof e === "object" && e !== null && (e as { errorType?: string }).errorType === "EVMError";
}

const INVALID_OPCODE = EVMError.errorMessages.INVALID_OPCODE;
const OUT_OF_GAS = EVMError.errorMessages.OUT_OF_GAS;

function fastRun(original: Run, consumePendingOog: (runState: RunState) => void): Run {
  return async function run(this: InterpreterLike, code, opts = {}) {
    const c = this.common;
    if (
      this._evm.DEBUG ||
      this._evm.events.listenerCount("step") > 0 ||
      this.profilerOpts?.enabled === true ||
      c.isActivatedEIP(3540) ||
      c.isActivatedEIP(6800) ||
      c.isActivatedEIP(7864) ||
      c.isActivatedEIP(8024) ||
      !Array.isArray(this._evm._opcodeMap)
    ) {
      return original.call(this, code, opts);
    }
    // The EVM's opcode table by opcode byte: the entry the library's `lookupOpInfo` returns, and the one its
    // analysis caches per position (`opcodesCached[pc]` is `lookupOpInfo(code[pc])` without EIP-8024).
    const opcodeMap = this._evm._opcodeMap;
    const runState = this._runState;
    runState.code = code;
    runState.programCounter = opts.pc ?? runState.programCounter;
    const pc0 = runState.programCounter;
    if (pc0 !== 0 && (pc0 < 0 || pc0 >= code.length)) {
      throw EthereumJSErrorWithoutCode("Internal error: program counter not in range");
    }
    // The jump analysis at the frame's start (the library's loop does it at the first JUMP, JUMPI or JUMPF): the
    // process-wide analysis is one lookup per code, and with it every PUSH takes its value from `cachedPushes`
    // instead of decoding its bytes (a hex round trip) until the first jump.
    const { jumps, pushes } = codeJumpAnalysis(code);
    runState.validJumps = jumps;
    runState.cachedPushes = pushes;
    runState.shouldDoJumpAnalysis = false;
    let err: EVMError | undefined;
    // The library's steps in its order (`runStep`): dynamic gas, the invalid-opcode check, `useGas` (inlined:
    // DEBUG is off here), pc + 1, the EIP-7928 pending out-of-gas check, the handler, the access-witness commit.
    // Gas handlers and opcode handlers the library declares async do not all return promises: await only those.
    try {
      while (runState.programCounter < runState.code.length) {
        const op = runState.code[runState.programCounter]!;
        runState.opCode = op;
        const entry = opcodeMap[op]!;
        const info = entry.opcodeInfo;
        let gas = info.feeBigInt;
        if (info.dynamicGas) {
          const g = entry.gasHandler(runState, gas, c);
          gas = typeof g === "bigint" ? g : await g;
        }
        if (info.isInvalid) throw new EVMError(INVALID_OPCODE);
        runState.gasLeft -= gas;
        if (runState.gasLeft < 0n) {
          runState.gasLeft = 0n;
          throw new EVMError(OUT_OF_GAS);
        }
        runState.programCounter++;
        if (runState.eip7928PostTargetCallOog !== undefined) consumePendingOog(runState);
        const result = entry.opHandler(runState, c);
        if (result instanceof Promise) await result;
        runState.env.accessWitness?.commit();
      }
    } catch (e) {
      runState.env.accessWitness?.revert();
      if (!isEvmError(e)) throw e;
      if (e.error !== EVMError.errorMessages.STOP) err = e;
    }
    if (
      err === undefined &&
      runState.eip8037BurnLeftoverAfterCreateHaltOntoAlive === true &&
      runState.gasLeft > 0n
    ) {
      runState.gasLeft = 0n;
      err = new EVMError(EVMError.errorMessages.OUT_OF_GAS);
    }
    return { runState, exceptionError: err };
  };
}

let installed: Promise<void> | undefined;
let active = false;

/** Whether the synchronous loop replaced the library's (false before the install or on an unexpected library version). */
export function syncInterpreterLoopActive(): boolean {
  return active;
}

/** Installs the synchronous loop once per process (Interpreter.prototype.run). */
export function installSyncInterpreterLoop(): Promise<void> {
  installed ??= (async () => {
    const indexUrl = import.meta.resolve("@ethereumjs/evm");
    const [interp, eip7928] = await Promise.all([
      import(new URL("./interpreter.js", indexUrl).href) as Promise<{
        Interpreter?: { prototype: Record<string, unknown> };
      }>,
      import(new URL("./opcodes/EIP7928.js", indexUrl).href) as Promise<{
        consumeEip7928PostTargetCallOog?: unknown;
      }>,
    ]);
    const proto = interp.Interpreter?.prototype;
    const consume = eip7928.consumeEip7928PostTargetCallOog;
    if (
      proto === undefined ||
      typeof libraryMember(proto, "run") !== "function" ||
      typeof proto.lookupOpInfo !== "function" ||
      typeof proto.useGas !== "function" ||
      typeof proto._getValidJumpDestinations !== "function" ||
      typeof consume !== "function"
    )
      return;
    proto.run = fastRun(libraryMember(proto, "run") as Run, consume as (runState: RunState) => void);
    active = true;
  })();
  return installed;
}
