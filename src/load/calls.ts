/** The call each kind of load transaction makes on the load contracts (contracts/src/load). */
import { type Address, encodeDeployData, encodeFunctionData, type Hex } from "viem";
import {
  loadLoadArtifact,
  loadNftAbi,
  loadPoolAbi,
  loadStorageAbi,
  loadTokenAbi,
} from "../../contracts/index.js";
import type { LoadKind } from "./mix.js";

/** The load contracts of one run. */
export interface LoadContracts {
  readonly tokenA: Address;
  readonly tokenB: Address;
  readonly pool: Address;
  readonly nft: Address;
  readonly storage: Address;
}

/** Fresh slots one storage-heavy call writes (about 22 100 gas each). */
export const STORAGE_SLOTS_PER_CALL = 16n;

/** A call without its sender, nonce and fees; `to` undefined is a contract creation. */
export interface LoadCall {
  readonly to: Address | undefined;
  readonly data: Hex;
}

const tokenBytecode = loadLoadArtifact("LoadToken").bytecode;

/** Creation data of a LoadToken (what the deploy kind sends). */
export function tokenDeployData(name: string, symbol: string): Hex {
  return encodeDeployData({ abi: loadTokenAbi, bytecode: tokenBytecode, args: [name, symbol] });
}

/** The call of `kind`; `recipient` receives transfers, `random` picks amounts and directions. */
export function loadCall(
  kind: LoadKind,
  contracts: LoadContracts,
  recipient: Address,
  random: () => number = Math.random,
): LoadCall {
  switch (kind) {
    case "transfer":
      return {
        to: contracts.tokenA,
        data: encodeFunctionData({
          abi: loadTokenAbi,
          functionName: "transfer",
          args: [recipient, 10n ** 15n + BigInt(Math.floor(random() * 1e9))],
        }),
      };
    case "swap":
      return {
        to: contracts.pool,
        data: encodeFunctionData({
          abi: loadPoolAbi,
          functionName: "swap",
          args: [random() < 0.5, 10n ** 16n + BigInt(Math.floor(random() * 1e15)), 0n],
        }),
      };
    case "mint":
      return { to: contracts.nft, data: encodeFunctionData({ abi: loadNftAbi, functionName: "mint" }) };
    case "storage":
      return {
        to: contracts.storage,
        data: encodeFunctionData({
          abi: loadStorageAbi,
          functionName: "fill",
          args: [STORAGE_SLOTS_PER_CALL],
        }),
      };
    case "deploy":
      return { to: undefined, data: tokenDeployData("Load Token", `LT${Math.floor(random() * 1e6)}`) };
  }
}
