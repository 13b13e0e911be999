/**
 * The Isthmus and Jovian activation blocks, as the attributes builder makes them, executed by src/chain's block
 * builder on an empty state: each upgrade deposit deploys the contract kona expects, at the address it expects,
 * with the code hash it expects (op-rs/kona @ cdb9be24, crates/protocol/hardforks/src/{isthmus,jovian}.rs,
 * `check_deployment_code` tests).
 */
import { RLP } from "@ethereumjs/rlp";
import { describe, expect, it } from "vitest";
import {
  BlockBuilder,
  type BlockHeader,
  EMPTY_OMMERS_HASH,
  EMPTY_REQUESTS_HASH,
  EMPTY_TRIE_ROOT,
  FastTrie,
  L2_TO_L1_MESSAGE_PASSER,
  OpFork,
  forksActiveFrom,
  PreimageStore,
  type RollupConfig,
  buildGenesisState,
  builtInChain,
  fromHex,
  keccak256,
  toHex,
} from "../../chain/index.js";
import { buildPayloadAttributes } from "./builder.js";
import { systemConfigFromGenesis } from "./system-config.js";
import { createAddress } from "./upgrades.js";

const ISTHMUS = 1002n;
const JOVIAN = 2002n;
const base = builtInChain(8453n).rollupConfig;
const config: RollupConfig = {
  ...base,
  genesisL2Time: 0n,
  forkTimes: {
    ...forksActiveFrom(OpFork.Holocene),
    [OpFork.Isthmus]: ISTHMUS,
    [OpFork.Jovian]: JOVIAN,
  },
};

/** Executes the activation block at `timestamp` and returns the code hash of each address in `accounts`. */
async function codeHashesAfter(timestamp: bigint, accounts: Uint8Array[]): Promise<string[]> {
  const store = new PreimageStore();
  const stateRoot = buildGenesisState(
    store,
    new Map([[fromHex(L2_TO_L1_MESSAGE_PASSER.toString()), { storage: [[0n, 1n]] as [bigint, bigint][] }]]),
  );
  const parentIsIsthmus = timestamp - 2n >= ISTHMUS;
  const parent: BlockHeader = {
    parentHash: new Uint8Array(32),
    ommersHash: EMPTY_OMMERS_HASH,
    beneficiary: fromHex("0x4200000000000000000000000000000000000011"),
    stateRoot,
    transactionsRoot: EMPTY_TRIE_ROOT,
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: new Uint8Array(256),
    difficulty: 0n,
    number: 100n,
    gasLimit: 30_000_000n,
    gasUsed: 0n,
    timestamp: timestamp - 2n,
    extraData: fromHex("00000000fa00000006"),
    mixHash: new Uint8Array(32),
    nonce: new Uint8Array(8),
    baseFeePerGas: 1_000_000n,
    withdrawalsRoot: EMPTY_TRIE_ROOT,
    blobGasUsed: 0n,
    excessBlobGas: 0n,
    parentBeaconBlockRoot: new Uint8Array(32),
    ...(parentIsIsthmus ? { requestsHash: EMPTY_REQUESTS_HASH } : {}),
  };
  const attributes = buildPayloadAttributes({
    rollupConfig: config,
    systemConfig: {
      ...systemConfigFromGenesis(base.genesis!.systemConfig),
      eip1559Denominator: 250,
      eip1559Elasticity: 6,
    },
    l2Parent: {
      hash: new Uint8Array(32).fill(1),
      number: parent.number,
      timestamp: parent.timestamp,
      l1OriginNumber: 10n,
      l1OriginHash: new Uint8Array(32).fill(2),
      sequenceNumber: 1n,
    },
    l1Origin: {
      number: 10n,
      hash: new Uint8Array(32).fill(2),
      timestamp: timestamp - 100n,
      baseFee: 7n,
      blobBaseFee: 1n,
      mixHash: new Uint8Array(32).fill(3),
      parentBeaconBlockRoot: new Uint8Array(32).fill(4),
    },
    batchTransactions: [],
  });
  const builder = await BlockBuilder.start({ config, parent, attributes, source: store });
  for (const tx of attributes.transactions) {
    const result = await builder.addTransaction(tx);
    expect(result.ok, `deposit ${attributes.transactions.indexOf(tx)}`).toBe(true);
  }
  const sealed = await builder.seal();
  const nodes = {
    getNode: (hash: Uint8Array) => sealed.newNodes.get(toHex(hash).slice(2)) ?? store.getByKeccak256(hash),
    putNode: () => undefined,
  };
  const trie = new FastTrie(nodes);
  return accounts.map((address) => {
    const account = trie.get(sealed.stateRoot, keccak256(address));
    if (account === undefined) return "missing";
    return toHex((RLP.decode(account) as Uint8Array[])[3]!);
  });
}

describe("upgrade deposits executed", () => {
  it("Isthmus deploys kona's L1Block, GasPriceOracle and OperatorFeeVault", async () => {
    const deployers = ["03", "04", "05"].map((n) =>
      createAddress(fromHex(`0x42100000000000000000000000000000000000${n}`)),
    );
    expect(await codeHashesAfter(ISTHMUS, deployers)).toEqual([
      "0x8e3fe7a416d3e5f3b7be74ddd4e7e58e516fa3f80b67c6d930e3cd7297da4a4b",
      "0x4d195a9d7caf9fb6d4beaf80de252c626c853afd5868c4f4f8d19c9d301c2679",
      "0x57dc55c9c09ca456fa728f253fe7b895d3e6aae0706104935fe87c7721001971",
    ]);
  });

  it("Jovian deploys kona's L1Block and GasPriceOracle", async () => {
    const deployers = ["06", "07"].map((n) =>
      createAddress(fromHex(`0x42100000000000000000000000000000000000${n}`)),
    );
    expect(deployers.map(toHex)).toEqual([
      "0x3ba4007f5c922fbb33c454b41ea7a1f11e83df2c",
      "0x4f1db3c6abd250ba86e0928471a8f7db3afd88f1",
    ]);
    expect(await codeHashesAfter(JOVIAN, deployers)).toEqual([
      "0x5f885ca815d2cf27a203123e50b8ae204fdca910b6995d90b2d7700cbb9240d1",
      "0xe9fc7c96c4db0d6078e3d359d7e8c982c350a513cb2c31121adf5e1e8a446614",
    ]);
  });
});
