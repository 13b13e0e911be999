import { RLP } from "@ethereumjs/rlp";
import { describe, expect, it } from "vitest";
import { BlockBuilder } from "./block-builder.js";
import {
  CREATE2_DEPLOYER_ADDRESS,
  CREATE2_DEPLOYER_CODE_HASH,
  create2DeployerCode,
} from "./create2-deployer.js";
import { FastTrie, type TrieNodeStore } from "./fast-trie.js";
import { buildGenesisState } from "./genesis.js";
import { type BlockHeader, EMPTY_OMMERS_HASH, EMPTY_TRIE_ROOT } from "./header.js";
import { toHex, toHexRaw } from "./hex.js";
import { keccak256 } from "./keccak.js";
import { PreimageStore } from "./preimage-store.js";
import { OpFork, type RollupConfig } from "./rollup-config.js";

const config: RollupConfig = {
  l2ChainId: 10n,
  blockTime: 2n,
  genesisL2Time: 0n,
  forkTimes: { [OpFork.Bedrock]: 0n, [OpFork.Regolith]: 0n, [OpFork.Canyon]: 1002n },
  eip1559Elasticity: 6n,
  eip1559Denominator: 50n,
  eip1559DenominatorCanyon: 250n,
};

async function blockAt(store: PreimageStore, stateRoot: Uint8Array, parentTime: bigint) {
  const parent: BlockHeader = {
    parentHash: new Uint8Array(32),
    ommersHash: EMPTY_OMMERS_HASH,
    beneficiary: new Uint8Array(20),
    stateRoot,
    transactionsRoot: EMPTY_TRIE_ROOT,
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: new Uint8Array(256),
    difficulty: 0n,
    number: 7n,
    gasLimit: 30_000_000n,
    gasUsed: 0n,
    timestamp: parentTime,
    extraData: new Uint8Array(0),
    mixHash: new Uint8Array(32),
    nonce: new Uint8Array(8),
    baseFeePerGas: 1000n,
  };
  const builder = await BlockBuilder.start({
    config,
    parent,
    source: store,
    attributes: {
      timestamp: parentTime + 2n,
      prevRandao: new Uint8Array(32),
      suggestedFeeRecipient: new Uint8Array(20),
      gasLimit: 30_000_000n,
    },
  });
  return builder.seal();
}

function codeHashAt(
  store: PreimageStore,
  nodes: Map<string, Uint8Array>,
  root: Uint8Array,
): string | undefined {
  const source: TrieNodeStore = {
    getNode: (h) => nodes.get(toHexRaw(h)) ?? store.getByKeccak256(h),
    putNode: () => {},
  };
  const rlp = new FastTrie(source).get(root, keccak256(CREATE2_DEPLOYER_ADDRESS));
  return rlp === undefined ? undefined : toHex((RLP.decode(rlp) as Uint8Array[])[3]!);
}

describe("Canyon activation block", () => {
  it("deploys the create2 deployer exactly at the Canyon time", async () => {
    expect(toHex(keccak256(create2DeployerCode()))).toBe(CREATE2_DEPLOYER_CODE_HASH);
    const store = new PreimageStore();
    const root = buildGenesisState(store, new Map([[new Uint8Array(20).fill(1), { balance: 1n }]]));

    const before = await blockAt(store, root, 998n); // block at 1000: Regolith
    expect(codeHashAt(store, before.newNodes, before.stateRoot)).toBeUndefined();
    expect(before.header.withdrawalsRoot).toBeUndefined();

    const activation = await blockAt(store, root, 1000n); // block at 1002: first Canyon block
    expect(codeHashAt(store, activation.newNodes, activation.stateRoot)).toBe(CREATE2_DEPLOYER_CODE_HASH);
    expect(activation.newNodes.get(CREATE2_DEPLOYER_CODE_HASH.slice(2))).toEqual(create2DeployerCode());
    expect(activation.header.withdrawalsRoot).toEqual(EMPTY_TRIE_ROOT);

    const after = await blockAt(store, root, 1002n); // block at 1004: Canyon, not the activation block
    expect(codeHashAt(store, after.newNodes, after.stateRoot)).toBeUndefined();
  });
});
