/**
 * Predeploys of the dev chain's genesis. Bytecode comes from @eth-optimism/contracts-bedrock 0.17.3
 * (Fjord GasPriceOracle, fee vaults, L2ToL1MessagePasser, WETH9), our own L1Block (Isthmus and Jovian
 * formats) and Isthmus/Jovian GasPriceOracle front (predeploys.artifact.json), and the EIP-4788 / EIP-2935 system
 * contracts (bytecode fixed by the EIPs). Implementations sit directly at the predeploy addresses
 * (no proxies: the dev chain has no upgrades).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fromHex } from "../hex.js";
import { ChainError, type ChainErrorOptions } from "../errors.js";

const require = createRequire(import.meta.url);

export interface GenesisAccount {
  address: Uint8Array;
  balance: bigint;
  nonce: bigint;
  code?: Uint8Array;
  /** 32-byte slot -> value (unpadded bytes allowed). */
  storage?: [Uint8Array, Uint8Array][];
}

export const PREDEPLOY = {
  L2ToL1MessagePasser: "0x4200000000000000000000000000000000000016",
  WETH9: "0x4200000000000000000000000000000000000006",
  GasPriceOracle: "0x420000000000000000000000000000000000000F",
  /** The Fjord GasPriceOracle our Isthmus GasPriceOracle delegates to. */
  GasPriceOracleFjordImplementation: "0xc0d3C0d3C0d3c0D3C0D3C0d3C0d3C0D3C0D3000f",
  L1Block: "0x4200000000000000000000000000000000000015",
  SequencerFeeVault: "0x4200000000000000000000000000000000000011",
  BaseFeeVault: "0x4200000000000000000000000000000000000019",
  L1FeeVault: "0x420000000000000000000000000000000000001a",
  OperatorFeeVault: "0x420000000000000000000000000000000000001b",
  BeaconRoots: "0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02",
  HistoryStorage: "0x0000F90827F1C53a10cb7A02335B175320002935",
} as const;

/** EIP-4788 beacon roots contract runtime code. */
export const BEACON_ROOTS_CODE =
  "0x3373fffffffffffffffffffffffffffffffffffffffe14604d57602036146024575f5ffd5b5f35801560495762001fff810690815414603c575f5ffd5b62001fff01545f5260205ff35b5f5ffd5b62001fff42064281555f359062001fff015500";
/** EIP-2935 history storage contract runtime code (final, Prague). */
export const HISTORY_STORAGE_CODE =
  "0x3373fffffffffffffffffffffffffffffffffffffffe14604657602036036042575f35600143038111604257611fff81430311604257611fff9006545f5260205ff35b5f5ffd5b5f35611fff60014303065500";

interface ForgeArtifact {
  deployedBytecode: {
    object: string;
    immutableReferences?: Record<string, { start: number; length: number }[]>;
  };
  ast: unknown;
}

export class PredeployArtifactError extends ChainError {
  constructor(message: string, options?: ChainErrorOptions) {
    super(message, "predeploy-artifact", options);
  }
}

function forgeArtifact(name: string): ForgeArtifact {
  return require(`@eth-optimism/contracts-bedrock/forge-artifacts/${name}.sol/${name}.json`) as ForgeArtifact;
}

/** AST ids of the named state variables (to resolve immutable references). */
function immutableIds(ast: unknown, names: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (n: unknown): void => {
    if (n === null || typeof n !== "object") return;
    const node = n as { nodeType?: string; name?: string; id?: number; mutability?: string };
    if (
      node.nodeType === "VariableDeclaration" &&
      node.mutability === "immutable" &&
      node.name &&
      names.includes(node.name)
    ) {
      out.set(node.name, node.id!);
    }
    for (const v of Object.values(n)) walk(v);
  };
  walk(ast);
  return out;
}

