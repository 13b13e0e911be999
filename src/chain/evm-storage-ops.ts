/**
 * SLOAD and SSTORE of @ethereumjs/evm 10.1.3, cheaper with the same results. The library's gas handlers and
 * handlers turn the key into 32 bytes through a hex string (`setLengthLeft(bigIntToBytes(key), 32)`), values
 * through others (`bytesToBigInt`, `bigIntToBytes`), and all four are async: an SLOAD costs two promises and two
 * microtask turns, an SSTORE five (the current and the original value for its gas, the write, the account read
 * after it), although our state manager reads and writes synchronously (caches, then the in-memory trie).
 *
 * Here keys and values go through `wordToBytes32` and a DataView, and the four run synchronously on the state
 * manager's `getStorageSync`, `getOriginalStorageSync` and `putStorageSync` (BlockStateManager) when it has them
 * and EIP-7928 (block-level access lists, which record the reads and writes) is off. SLOAD's gas is the
 * library's `accessStorageEIP2929`; SSTORE's is the library's own computation from EIP-2200 on (its
 * `updateSstoreGasEIP2200`, then `accessStorageEIP2929`) on the same current, original and new values in the
 * same order. The library's handlers run otherwise: stateless code-chunk gas (EIP-6800 / EIP-7864), a static
 * frame's SSTORE (its gas handler throws), EIP-8037 / EIP-8038 state gas, forks before Istanbul and
 * Constantinople. All are replaced in the library's tables before an EVM copies them, as evm-word-ops.ts does
 * for MSTORE / MLOAD.
 */
import { statelessCodeGas } from "./evm-fast-paths.js";
import { bytes32ToWord, wordToBytes32 } from "./evm-word-ops.js";
import { libraryEntry } from "./library-originals.js";

const SLOAD = 0x54;
const SSTORE = 0x55;

type Common = {
  isActivatedEIP(eip: number): boolean;
  hardfork(): string;
  gteHardfork(hardfork: string): boolean;
};

