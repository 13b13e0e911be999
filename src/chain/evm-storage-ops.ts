/**
 * SLOAD of @ethereumjs/evm 10.1.3, cheaper with the same results. The library's gas handler and its
 * handler each turn the key into 32 bytes through a hex string (`setLengthLeft(bigIntToBytes(key), 32)`),
 * the value back through another (`bytesToBigInt`), and both are async: an SLOAD costs two promises and
 * two microtask turns although our state manager reads synchronously (caches, then the in-memory trie).
 *
 * Here the key goes through `wordToBytes32` and the value through a DataView; the gas handler is
 * synchronous (the EIP-2929 warm/cold charge is the library's `accessStorageEIP2929`), and the handler
 * reads through the state manager's `getStorageSync` when it has one (BlockStateManager) and EIP-7928
 * (block-level access lists, which record the read) is off, awaiting `storageLoad` otherwise. With
 * stateless code-chunk gas (EIP-6800 / EIP-7864) the library's gas handler runs. Both are replaced in the
 * library's tables before an EVM copies them, as evm-word-ops.ts does for MSTORE / MLOAD.
 */
import { statelessCodeGas } from "./evm-fast-paths.js";
import { bytes32ToWord, wordToBytes32 } from "./evm-word-ops.js";

const SLOAD = 0x54;

type Common = { isActivatedEIP(eip: number): boolean };

/** The parts of the library's run state SLOAD uses. */
interface StorageRunState {
  stack: { pop(): bigint; peek(n?: number): bigint[]; push(value: bigint): void };
  stateManager: unknown;
  interpreter: {
    getAddress(): unknown;
    storageLoad(key: Uint8Array): Promise<Uint8Array>;
  };
}

type Handler = (runState: StorageRunState, common: Common) => Promise<void> | void;
type GasHandler = (runState: StorageRunState, gas: bigint, common: Common) => Promise<bigint> | bigint;
type AccessStorage = (
  runState: StorageRunState,
  key: Uint8Array,
  isSstore: boolean,
  common: Common,
  chargeGas?: boolean,
) => bigint;

interface SyncStorage {
  getStorageSync(address: unknown, key: Uint8Array): Uint8Array;
}

function hasSyncStorage(sm: unknown): sm is SyncStorage {
  return typeof (sm as Partial<SyncStorage> | null)?.getStorageSync === "function";
}

/** The number whose big-endian encoding is `bytes` (at most 32 bytes, as storage values are). */
export function storageValueToWord(bytes: Uint8Array): bigint {
  const n = bytes.length;
  if (n === 0) return 0n;
  if (n > 32) throw new RangeError("storage value longer than 32 bytes");
  if (n === 32) return bytes32ToWord(bytes);
  const padded = new Uint8Array(32);
  padded.set(bytes, 32 - n);
  return bytes32ToWord(padded);
}

function sloadGas(original: GasHandler, access: AccessStorage): GasHandler {
  return function (runState, gas, common) {
    if (statelessCodeGas(common)) return original(runState, gas, common);
    if (!common.isActivatedEIP(2929)) return gas;
    return gas + access(runState, wordToBytes32(runState.stack.peek()[0]!), false, common, true);
  };
}

function sload(runState: StorageRunState, common: Common): Promise<void> | void {
  // A fresh array: the caches and the journal may keep the key.
  const key = wordToBytes32(runState.stack.pop());
  const sm = runState.stateManager;
  if (hasSyncStorage(sm) && !common.isActivatedEIP(7928)) {
    runState.stack.push(storageValueToWord(sm.getStorageSync(runState.interpreter.getAddress(), key)));
    return;
  }
  return runState.interpreter.storageLoad(key).then((value) => {
    runState.stack.push(storageValueToWord(value));
  });
}

let installed: Promise<{ sload: Handler; sloadGas: GasHandler } | undefined> | undefined;

/**
 * Replaces SLOAD's handler and gas handler in the library's tables once per process. Resolves to the
 * library's own (kept for comparison), or undefined when the tables were not found and nothing was replaced.
 */
export function installStorageOps(): Promise<{ sload: Handler; sloadGas: GasHandler } | undefined> {
  installed ??= (async () => {
    const indexUrl = import.meta.resolve("@ethereumjs/evm");
    const [functions, gas, eip2929] = await Promise.all([
      import(new URL("./opcodes/functions.js", indexUrl).href) as Promise<{
        handlers?: Map<number, Handler>;
      }>,
      import(new URL("./opcodes/gas.js", indexUrl).href) as Promise<{
        dynamicGasHandlers?: Map<number, GasHandler>;
      }>,
      import(new URL("./opcodes/EIP2929.js", indexUrl).href) as Promise<{
        accessStorageEIP2929?: AccessStorage;
      }>,
    ]);
    const originalLoad = functions.handlers?.get(SLOAD);
    const originalGas = gas.dynamicGasHandlers?.get(SLOAD);
    const access = eip2929.accessStorageEIP2929;
    if (originalLoad === undefined || originalGas === undefined || access === undefined) return undefined;
    functions.handlers!.set(SLOAD, sload);
    gas.dynamicGasHandlers!.set(SLOAD, sloadGas(originalGas, access));
    return { sload: originalLoad, sloadGas: originalGas };
  })();
  return installed;
}