/** Runtime code with immutables filled in (each value a 32-byte word). */
function linkImmutables(name: string, astSource: string, values: Record<string, Uint8Array>): Uint8Array {
  const artifact = forgeArtifact(name);
  const code = fromHex(artifact.deployedBytecode.object);
  const ids = immutableIds(forgeArtifact(astSource).ast, Object.keys(values));
  const refs = artifact.deployedBytecode.immutableReferences ?? {};
  for (const [varName, value] of Object.entries(values)) {
    const id = ids.get(varName);
    const places = id === undefined ? undefined : refs[String(id)];
    if (places === undefined) throw new PredeployArtifactError(`${name}: no immutable ${varName}`);
    for (const p of places) code.set(value, p.start);
  }
  if (Object.keys(refs).length !== Object.keys(values).length) {
    throw new PredeployArtifactError(
      `${name}: ${Object.keys(refs).length} immutables, ${Object.keys(values).length} given`,
    );
  }
  return code;
}

function word(value: bigint | Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  if (typeof value === "bigint") {
    let v = value;
    for (let i = 31; i >= 0 && v > 0n; i--) {
      out[i] = Number(v & 0xffn);
      v >>= 8n;
    }
  } else {
    out.set(value, 32 - value.length);
  }
  return out;
}

/** Runtime code of one of our own predeploys (predeploys.artifact.json). */
function ownCode(name: "L1Block" | "GasPriceOracle"): Uint8Array {
  const url = new URL("./predeploys.artifact.json", import.meta.url);
  const artifact = JSON.parse(readFileSync(url, "utf8")) as { deployedBytecode: Record<string, string> };
  const code = artifact.deployedBytecode[name];
  if (code === undefined) throw new PredeployArtifactError(`predeploys.artifact.json has no ${name}`);
  return fromHex(code);
}

/**
 * The predeploy accounts; fee vaults pay out to `vaultRecipient` on L2 (10 ETH minimum). `jovian`: the chain
 * has Jovian at genesis (the GasPriceOracle's isJovian flag, hence its operator fee formula).
 */
export function predeployAccounts(vaultRecipient: Uint8Array, jovian = false): GenesisAccount[] {
  const vault = (name: string): Uint8Array =>
    linkImmutables(name, "FeeVault", {
      RECIPIENT: word(vaultRecipient),
      MIN_WITHDRAWAL_AMOUNT: word(10n ** 19n),
      WITHDRAWAL_NETWORK: word(1n), // L2
    });
  const account = (
    address: string,
    code: Uint8Array,
    storage?: [Uint8Array, Uint8Array][],
    nonce = 0n,
  ): GenesisAccount => ({
    address: fromHex(address),
    balance: 0n,
    nonce,
    code,
    ...(storage === undefined ? {} : { storage }),
  });
  return [
    account(
      PREDEPLOY.L2ToL1MessagePasser,
      fromHex(forgeArtifact("L2ToL1MessagePasser").deployedBytecode.object),
    ),
    account(PREDEPLOY.WETH9, fromHex(forgeArtifact("WETH98").deployedBytecode.object)),
    // GasPriceOracle: our Isthmus/Jovian front (operator fee) delegating to the published Fjord
    // implementation; slot 0 packs isEcotone (offset 0), isFjord (1), isIsthmus (2), isJovian (3).
    account(PREDEPLOY.GasPriceOracle, ownCode("GasPriceOracle"), [
      [word(0n), jovian ? Uint8Array.of(0x01, 0x01, 0x01, 0x01) : Uint8Array.of(0x01, 0x01, 0x01)],
    ]),
    account(
      PREDEPLOY.GasPriceOracleFjordImplementation,
      fromHex(forgeArtifact("GasPriceOracle").deployedBytecode.object),
    ),
    account(PREDEPLOY.L1Block, ownCode("L1Block")),
    account(PREDEPLOY.SequencerFeeVault, vault("SequencerFeeVault")),
    account(PREDEPLOY.BaseFeeVault, vault("BaseFeeVault")),
    account(PREDEPLOY.L1FeeVault, vault("L1FeeVault")),
    // No OperatorFeeVault artifact in 0.17.3: the same FeeVault logic as the base fee vault.
    account(PREDEPLOY.OperatorFeeVault, vault("BaseFeeVault")),
    account(PREDEPLOY.BeaconRoots, fromHex(BEACON_ROOTS_CODE), undefined, 1n),
    account(PREDEPLOY.HistoryStorage, fromHex(HISTORY_STORAGE_CODE), undefined, 1n),
  ];
}
