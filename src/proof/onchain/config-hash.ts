/**
 * The per-chain config hash committed into every journal (docs/decisions.md "Config hash"): keccak256 of a
 * 212-byte big-endian encoding of the chain's genesis configuration.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import type { ChainGenesisFacts } from "../../chain/index.js";
import { OnchainError } from "./errors.js";

/**
 * The genesis facts the config hash commits to: src/chain's ChainGenesisFacts (chain id, genesis.l1.hash,
 * genesis.l2.hash, genesis.l2_time, the genesis system config's batcherAddr, scalar and gasLimit, and the
 * OptimismPortalProxy and SystemConfigProxy addresses).
 */
export type ChainGenesisConfig = ChainGenesisFacts;

/** Version of the encoding (the first u64). */
export const CONFIG_HASH_VERSION = 0n;
export const CONFIG_ENCODING_LENGTH = 212;

/** A config value that does not fit its slot in the encoding. */
export class ConfigEncodingError extends OnchainError<"config-encoding"> {
  override readonly name = "ConfigEncodingError";
  constructor(message: string, details: { readonly field: string }) {
    super(message, { kind: "config-encoding", details });
  }
}

class Packer {
  readonly out = new Uint8Array(CONFIG_ENCODING_LENGTH);
  private readonly view = new DataView(this.out.buffer);
  at = 0;

  bytes(value: Uint8Array, length: number, what: string): void {
    if (value.length !== length)
      throw new ConfigEncodingError(`${what} must be ${length} bytes, got ${value.length}`, { field: what });
    this.out.set(value, this.at);
    this.at += length;
  }

  u64(value: bigint, what: string): void {
    if (value < 0n || value >= 1n << 64n)
      throw new ConfigEncodingError(`${what} must be a u64, got ${value}`, { field: what });
    this.view.setBigUint64(this.at, value, false);
    this.at += 8;
  }

  u256(value: bigint, what: string): void {
    if (value < 0n || value >= 1n << 256n)
      throw new ConfigEncodingError(`${what} must fit 32 bytes, got ${value}`, { field: what });
    for (let i = 31; i >= 0; i--) this.out[this.at + 31 - i] = Number((value >> BigInt(8 * i)) & 0xffn);
    this.at += 32;
  }
}

/**
 * version u64 ‖ chainId (32) ‖ l1 genesis hash (32) ‖ l2 genesis hash (32) ‖ l2 genesis time u64 ‖
 * batcher (20) ‖ scalar (32) ‖ gasLimit u64 ‖ deposit contract (20) ‖ system config (20) = 212 bytes.
 */
export function encodeChainConfig(config: ChainGenesisConfig): Uint8Array {
  const p = new Packer();
  p.u64(CONFIG_HASH_VERSION, "version");
  p.u256(config.chainId, "chainId");
  p.bytes(config.l1GenesisHash, 32, "l1GenesisHash");
  p.bytes(config.l2GenesisHash, 32, "l2GenesisHash");
  p.u64(config.l2GenesisTime, "l2GenesisTime");
  p.bytes(config.batcherAddress, 20, "batcherAddress");
  p.bytes(config.scalar, 32, "scalar");
  p.u64(config.gasLimit, "gasLimit");
  p.bytes(config.depositContractAddress, 20, "depositContractAddress");
  p.bytes(config.systemConfigAddress, 20, "systemConfigAddress");
  if (p.at !== CONFIG_ENCODING_LENGTH) throw new Error(`config encoding is ${p.at} bytes`);
  return p.out;
}

/** keccak256 of the 212-byte encoding. */
export function computeConfigHash(config: ChainGenesisConfig): Uint8Array {
  return keccak_256(encodeChainConfig(config));
}
