/** Reads chains' genesis configs from the superchain registry export (shared/data/superchain-configs.json). */
import { hexToBytes } from "viem";
import type { ChainGenesisConfig } from "./config-hash.js";
import { ProofError } from "./errors.js";

/** The registry file lacks a chain or a field the config hash needs. */
export class SuperchainConfigError extends ProofError<"superchain-config"> {
  override readonly name = "SuperchainConfigError";
  constructor(message: string, details: { readonly field?: string; readonly chainId?: bigint } = {}) {
    super(message, { kind: "superchain-config", details });
  }
}

function field(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split(".")) {
    if (typeof current !== "object" || current === null)
      throw new SuperchainConfigError(`missing ${path}`, { field: path });
    current = (current as Record<string, unknown>)[key];
  }
  if (current === undefined || current === null)
    throw new SuperchainConfigError(`missing ${path}`, { field: path });
  return current;
}

function hexField(chain: unknown, path: string, length: number): Uint8Array {
  const value = field(chain, path);
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]*$/.test(value))
    throw new SuperchainConfigError(`${path} is not hex`, { field: path });
  const bytes = hexToBytes(value as `0x${string}`);
  if (bytes.length !== length)
    throw new SuperchainConfigError(`${path} must be ${length} bytes, got ${bytes.length}`, { field: path });
  return bytes;
}

function intField(chain: unknown, path: string): bigint {
  const value = field(chain, path);
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new SuperchainConfigError(`${path} must be a non-negative integer`, { field: path });
  }
  return BigInt(value);
}

/** The genesis config of one chain entry of the registry export. */
export function genesisConfigOf(chain: unknown): ChainGenesisConfig {
  return {
    chainId: intField(chain, "l2_chain_id"),
    l1GenesisHash: hexField(chain, "genesis.l1.hash", 32),
    l2GenesisHash: hexField(chain, "genesis.l2.hash", 32),
    l2GenesisTime: intField(chain, "genesis.l2_time"),
    batcherAddress: hexField(chain, "genesis.system_config.batcherAddr", 20),
    scalar: hexField(chain, "genesis.system_config.scalar", 32),
    gasLimit: intField(chain, "genesis.system_config.gasLimit"),
    depositContractAddress: hexField(chain, "Addresses.OptimismPortalProxy", 20),
    systemConfigAddress: hexField(chain, "Addresses.SystemConfigProxy", 20),
  };
}

/** Every chain of the export, keyed by L2 chain id. */
export function chainsOfRegistry(registry: unknown): Map<bigint, unknown> {
  const chains = new Map<bigint, unknown>();
  const superchains = field(registry, "superchains");
  if (!Array.isArray(superchains))
    throw new SuperchainConfigError("superchains must be an array", { field: "superchains" });
  for (const superchain of superchains) {
    const list = field(superchain, "chains");
    if (!Array.isArray(list)) continue;
    for (const chain of list) chains.set(intField(chain, "l2_chain_id"), chain);
  }
  return chains;
}

/** The genesis config of `chainId` from the export. */
export function genesisConfigFromRegistry(registry: unknown, chainId: bigint): ChainGenesisConfig {
  const chain = chainsOfRegistry(registry).get(chainId);
  if (chain === undefined)
    throw new SuperchainConfigError(`chain ${chainId} is not in the registry`, { chainId });
  return genesisConfigOf(chain);
}
