/**
 * The dev chain's genesis: predeploys plus prefunded dev accounts, committed into a real state
 * trie by the execution engine's state manager, and the genesis header over that state root.
 *
 * Two chains use it: the standalone dev chain (`buildGenesis` with the fixed time and defaults of
 * config.ts) and the L1-backed devnet chain, whose genesis is described by a rollup config written at
 * first start (`buildRollupGenesis`: time, gas limit, EIP-1559 parameters and min base fee from the
 * config's genesis system config, Jovian's extraData and GasPriceOracle flag when Jovian is active).
 */
import { Account, Address } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { encodeOpExtraData, resolveEip1559Params } from "../base-fee.js";
import { EMPTY_REQUESTS_HASH } from "../block-builder.js";
import { commonFor } from "../evm-setup.js";
import { type BlockHeader, EMPTY_OMMERS_HASH, EMPTY_TRIE_ROOT, encodeHeader, headerHash } from "../header.js";
import { fromHex } from "../hex.js";
import { PreimageStore } from "../preimage-store.js";
import { InvalidRollupConfigError, OpFork, type RollupConfig, isForkActive } from "../rollup-config.js";
import { BlockStateManager } from "../state.js";
import { PreimageTrieDB } from "../trie-db.js";
import { DEV_GAS_LIMIT, DEV_GENESIS_BASE_FEE } from "./config.js";
import { DEV_ACCOUNT_BALANCE, type DevAccount, devAccounts } from "./dev-accounts.js";
import { PREDEPLOY, type GenesisAccount, predeployAccounts } from "./predeploys.js";

export interface Genesis {
  header: BlockHeader;
  hash: Uint8Array;
  /** Trie nodes and code of the genesis state, keyed by unprefixed hex keccak256. */
  nodes: Map<string, Uint8Array>;
}

/** Predeploys and the prefunded `devs`; `jovian`: the chain has Jovian at genesis (GasPriceOracle flag). */
export function genesisAccounts(devs: readonly DevAccount[], jovian = false): GenesisAccount[] {
  return [
    ...predeployAccounts(fromHex(devs[0]?.address ?? PREDEPLOY.SequencerFeeVault), jovian),
    ...devs.map((d) => ({ address: fromHex(d.address), balance: DEV_ACCOUNT_BALANCE, nonce: 0n })),
  ];
}

/** Header fields of a genesis that a rollup config's genesis system config decides. */
export interface GenesisHeaderOptions {
  /** Default DEV_GAS_LIMIT. */
  gasLimit?: bigint;
  /** Holocene `eip1559Params` (denominator ‖ elasticity, u32 each); all zero (default): the chain's Canyon values. */
  eip1559Params?: Uint8Array;
  /** Jovian minimum base fee, in the extraData when Jovian is active at genesis; default 0. */
  minBaseFee?: bigint;
}

export async function buildGenesis(
  config: RollupConfig,
  accounts: readonly GenesisAccount[],
  options: GenesisHeaderOptions = {},
): Promise<Genesis> {
  const db = new PreimageTrieDB(new PreimageStore());
  const state = BlockStateManager.create(db, EMPTY_TRIE_ROOT, commonFor(config.l2ChainId, OpFork.Isthmus));
  for (const a of accounts) {
    const address = new Address(a.address);
    await state.putAccount(address, new Account(a.nonce, a.balance));
    if (a.code !== undefined) await state.putCode(address, a.code);
    for (const [slot, value] of a.storage ?? []) await state.putStorage(address, slot, value);
  }
  const stateRoot = await state.getStateRoot();
  const messagePasser = await state.getAccount(new Address(fromHex(PREDEPLOY.L2ToL1MessagePasser)));
  const eip1559 = resolveEip1559Params(config, options.eip1559Params ?? new Uint8Array(8));
  if (isForkActive(config, OpFork.Jovian, config.genesisL2Time))
    eip1559.minBaseFee = options.minBaseFee ?? 0n;
  const header: BlockHeader = {
    parentHash: new Uint8Array(32),
    ommersHash: EMPTY_OMMERS_HASH,
    beneficiary: fromHex(PREDEPLOY.SequencerFeeVault),
    stateRoot,
    transactionsRoot: EMPTY_TRIE_ROOT,
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: new Uint8Array(256),
    difficulty: 0n,
    number: 0n,
    gasLimit: options.gasLimit ?? DEV_GAS_LIMIT,
    gasUsed: 0n,
    timestamp: config.genesisL2Time,
    extraData: encodeOpExtraData(eip1559),
    mixHash: new Uint8Array(32),
    nonce: new Uint8Array(8),
    baseFeePerGas: DEV_GENESIS_BASE_FEE,
    withdrawalsRoot: messagePasser?.storageRoot ?? EMPTY_TRIE_ROOT,
    blobGasUsed: 0n,
    excessBlobGas: 0n,
    parentBeaconBlockRoot: new Uint8Array(32),
    requestsHash: EMPTY_REQUESTS_HASH,
  };
  const nodes = new Map(db.written);
  const rlp = encodeHeader(header);
  nodes.set(Buffer.from(keccak_256(rlp)).toString("hex"), rlp);
  return { header, hash: headerHash(header), nodes };
}

/**
 * The L2 genesis of the dev chain a rollup config describes (the L1-backed devnet, op-node's rollup.json
 * format): predeploys plus the first `devAccountCount` dev accounts, at `config.genesisL2Time`, with the gas
 * limit, EIP-1559 parameters and min base fee of `config.genesis.systemConfig`. The same inputs give the same
 * hash on every machine: the devnet calls this to write `genesis.l2.hash` into rollup.json, the node to check
 * it. InvalidRollupConfigError when the config has no genesis section.
 */
export async function buildRollupGenesis(config: RollupConfig, devAccountCount: number): Promise<Genesis> {
  const sc = config.genesis?.systemConfig;
  if (sc === undefined) throw new InvalidRollupConfigError("the rollup config has no genesis system config");
  const params = new Uint8Array(8);
  const view = new DataView(params.buffer);
  view.setUint32(0, Number(sc.eip1559Denominator ?? 0n));
  view.setUint32(4, Number(sc.eip1559Elasticity ?? 0n));
  const jovian = isForkActive(config, OpFork.Jovian, config.genesisL2Time);
  return buildGenesis(config, genesisAccounts(devAccounts(devAccountCount), jovian), {
    gasLimit: sc.gasLimit,
    eip1559Params: params,
    minBaseFee: sc.minBaseFee ?? 0n,
  });
}
