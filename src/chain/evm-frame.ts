/**
 * Call-frame set-up of @ethereumjs/evm 10.1.3, without the two object spreads that cost the most per frame:
 *
 * - `_executeCall` hands the interpreter `{ ...{ codeAddress }, ...message, gasLimit }`, a generic copy of the
 *   whole Message instance (some 25 fields) for every CALL frame. The frame's gas limit differs from the
 *   message's only under rules that charge gas before the frame (EIP-2780 / EIP-8037 top-frame charges,
 *   stateless access gas EIP-6800 / EIP-7864), and nothing downstream writes to the object, so without those
 *   rules the message itself is passed.
 * - `runInterpreter` returns, besides the frame's result, `runState: { ...runState, ...result, ...env }`, a
 *   merge of three objects into a fresh ~45-field object per frame that neither the library nor the engine
 *   reads. It is now built on first read (a non-enumerable getter), with the same content.
 *
 * The rest of both methods is the library's code, in its order. `_executeCall` falls back to the library's
 * own whenever a rule it handles and this copy does not is active (EIP-2780, EIP-6800, EIP-7708, EIP-7864,
 * EIP-7928), or DEBUG or the performance profiler is on. Both are replaced on the EVM prototype once per
 * process; a library version without the expected members keeps its own.
 */
import { EVMError } from "@ethereumjs/evm";
import { Account, createZeroAddress } from "@ethereumjs/util";
import { libraryMember } from "./library-originals.js";

/** The parts of the library's Message the frame set-up reads (it writes `code`, `isCompiled` in `_loadCode`). */
interface MessageLike {
  to?: unknown;
  caller: unknown;
  value: bigint;
  data?: Uint8Array;
  code?: Uint8Array | ((...args: unknown[]) => unknown);
  codeAddress: unknown;
  isStatic?: boolean;
  isCreate?: boolean;
  isCompiled?: boolean;
  depth?: number;
  gasLimit: bigint;
  gasRefund: bigint;
  delegatecall?: boolean;
  selfdestruct?: Map<string, unknown>;
  createdAddresses?: Set<string>;
  chargeCodeAccesses?: boolean;
  blobVersionedHashes?: Uint8Array[];
  accessWitness?: { commit(): void };
}

interface InterpreterResult {
  runState: { gasLeft: bigint; gasRefund: bigint; stateGasSpilled?: bigint };
  exceptionError?: EVMError;
}

interface InterpreterInstance {
  _env: Record<string, unknown>;
  _result: Record<string, unknown> & { returnValue?: Uint8Array };
  run(code: unknown, opts: unknown): Promise<InterpreterResult>;
}

type InterpreterClass = new (...args: unknown[]) => InterpreterInstance;

interface EvmLike {
  DEBUG: boolean;
  common: { isActivatedEIP(eip: number): boolean };
  stateManager: { getAccount(address: unknown): Promise<Account | undefined> };
  blockchain: unknown;
  journal: unknown;
  performanceLogger: unknown;
  _optsCached: { profiler?: { enabled?: boolean } };
  _tx?: { gasPrice: bigint; origin?: unknown };
  _block?: unknown;
  _reduceSenderBalance(account: Account, message: MessageLike): Promise<unknown>;
  _addToBalance(account: Account, message: MessageLike): Promise<void>;
  _loadCode(message: MessageLike): Promise<void>;
  runPrecompile(code: unknown, data: unknown, gasLimit: bigint): Promise<ExecResult>;
  runInterpreter(message: MessageLike, opts?: { initialLogs?: unknown[] }): Promise<ExecResult>;
  postMessageCleanup(): void;
}

type ExecResult = Record<string, unknown> & { executionGasUsed: bigint; gasRefund?: bigint };
type ExecuteCall = (this: EvmLike, message: MessageLike) => Promise<{ execResult: ExecResult }>;
type RunInterpreter = EvmLike["runInterpreter"];

/** Rules under which the library's `_executeCall` does more than this copy. */
const CALL_RULES_NOT_COPIED = [2780, 6800, 7708, 7864, 7928];

function fastExecuteCall(original: ExecuteCall): ExecuteCall {
  return async function _executeCall(this: EvmLike, message) {
    const common = this.common;
    if (
      this.DEBUG ||
      this._optsCached.profiler?.enabled === true ||
      CALL_RULES_NOT_COPIED.some((eip) => common.isActivatedEIP(eip))
    ) {
      return original.call(this, message);
    }
    const account = (await this.stateManager.getAccount(message.caller)) ?? new Account();
    let errorMessage: unknown;
    if (message.delegatecall !== true) {
      try {
        await this._reduceSenderBalance(account, message);
      } catch (e) {
        errorMessage = e;
      }
    }
    const toAccount = (await this.stateManager.getAccount(message.to)) ?? new Account();
    if (message.delegatecall !== true) {
      try {
        await this._addToBalance(toAccount, message);
      } catch (e) {
        errorMessage = e;
      }
    }
    await this._loadCode(message);
    const code = message.code;
    if (!code || (typeof code !== "function" && code.length === 0) || errorMessage !== undefined) {
      return {
        execResult: {
          gasRefund: message.gasRefund,
          executionGasUsed: 0n,
          exceptionError: errorMessage,
          returnValue: new Uint8Array(0),
          logs: undefined,
        },
      };
    }
    let result: ExecResult;
    if (message.isCompiled === true) {
      result = await this.runPrecompile(code, message.data, message.gasLimit);
      result.gasRefund = message.gasRefund;
    } else {
      // The library passes a copy with the frame's gas limit, equal to the message's under these rules.
      result = await this.runInterpreter(message, { initialLogs: undefined });
    }
    if (message.depth === 0) this.postMessageCleanup();
    return { execResult: result };
  };
}

