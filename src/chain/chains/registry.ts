/**
 * The superchain registry export (shared/data/superchain-configs.json) reduced to the built-in chains' facts that
 * derivation and the enclave's config hash need. Pure: `generate.ts` reads the file and writes
 * `superchain.generated.ts`; the staleness test compares the two.
 */
import { ChainError } from "../errors.js";

/** L2 chain ids of the built-in chains, in the order the generated module lists them. */
export const BUILT_IN_CHAIN_IDS = [10, 8453, 11155420, 84532] as const;

/** One chain's facts as the generated module stores them (JSON values, exactly as in the registry). */
export interface SuperchainChainData {
  readonly name: string;
  /** The registry's superchain (`mainnet`, `sepolia`). */
  readonly superchain: string;
  readonly l1ChainId: number;
  readonly l2ChainId: number;
  readonly batchInboxAddress: string;
  readonly blockTime: number;
  readonly seqWindowSize: number;
  readonly maxSequencerDrift: number;
  /** `*_time` fields of `hardfork_configuration` (null ones left out). */
  readonly hardforks: Readonly<Record<string, number>>;
  readonly optimism: {
    readonly eip1559Elasticity: number;
    readonly eip1559Denominator: number;
    readonly eip1559DenominatorCanyon: number;
  };
  readonly genesis: {
    readonly l1: { readonly number: number; readonly hash: string };
    readonly l2: { readonly number: number; readonly hash: string };
    readonly l2Time: number;
    /** `genesis.system_config` with null fields left out. */
    readonly systemConfig: Readonly<Record<string, string | number>>;
  };
  /** `Addresses` with null entries left out. */
  readonly addresses: Readonly<Record<string, string>>;
}

/** The registry file lacks a chain or a field, or a field has the wrong type. */
export class SuperchainRegistryError extends ChainError {
  constructor(message: string) {
    super(message, "superchain-registry");
  }
}

function obj(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new SuperchainRegistryError(`${path} must be an object`);
  return value as Record<string, unknown>;
}

function int(value: unknown, path: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0)
    throw new SuperchainRegistryError(`${path} must be a non-negative integer`);
  return value;
}

function hex(value: unknown, path: string, bytes: number): string {
  if (typeof value !== "string" || !new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`).test(value))
    throw new SuperchainRegistryError(`${path} must be ${bytes} bytes of 0x hex`);
  return value.toLowerCase();
}

function withoutNulls<T>(record: Record<string, unknown>, path: string, check: (v: unknown, p: string) => T) {
  const out: Record<string, T> = {};
  for (const key of Object.keys(record).sort()) {
    const v = record[key];
    if (v !== null && v !== undefined) out[key] = check(v, `${path}.${key}`);
  }
  return out;
}

function chainData(superchain: Record<string, unknown>, chain: Record<string, unknown>): SuperchainChainData {
  const l2ChainId = int(chain.l2_chain_id, "l2_chain_id");
  const at = `chain ${l2ChainId}`;
  const config = obj(superchain.config, `superchain ${String(superchain.name)}.config`);
  const genesis = obj(chain.genesis, `${at}.genesis`);
  const l1 = obj(genesis.l1, `${at}.genesis.l1`);
  const l2 = obj(genesis.l2, `${at}.genesis.l2`);
  const optimism = obj(chain.optimism, `${at}.optimism`);
  const hardforks = withoutNulls(obj(chain.hardfork_configuration, `${at}.hardfork_configuration`), at, int);
  const systemConfig = withoutNulls(obj(genesis.system_config, `${at}.genesis.system_config`), at, (v, p) => {
    if (typeof v === "number") return int(v, p);
    if (typeof v === "string") return hex(v, p, v.length === 42 ? 20 : 32);
    throw new SuperchainRegistryError(`${p} must be a number or hex`);
  });
  return {
    name: String(chain.Name),
    superchain: String(superchain.name),
    l1ChainId: int(obj(config.l1, "config.l1").chain_id, `${at}: superchain l1.chain_id`),
    l2ChainId,
    batchInboxAddress: hex(chain.batch_inbox_address, `${at}.batch_inbox_address`, 20),
    blockTime: int(chain.block_time, `${at}.block_time`),
    seqWindowSize: int(chain.seq_window_size, `${at}.seq_window_size`),
    maxSequencerDrift: int(chain.max_sequencer_drift, `${at}.max_sequencer_drift`),
    hardforks,
    optimism: {
      eip1559Elasticity: int(optimism.eip1559Elasticity, `${at}.optimism.eip1559Elasticity`),
      eip1559Denominator: int(optimism.eip1559Denominator, `${at}.optimism.eip1559Denominator`),
      eip1559DenominatorCanyon: int(
        optimism.eip1559DenominatorCanyon,
        `${at}.optimism.eip1559DenominatorCanyon`,
      ),
    },
    genesis: {
      l1: {
        number: int(l1.number, `${at}.genesis.l1.number`),
        hash: hex(l1.hash, `${at}.genesis.l1.hash`, 32),
      },
      l2: {
        number: int(l2.number, `${at}.genesis.l2.number`),
        hash: hex(l2.hash, `${at}.genesis.l2.hash`, 32),
      },
      l2Time: int(genesis.l2_time, `${at}.genesis.l2_time`),
      systemConfig,
    },
    addresses: withoutNulls(obj(chain.Addresses, `${at}.Addresses`), at, (v, p) => hex(v, p, 20)),
  };
}

/** The built-in chains' data from the registry export, in `BUILT_IN_CHAIN_IDS` order. */
export function extractChainData(registry: unknown): SuperchainChainData[] {
  const superchains = obj(registry, "registry").superchains;
  if (!Array.isArray(superchains)) throw new SuperchainRegistryError("superchains must be an array");
  const found = new Map<number, SuperchainChainData>();
  for (const sc of superchains) {
    const superchain = obj(sc, "superchain");
    if (!Array.isArray(superchain.chains)) continue;
    for (const c of superchain.chains) {
      const chain = obj(c, "chain");
      const id = chain.l2_chain_id;
      if (typeof id === "number" && (BUILT_IN_CHAIN_IDS as readonly number[]).includes(id)) {
        if (found.has(id)) throw new SuperchainRegistryError(`chain ${id} appears twice in the registry`);
        found.set(id, chainData(superchain, chain));
      }
    }
  }
  return BUILT_IN_CHAIN_IDS.map((id) => {
    const data = found.get(id);
    if (data === undefined) throw new SuperchainRegistryError(`chain ${id} is not in the registry`);
    return data;
  });
}

/** The text of `superchain.generated.ts` for `data` (before prettier). */
export function renderGeneratedModule(data: readonly SuperchainChainData[]): string {
  return [
    "/**",
    " * Built-in chains' facts from the superchain registry export (shared/data/superchain-configs.json).",
    " * Generated by `npx tsx src/chain/chains/generate.ts <registry.json>`: do not edit by hand.",
    " */",
    'import type { SuperchainChainData } from "./registry.js";',
    "",
    `export const SUPERCHAIN_CHAIN_DATA: readonly SuperchainChainData[] = ${JSON.stringify(data, null, 2)};`,
    "",
  ].join("\n");
}
