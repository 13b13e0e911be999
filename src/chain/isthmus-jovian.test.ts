/**
 * Isthmus rules on a synthetic pre-state (no real Isthmus fixture exists): deposit with mint,
 * EIP-1559 transfer paying base fee, priority fee, L1 data fee and operator fee into their vaults,
 * a self-sponsored EIP-7702 delegation, withdrawalsRoot = L2ToL1MessagePasser storage root,
 * requestsHash = sha256(""), Holocene extraData.
 */
import { RLP } from "@ethereumjs/rlp";
import { createEOACode7702Tx, createFeeMarket1559Tx } from "@ethereumjs/tx";
import { eoaCode7702SignAuthorization, privateToAddress } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { describe, expect, it } from "vitest";
import { BlockBuilder, EMPTY_REQUESTS_HASH, L2_TO_L1_MESSAGE_PASSER } from "./block-builder.js";
import { encodeOpExtraData } from "./base-fee.js";
import { encodeDepositTransaction } from "./deposit-tx.js";
import { fastLzCompressedLength } from "./fastlz.js";
import { commonFor } from "./evm-setup.js";
import { FastTrie, type TrieNodeStore } from "./fast-trie.js";
import { buildGenesisState } from "./genesis.js";
import { type BlockHeader, EMPTY_OMMERS_HASH, EMPTY_TRIE_ROOT } from "./header.js";
import { bigIntToWord, bytesToBigInt, fromHex, toHex, toHexRaw } from "./hex.js";
import { L1_BLOCK_ADDRESS, daFootprint, decodeL1FeeParams, l1DataFee } from "./l1-fee.js";
import { PreimageStore } from "./preimage-store.js";
import { OpFork, type RollupConfig } from "./rollup-config.js";
import { BASE_FEE_VAULT, L1_FEE_VAULT, OPERATOR_FEE_VAULT } from "./tx-processor.js";

const ETH = 10n ** 18n;
const GWEI = 10n ** 9n;
const CHAIN_ID = 11155420n;

class StoreNodes implements TrieNodeStore {
  constructor(
    private readonly store: PreimageStore,
    private readonly extra: Map<string, Uint8Array> = new Map(),
  ) {}
  getNode(hash: Uint8Array): Uint8Array {
    return this.extra.get(toHexRaw(hash)) ?? this.store.getByKeccak256(hash);
  }
  putNode(hash: Uint8Array, node: Uint8Array): void {
    this.store.putKeccak256Trusted(hash, node);
  }
}

function buildState(
  store: PreimageStore,
  accounts: Map<string, { balance?: bigint; storage?: [bigint, bigint][] }>,
): Uint8Array {
  return buildGenesisState(store, new Map([...accounts].map(([address, a]) => [fromHex(address), a])));
}

function readAccount(
  store: PreimageStore,
  newNodes: Map<string, Uint8Array>,
  root: Uint8Array,
  address: Uint8Array,
) {
  const rlp = new FastTrie(new StoreNodes(store, newNodes)).get(root, keccak_256(address));
  if (rlp === undefined) return undefined;
  const [nonce, balance, storageRoot, codeHash] = RLP.decode(rlp) as Uint8Array[];
  return {
    nonce: bytesToBigInt(nonce!),
    balance: bytesToBigInt(balance!),
    storageRoot: storageRoot!,
    codeHash: codeHash!,
  };
}

interface ChainSetup {
  fork: OpFork;
  parentExtraData: Uint8Array;
  minBaseFee?: bigint;
}

