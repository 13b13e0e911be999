/**
 * The dev chain's genesis: predeploys plus prefunded dev accounts, committed into a real state
 * trie by the execution engine's state manager, and the genesis header over that state root.
 */
import { Account, Address } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { encodeOpExtraData, resolveEip1559Params } from "../base-fee.js";
import { EMPTY_REQUESTS_HASH } from "../block-builder.js";
import { commonFor } from "../evm-setup.js";
import { type BlockHeader, EMPTY_OMMERS_HASH, EMPTY_TRIE_ROOT, encodeHeader, headerHash } from "../header.js";
import { fromHex } from "../hex.js";
import { PreimageStore } from "../preimage-store.js";
import { OpFork, type RollupConfig } from "../rollup-config.js";
import { BlockStateManager } from "../state.js";
import { PreimageTrieDB } from "../trie-db.js";
import { DEV_GAS_LIMIT, DEV_GENESIS_BASE_FEE } from "./config.js";
import { DEV_ACCOUNT_BALANCE, type DevAccount } from "./dev-accounts.js";
import { PREDEPLOY, type GenesisAccount, predeployAccounts } from "./predeploys.js";

export interface Genesis {
  header: BlockHeader;
  hash: Uint8Array;
  /** Trie nodes and code of the genesis state, keyed by unprefixed hex keccak256. */
  nodes: Map<string, Uint8Array>;
}

export function genesisAccounts(devs: readonly DevAccount[]): GenesisAccount[] {
  return [
    ...predeployAccounts(fromHex(devs[0]?.address ?? PREDEPLOY.SequencerFeeVault)),
    ...devs.map((d) => ({ address: fromHex(d.address), balance: DEV_ACCOUNT_BALANCE, nonce: 0n })),
  ];
}

export async function buildGenesis(
  config: RollupConfig,
  accounts: readonly GenesisAccount[],
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
    gasLimit: DEV_GAS_LIMIT,
    gasUsed: 0n,
    timestamp: config.genesisL2Time,
    extraData: encodeOpExtraData(resolveEip1559Params(config, new Uint8Array(8))),
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