/** The parts of the library's run state SLOAD uses. */
interface StorageRunState {
  stack: { pop(): bigint; peek(n?: number): bigint[]; push(value: bigint): void };
  stateManager: unknown;
  interpreter: {
    getAddress(): unknown;
    storageLoad(key: Uint8Array): Promise<Uint8Array>;
    isStatic(): boolean;
    _env: { contract: unknown };
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

type SstoreGas2200 = (
  runState: StorageRunState,
  currentStorage: Uint8Array,
  originalStorage: Uint8Array,
  value: Uint8Array,
  key: Uint8Array,
  common: Common,
) => bigint;

interface SyncStorage {
  getStorageSync(address: unknown, key: Uint8Array): Uint8Array;
  getOriginalStorageSync(address: unknown, key: Uint8Array): Uint8Array;
  putStorageSync(address: unknown, key: Uint8Array, value: Uint8Array): void;
  getAccountSync(address: unknown): unknown;
}

function hasSyncStorage(sm: unknown): sm is SyncStorage {
  const s = sm as Partial<SyncStorage> | null;
  return (
    typeof s?.getStorageSync === "function" &&
    typeof s.getOriginalStorageSync === "function" &&
    typeof s.putStorageSync === "function" &&
    typeof s.getAccountSync === "function"
  );
}

const EMPTY = new Uint8Array(0);

/** A stored value as the library's SSTORE gas compares them (`setLengthLeftStorage`): empty when zero, else 32 bytes. */
function storageForGas(value: Uint8Array): Uint8Array {
  let zero = true;
  for (let i = 0; i < value.length; i++) {
    if (value[i] !== 0) {
      zero = false;
      break;
    }
  }
  if (zero) return EMPTY;
  if (value.length === 32) return value;
  const padded = new Uint8Array(32);
  padded.set(value, 32 - value.length);
  return padded;
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

/** Whether SSTORE's gas and write may take the synchronous path (else the library's handlers run). */
function sstoreFast(runState: StorageRunState, common: Common): boolean {
  return (
    hasSyncStorage(runState.stateManager) &&
    !statelessCodeGas(common) &&
    !common.isActivatedEIP(7928) &&
    !common.isActivatedEIP(8037) &&
    !common.isActivatedEIP(8038) &&
    common.isActivatedEIP(2929) &&
    common.hardfork() !== "constantinople" &&
    common.gteHardfork("istanbul")
  );
}

function sstoreGas(original: GasHandler, access: AccessStorage, gas2200: SstoreGas2200): GasHandler {
  return function (runState, gas, common) {
    if (runState.interpreter.isStatic() || !sstoreFast(runState, common))
      return original(runState, gas, common);
    const sm = runState.stateManager as SyncStorage;
    const [key, val] = runState.stack.peek(2) as [bigint, bigint];
    const keyBytes = wordToBytes32(key);
    const address = runState.interpreter.getAddress();
    // The library's order: the current value, then the original (whose first read in a transaction remembers it).
    const current = storageForGas(sm.getStorageSync(address, keyBytes));
    const originalValue = storageForGas(sm.getOriginalStorageSync(address, keyBytes));
    const value = val === 0n ? EMPTY : wordToBytes32(val);
    gas += gas2200(runState, current, originalValue, value, keyBytes, common);
    return gas + access(runState, keyBytes, true, common, true);
  };
}

function sstore(original: Handler): Handler {
  return function (runState, common) {
    if (!sstoreFast(runState, common)) return original(runState, common);
    const sm = runState.stateManager as SyncStorage;
    const key = wordToBytes32(runState.stack.pop());
    const val = runState.stack.pop();
    const address = runState.interpreter.getAddress();
    sm.putStorageSync(address, key, val === 0n ? EMPTY : wordToBytes32(val));
    // The library's `storageStore` reads the account again into the frame's environment.
    const account = sm.getAccountSync(address);
    if (account === undefined) throw new Error("could not read account while persisting memory");
    runState.interpreter._env.contract = account;
  };
}

interface LibraryStorageOps {
  sload: Handler;
  sloadGas: GasHandler;
  sstore: Handler;
  sstoreGas: GasHandler;
}

let installed: Promise<LibraryStorageOps | undefined> | undefined;

/**
 * Replaces SLOAD's and SSTORE's handlers and gas handlers in the library's tables once per process. Resolves to
 * the library's own (kept for comparison), or undefined when the tables were not found and nothing was replaced.
 */
export function installStorageOps(): Promise<LibraryStorageOps | undefined> {
  installed ??= (async () => {
    const indexUrl = import.meta.resolve("@ethereumjs/evm");
    const [functions, gas, eip2929, eip2200] = await Promise.all([
      import(new URL("./opcodes/functions.js", indexUrl).href) as Promise<{
        handlers?: Map<number, Handler>;
      }>,
      import(new URL("./opcodes/gas.js", indexUrl).href) as Promise<{
        dynamicGasHandlers?: Map<number, GasHandler>;
      }>,
      import(new URL("./opcodes/EIP2929.js", indexUrl).href) as Promise<{
        accessStorageEIP2929?: AccessStorage;
      }>,
      import(new URL("./opcodes/EIP2200.js", indexUrl).href) as Promise<{
        updateSstoreGasEIP2200?: SstoreGas2200;
      }>,
    ]);
    const library = {
      sload: functions.handlers && libraryEntry(functions.handlers, SLOAD),
      sloadGas: gas.dynamicGasHandlers && libraryEntry(gas.dynamicGasHandlers, SLOAD),
      sstore: functions.handlers && libraryEntry(functions.handlers, SSTORE),
      sstoreGas: gas.dynamicGasHandlers && libraryEntry(gas.dynamicGasHandlers, SSTORE),
    };
    const access = eip2929.accessStorageEIP2929;
    const gas2200 = eip2200.updateSstoreGasEIP2200;
    if (
      library.sload === undefined ||
      library.sloadGas === undefined ||
      library.sstore === undefined ||
      library.sstoreGas === undefined ||
      access === undefined ||
      gas2200 === undefined
    )
      return undefined;
    functions.handlers!.set(SLOAD, sload);
    gas.dynamicGasHandlers!.set(SLOAD, sloadGas(library.sloadGas, access));
    functions.handlers!.set(SSTORE, sstore(library.sstore));
    gas.dynamicGasHandlers!.set(SSTORE, sstoreGas(library.sstoreGas, access, gas2200));
    return library as LibraryStorageOps;
  })();
  return installed;
}