async function startBlock(opts: ChainSetup) {
  const senderKey = fromHex(`0x${"11".repeat(32)}`);
  const delegatorKey = fromHex(`0x${"22".repeat(32)}`);
  const sender = privateToAddress(senderKey);
  const delegator = privateToAddress(delegatorKey);
  const depositor = fromHex("0x00000000000000000000000000000000000000d1");
  const depositTo = fromHex("0x00000000000000000000000000000000000000d2");
  const recipient = fromHex("0x00000000000000000000000000000000000000c3");
  const delegate = fromHex("0x00000000000000000000000000000000000000de");
  const coinbase = fromHex("0x4200000000000000000000000000000000000011");

  const scalars = (1368n << 96n) | (810_949n << 64n); // baseFeeScalar @ bytes 16..20, blobBaseFeeScalar @ 20..24
  const operatorParams = (2_000_000n << 64n) | 1000n; // scalar 2.0 @ bytes 20..24, constant 1000 @ 24..32
  const store = new PreimageStore();
  const stateRoot = buildState(
    store,
    new Map<string, { balance?: bigint; storage?: [bigint, bigint][] }>([
      [toHex(sender), { balance: 10n * ETH }],
      [toHex(delegator), { balance: ETH }],
      [
        L1_BLOCK_ADDRESS,
        {
          storage: [
            [1n, 2n * GWEI],
            [3n, scalars],
            [7n, 1n],
            [8n, operatorParams],
          ],
        },
      ],
      [L2_TO_L1_MESSAGE_PASSER.toString(), { storage: [[0n, 5n]] }],
    ]),
  );
  const config: RollupConfig = {
    l2ChainId: CHAIN_ID,
    blockTime: 2n,
    genesisL2Time: 0n,
    forkTimes: {
      [OpFork.Bedrock]: 0n,
      [OpFork.Regolith]: 0n,
      [OpFork.Canyon]: 0n,
      [OpFork.Delta]: 0n,
      [OpFork.Ecotone]: 0n,
      [OpFork.Fjord]: 0n,
      [OpFork.Granite]: 0n,
      [OpFork.Holocene]: 0n,
      [OpFork.Isthmus]: 0n,
      ...(opts.fork >= OpFork.Jovian ? { [OpFork.Jovian]: 0n } : {}),
    },
    eip1559Elasticity: 6n,
    eip1559Denominator: 50n,
    eip1559DenominatorCanyon: 250n,
  };
  const parent: BlockHeader = {
    parentHash: new Uint8Array(32),
    ommersHash: EMPTY_OMMERS_HASH,
    beneficiary: coinbase,
    stateRoot,
    transactionsRoot: EMPTY_TRIE_ROOT,
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: new Uint8Array(256),
    difficulty: 0n,
    number: 100n,
    gasLimit: 30_000_000n,
    gasUsed: 0n,
    timestamp: 1000n,
    extraData: opts.parentExtraData,
    mixHash: new Uint8Array(32),
    nonce: new Uint8Array(8),
    baseFeePerGas: GWEI,
    withdrawalsRoot: EMPTY_TRIE_ROOT,
    blobGasUsed: 0n,
    excessBlobGas: 0n,
    parentBeaconBlockRoot: new Uint8Array(32),
    requestsHash: EMPTY_REQUESTS_HASH,
  };
  const builder = await BlockBuilder.start({
    config,
    parent,
    source: store,
    attributes: {
      timestamp: 1002n,
      prevRandao: new Uint8Array(32).fill(9),
      suggestedFeeRecipient: coinbase,
      parentBeaconBlockRoot: new Uint8Array(32).fill(8),
      gasLimit: 30_000_000n,
      eip1559Params: fromHex("0x000000fa00000006"),
      ...(opts.minBaseFee !== undefined ? { minBaseFee: opts.minBaseFee } : {}),
    },
  });
  return {
    builder,
    store,
    senderKey,
    delegatorKey,
    sender,
    delegator,
    depositor,
    depositTo,
    recipient,
    delegate,
    coinbase,
    scalars,
    operatorParams,
  };
}