function defaultBlock(): unknown {
  return {
    header: {
      number: 0n,
      coinbase: createZeroAddress(),
      timestamp: 0n,
      difficulty: 0n,
      prevRandao: new Uint8Array(32),
      gasLimit: 0n,
      baseFeePerGas: undefined,
      slotNumber: 0n,
      getBlobGasPrice: () => undefined,
    },
  };
}

function fastRunInterpreter(Interpreter: InterpreterClass): RunInterpreter {
  return async function runInterpreter(this: EvmLike, message, opts = {}) {
    const contract = (await this.stateManager.getAccount(message.to ?? createZeroAddress())) ?? new Account();
    const env = {
      address: message.to ?? createZeroAddress(),
      caller: message.caller ?? createZeroAddress(),
      callData: message.data ?? Uint8Array.from([0]),
      callValue: message.value ?? 0n,
      code: message.code,
      isStatic: message.isStatic ?? false,
      isCreate: message.isCreate ?? false,
      depth: message.depth ?? 0,
      gasPrice: this._tx!.gasPrice,
      origin: this._tx!.origin ?? message.caller ?? createZeroAddress(),
      block: this._block ?? defaultBlock(),
      contract,
      codeAddress: message.codeAddress,
      gasRefund: message.gasRefund,
      chargeCodeAccesses: message.chargeCodeAccesses,
      blobVersionedHashes: message.blobVersionedHashes ?? [],
      accessWitness: message.accessWitness,
      createdAddresses: message.createdAddresses,
      initialLogs: opts.initialLogs,
    };
    const interpreter = new Interpreter(
      this,
      this.stateManager,
      this.blockchain,
      env,
      message.gasLimit,
      this.journal,
      this.performanceLogger,
      this._optsCached.profiler,
    );
    if (message.selfdestruct) interpreter._result.selfdestruct = message.selfdestruct;
    if (message.createdAddresses) interpreter._result.createdAddresses = message.createdAddresses;
    const interpreterRes = await interpreter.run(message.code, opts);
    let result = interpreter._result;
    let gasUsed = message.gasLimit - interpreterRes.runState.gasLeft;
    const error = interpreterRes.exceptionError;
    if (error) {
      if (
        error.error !== EVMError.errorMessages.REVERT &&
        error.error !== EVMError.errorMessages.INVALID_EOF_FORMAT
      ) {
        gasUsed = message.gasLimit;
      }
      result = { ...result, logs: [], selfdestruct: new Map(), createdAddresses: new Set() };
    }
    message.accessWitness?.commit();
    const frameResult: ExecResult = {
      ...result,
      exceptionError: error,
      gas: interpreterRes.runState.gasLeft,
      executionGasUsed: gasUsed,
      gasRefund: interpreterRes.runState.gasRefund,
      stateGasSpilled: interpreterRes.runState.stateGasSpilled,
      returnValue: result.returnValue ?? new Uint8Array(0),
    };
    const merged = result;
    Object.defineProperty(frameResult, "runState", {
      configurable: true,
      enumerable: false,
      get: () => ({ ...interpreterRes.runState, ...merged, ...interpreter._env }),
    });
    return frameResult;
  };
}

/** The library's own methods, as installed on an instance to run it without the replacements. */
export interface LibraryFrameSetup {
  _executeCall: unknown;
  runInterpreter: unknown;
}

let installed: Promise<LibraryFrameSetup | undefined> | undefined;

/**
 * Replaces `_executeCall` and `runInterpreter` on the EVM prototype once per process. Resolves to whether it did.
 */
export async function installFrameSetup(): Promise<boolean> {
  return (await libraryFrameSetup()) !== undefined;
}

/**
 * Installs the replacements (once per process) and resolves to the library's own methods, or undefined when
 * the library lacks the expected members and nothing was replaced.
 */
export function libraryFrameSetup(): Promise<LibraryFrameSetup | undefined> {
  installed ??= (async () => {
    const indexUrl = import.meta.resolve("@ethereumjs/evm");
    const [evmModule, interpModule] = await Promise.all([
      import(new URL("./evm.js", indexUrl).href) as Promise<{ EVM?: { prototype: Record<string, unknown> } }>,
      import(new URL("./interpreter.js", indexUrl).href) as Promise<{ Interpreter?: InterpreterClass }>,
    ]);
    const proto = evmModule.EVM?.prototype;
    const Interpreter = interpModule.Interpreter;
    if (
      proto === undefined ||
      Interpreter === undefined ||
      typeof libraryMember(proto, "_executeCall") !== "function" ||
      typeof libraryMember(proto, "runInterpreter") !== "function" ||
      typeof proto._reduceSenderBalance !== "function" ||
      typeof proto._addToBalance !== "function" ||
      typeof proto._loadCode !== "function" ||
      typeof proto.postMessageCleanup !== "function"
    ) {
      return undefined;
    }
    const library = {
      _executeCall: libraryMember(proto, "_executeCall"),
      runInterpreter: libraryMember(proto, "runInterpreter"),
    };
    proto._executeCall = fastExecuteCall(library._executeCall as ExecuteCall);
    proto.runInterpreter = fastRunInterpreter(Interpreter);
    return library;
  })();
  return installed;
}
