/**
 * The engine's replacements for @ethereumjs/evm hot spots, installed together once per process: the
 * jump analysis cache, MSTORE / MLOAD word ops, in-place stack and jump ops, the SLOAD and SSTORE fast paths,
 * synchronous memory gas, the call-frame set-up without copies, the synchronous interpreter loop
 * and the WebAssembly keccak. Everything that creates an EVM for the engine's rules (block building,
 * eth_call) awaits this first, so both run the same code.
 */
import { installJumpAnalysisCache } from "./evm-fast-paths.js";
import { installFrameSetup } from "./evm-frame.js";
import { installMemoryGas } from "./evm-memory-gas.js";
import { installStackOps } from "./evm-stack-ops.js";
import { installStorageOps } from "./evm-storage-ops.js";
import { installWordOps } from "./evm-word-ops.js";
import { installSyncInterpreterLoop } from "./interpreter-loop.js";
import { initKeccak } from "./keccak.js";

export async function installEngineFastPaths(): Promise<void> {
  await Promise.all([
    installJumpAnalysisCache(),
    installWordOps(),
    installStorageOps(),
    installMemoryGas(),
    installFrameSetup(),
    installStackOps(),
    installSyncInterpreterLoop(),
    initKeccak(),
  ]);
}