describe("Isthmus block building", () => {
  it("fees, vaults, EIP-7702 and the Isthmus header fields", async () => {
    const {
      builder,
      store,
      senderKey,
      delegatorKey,
      sender,
      delegator,
      depositor,
      depositTo,
      recipient,
      delegate,
      coinbase,
      scalars,
      operatorParams,
    } = await startBlock({ fork: OpFork.Isthmus, parentExtraData: fromHex("0x00000000fa00000006") });
    // gasUsed 0 of target 5M with denominator 250: 1 gwei - 1 gwei/250
    expect(builder.baseFee).toBe(996_000_000n);
    expect(builder.fork).toBe(OpFork.Isthmus);

    const deposit = encodeDepositTransaction({
      sourceHash: new Uint8Array(32).fill(1),
      from: depositor,
      to: depositTo,
      mint: ETH,
      value: ETH / 2n,
      gasLimit: 100_000n,
      isSystemTx: false,
      data: new Uint8Array(0),
    });
    const r0 = await builder.addTransaction(deposit);
    expect(r0.ok).toBe(true);
    if (r0.ok) {
      expect(r0.details.gasUsed).toBe(21_000n);
      expect(r0.receipt.depositNonce).toBe(0n);
      expect(r0.receipt.depositReceiptVersion).toBe(1n);
    }

    const common = commonFor(CHAIN_ID, OpFork.Isthmus);
    const transfer = createFeeMarket1559Tx(
      {
        chainId: CHAIN_ID,
        nonce: 0n,
        maxFeePerGas: 2n * GWEI,
        maxPriorityFeePerGas: GWEI,
        gasLimit: 21_000n,
        to: recipient,
        value: 1n,
      },
      { common },
    ).sign(senderKey);
    const transferRaw = transfer.serialize();
    const r1 = await builder.addTransaction(transferRaw);
    expect(r1.ok).toBe(true);
    const l1Params = decodeL1FeeParams({
      baseFee: bigIntToWord(2n * GWEI),
      scalars: bigIntToWord(scalars),
      overhead: new Uint8Array(0),
      scalar: new Uint8Array(0),
      blobBaseFee: bigIntToWord(1n),
      operatorFeeParams: bigIntToWord(operatorParams),
    });
    const l1Fee = l1DataFee(transferRaw, l1Params, OpFork.Isthmus);
    expect(l1Fee).toBeGreaterThan(0n);
    if (r1.ok) {
      expect(r1.details.gasUsed).toBe(21_000n);
      expect(r1.details.effectiveGasPrice).toBe(1_996_000_000n);
      expect(r1.details.l1Fee).toBe(l1Fee);
      expect(r1.details.operatorFee).toBe(43_000n); // 21000 · 2.0 + 1000
    }

    // Self-sponsored delegation: the authorization nonce is the sender's nonce after the tx bump.
    const auth = eoaCode7702SignAuthorization(
      { chainId: "0xaa37dc", address: toHex(delegate), nonce: "0x1" },
      delegatorKey,
    );
    const delegation = createEOACode7702Tx(
      {
        chainId: CHAIN_ID,
        nonce: 0n,
        maxFeePerGas: 2n * GWEI,
        maxPriorityFeePerGas: 0n,
        gasLimit: 100_000n,
        to: recipient,
        value: 0n,
        authorizationList: [auth],
      },
      { common },
    ).sign(delegatorKey);
    const r2 = await builder.addTransaction(delegation.serialize());
    expect(r2.ok).toBe(true);
    // 21000 + 25000 per authorization, refund min(12500 for an existing account, 46000/5)
    if (r2.ok) expect(r2.details.gasUsed).toBe(36_800n);

    const replay = await builder.addTransaction(transferRaw);
    expect(replay.ok).toBe(false);

    const block = await builder.seal();
    const h = block.header;
    expect(h.gasUsed).toBe(21_000n + 21_000n + 36_800n);
    expect(toHex(h.requestsHash!)).toBe("0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(toHex(h.extraData)).toBe("0x00000000fa00000006");
    expect(h.blobGasUsed).toBe(0n);
    const read = (a: Uint8Array) => readAccount(store, block.newNodes, block.stateRoot, a);
    const messagePasser = read(L2_TO_L1_MESSAGE_PASSER.bytes)!;
    expect(toHex(h.withdrawalsRoot!)).toBe(toHex(messagePasser.storageRoot));
    expect(toHex(block.messagePasserStorageRoot!)).toBe(toHex(messagePasser.storageRoot));
    expect(h.withdrawalsRoot).not.toEqual(EMPTY_TRIE_ROOT);

    expect(read(depositor)).toMatchObject({ nonce: 1n, balance: ETH / 2n });
    expect(read(depositTo)).toMatchObject({ balance: ETH / 2n });
    expect(read(recipient)).toMatchObject({ balance: 1n });
    expect(read(sender)).toMatchObject({
      nonce: 1n,
      balance: 10n * ETH - 1n - 21_000n * 1_996_000_000n - l1Fee - 43_000n,
    });
    expect(read(BASE_FEE_VAULT.bytes)!.balance).toBe((21_000n + 36_800n) * 996_000_000n);
    expect(read(L1_FEE_VAULT.bytes)!.balance).toBe(
      l1Fee + l1DataFee(delegation.serialize(), l1Params, OpFork.Isthmus),
    );
    // operator fee of the delegation tx: 36800 · 2.0 + 1000
    expect(read(OPERATOR_FEE_VAULT.bytes)!.balance).toBe(43_000n + 74_600n);
    expect(read(coinbase)!.balance).toBe(21_000n * GWEI);

    const delegated = read(delegator)!;
    expect(delegated.nonce).toBe(2n);
    const code = block.newNodes.get(toHexRaw(delegated.codeHash));
    expect(code && toHex(code)).toBe(`0xef0100${toHexRaw(delegate)}`);
    expect(block.outputRoot).toBeDefined();
  });
});

describe("Jovian block building", () => {
  it("minimum base fee, DA footprint in blobGasUsed, operator fee ×100", async () => {
    const { builder, store, senderKey, recipient, operatorParams, scalars } = await startBlock({
      fork: OpFork.Jovian,
      parentExtraData: encodeOpExtraData({ denominator: 250n, elasticity: 6n, minBaseFee: GWEI }),
      minBaseFee: 2n * GWEI,
    });
    expect(builder.fork).toBe(OpFork.Jovian);
    // computed 0.996 gwei is clamped to the parent's minimum of 1 gwei
    expect(builder.baseFee).toBe(GWEI);
    const common = commonFor(CHAIN_ID, OpFork.Jovian);
    const transfer = createFeeMarket1559Tx(
      {
        chainId: CHAIN_ID,
        nonce: 0n,
        maxFeePerGas: 3n * GWEI,
        maxPriorityFeePerGas: 0n,
        gasLimit: 21_000n,
        to: recipient,
        value: 1n,
      },
      { common },
    ).sign(senderKey);
    const raw = transfer.serialize();
    const r = await builder.addTransaction(raw);
    expect(r.ok).toBe(true);
    // Jovian operator fee: 21000 · 2_000_000 · 100 + 1000
    if (r.ok) expect(r.details.operatorFee).toBe(21_000n * 2_000_000n * 100n + 1000n);
    const block = await builder.seal();
    // the L1Block slot 8 word has no DA scalar set, so the default 400 applies
    expect(block.header.blobGasUsed).toBe(daFootprint(BigInt(fastLzCompressedLength(raw)), 0n));
    expect(block.header.blobGasUsed).toBe(40_000n);
    expect(toHex(block.header.extraData)).toBe(
      `0x01000000fa00000006${(2n * GWEI).toString(16).padStart(16, "0")}`,
    );
    const params = decodeL1FeeParams({
      baseFee: bigIntToWord(2n * GWEI),
      scalars: bigIntToWord(scalars),
      overhead: new Uint8Array(0),
      scalar: new Uint8Array(0),
      blobBaseFee: bigIntToWord(1n),
      operatorFeeParams: bigIntToWord(operatorParams),
    });
    const sender = readAccount(store, block.newNodes, block.stateRoot, privateToAddress(senderKey))!;
    expect(sender.balance).toBe(
      10n * ETH -
        1n -
        21_000n * GWEI -
        l1DataFee(raw, params, OpFork.Jovian) -
        (21_000n * 2_000_000n * 100n + 1000n),
    );
  });
});

describe("failed deposits", () => {
  it("keep the mint, bump the nonce, use the whole gas limit and revert everything else", async () => {
    const { builder, store, depositor, depositTo } = await startBlock({
      fork: OpFork.Isthmus,
      parentExtraData: fromHex("0x00000000fa00000006"),
    });
    const deposit = encodeDepositTransaction({
      sourceHash: new Uint8Array(32).fill(2),
      from: depositor,
      to: depositTo,
      mint: ETH,
      value: 2n * ETH, // more than the sender has after the mint
      gasLimit: 100_000n,
      isSystemTx: false,
      data: new Uint8Array(0),
    });
    const r = await builder.addTransaction(deposit);
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.receipt.status).toBe(0);
      expect(r.details.gasUsed).toBe(100_000n);
      expect(r.receipt.cumulativeGasUsed).toBe(100_000n);
      expect(r.receipt.depositNonce).toBe(0n);
    }
    const block = await builder.seal();
    expect(readAccount(store, block.newNodes, block.stateRoot, depositor)).toMatchObject({
      nonce: 1n,
      balance: ETH,
    });
    expect(readAccount(store, block.newNodes, block.stateRoot, depositTo)).toBeUndefined();
  });
});
