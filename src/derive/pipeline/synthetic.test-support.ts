/**
 * A synthetic L1 chain and agreed L2 head for pipeline and driver tests (test code only). Everything the
 * batcher would post is made with the codecs' encoders: batches (encodeBatch, buildSpanBatch), channels
 * (compressChannel), frames (channelToFrames, encodeFrames), blobs (encodeBlob, KZG commitment); batcher
 * transactions are signed with viem; deposits and config updates are real TransactionDeposited / ConfigUpdate
 * logs of the portal and SystemConfig addresses.
 */
import { privateKeyToAccount } from "viem/accounts";
import {
  type BlockHeader,
  EMPTY_OMMERS_HASH,
  EMPTY_TRIE_ROOT,
  type L1ChainConfig,
  type Log,
  OpFork,
  forksActiveFrom,
  type Receipt,
  type RollupConfig,
  encodeOpExtraData,
  fromHex,
  headerHash,
  toHex,
  encodeL1InfoDeposit,
  encodeEcotoneScalar,
} from "../../chain/index.js";
import { CONFIG_UPDATE_TOPIC, type SystemConfig } from "../attributes/index.js";
import { TRANSACTION_DEPOSITED_TOPIC } from "../attributes/deposits.js";
import { buildL1BlockInfo, l1OriginFromHeader } from "../attributes/l1-info.js";
import { encodeBatch } from "../batches/batch.js";
import { buildSpanBatch } from "../batches/expand.js";
import { encodeBlob } from "../blob/codec.js";
import { blobCommitment, versionedHash } from "../blob/kzg.js";
import { compressChannel } from "../channel/index.js";
import { channelToFrames, encodeFrames } from "../frames/index.js";
import { MemoryBlobProvider, MemoryL1Provider, MemoryL2Provider } from "../providers/memory.js";
import type { L2Block } from "../providers.js";
import type { SingularBatchData } from "../types.js";
import { fakeHash } from "../validation/chain.test-support.js";

export const L1_CHAIN_ID = 900n;
export const L2_CHAIN_ID = 901n;
export const L1_BLOCK_TIME = 12n;
export const L1_GENESIS_TIME = 1_000n;
export const L2_GENESIS_TIME = 1_000n;
export const INBOX = fromHex("0xff00000000000000000000000000000000000901");
export const PORTAL = fromHex("0xdd00000000000000000000000000000000000901");
export const SYSTEM_CONFIG = fromHex("0x5c00000000000000000000000000000000000901");

// Well-known development keys (Anvil/Hardhat accounts 1, 2 and 3): never used outside tests.
export const BATCHER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
export const OTHER_KEY = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a";
export const USER_KEY = "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6";
export const batcher = privateKeyToAccount(BATCHER_KEY);
export const other = privateKeyToAccount(OTHER_KEY);
const user = privateKeyToAccount(USER_KEY);

export const L1_CHAIN: L1ChainConfig = { chainId: L1_CHAIN_ID, cancunTime: 0n, blobSchedule: [] };

export function syntheticRollupConfig(
  seqWindowSize = 20n,
  overrides: Partial<RollupConfig> = {},
): RollupConfig {
  return {
    l2ChainId: L2_CHAIN_ID,
    blockTime: 2n,
    genesisL2Time: L2_GENESIS_TIME,
    forkTimes: forksActiveFrom(OpFork.Isthmus),
    eip1559Elasticity: 6n,
    eip1559Denominator: 50n,
    eip1559DenominatorCanyon: 250n,
    depositContractAddress: PORTAL,
    l1SystemConfigAddress: SYSTEM_CONFIG,
    l1ChainId: L1_CHAIN_ID,
    batchInboxAddress: INBOX,
    seqWindowSize,
    maxSequencerDrift: 1800n,
    channelTimeout: 50n,
    genesis: {
      l1: { number: 0n, hash: new Uint8Array(32) }, // set by SyntheticL1 once block 0 exists
      l2: { number: 0n, hash: fakeHash(2, 0) },
      l2Time: L2_GENESIS_TIME,
      systemConfig: {
        batcherAddress: fromHex(batcher.address),
        overhead: new Uint8Array(32),
        scalar: encodeEcotoneScalar(1368, 810949),
        gasLimit: 30_000_000n,
        eip1559Denominator: 250n,
        eip1559Elasticity: 6n,
      },
    },
    ...overrides,
  };
}

export function genesisSystemConfig(rollup: RollupConfig): SystemConfig {
  const g = rollup.genesis!.systemConfig;
  return {
    batcherAddress: g.batcherAddress,
    overhead: g.overhead,
    scalar: g.scalar,
    gasLimit: g.gasLimit,
    eip1559Denominator: Number(g.eip1559Denominator ?? 0n),
    eip1559Elasticity: Number(g.eip1559Elasticity ?? 0n),
    operatorFeeScalar: 0,
    operatorFeeConstant: 0n,
    minBaseFee: 0n,
    daFootprintGasScalar: 0,
  };
}

function word(value: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 31; i >= 0 && value > 0n; i--) {
    out[i] = Number(value & 0xffn);
    value >>= 8n;
  }
  return out;
}

function padAddress(address: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  out.set(address, 12);
  return out;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

/** abi.encode(bytes): offset, length, data padded to 32 bytes. */
function abiBytes(data: Uint8Array): Uint8Array {
  const padded = new Uint8Array(Math.ceil(data.length / 32) * 32);
  padded.set(data);
  return concat(word(32n), word(BigInt(data.length)), padded);
}

/** A TransactionDeposited log of the portal (version 0). */
export function depositLog(d: {
  from: Uint8Array;
  to: Uint8Array;
  mint?: bigint;
  value?: bigint;
  gas?: bigint;
  data?: Uint8Array;
}): Log {
  const gas = new Uint8Array(8);
  new DataView(gas.buffer).setBigUint64(0, d.gas ?? 100_000n);
  const opaque = concat(
    word(d.mint ?? 0n),
    word(d.value ?? 0n),
    gas,
    Uint8Array.of(0),
    d.data ?? new Uint8Array(0),
  );
  return {
    address: PORTAL,
    topics: [TRANSACTION_DEPOSITED_TOPIC, padAddress(d.from), padAddress(d.to), new Uint8Array(32)],
    data: abiBytes(opaque),
  };
}

/** A ConfigUpdate log of the SystemConfig contract: type 0 (batcher) or 2 (gas limit). */
export function configUpdateLog(type: 0 | 2, value: Uint8Array | bigint): Log {
  const payload = typeof value === "bigint" ? word(value) : padAddress(value);
  return {
    address: SYSTEM_CONFIG,
    topics: [CONFIG_UPDATE_TOPIC, new Uint8Array(32), word(BigInt(type))],
    data: abiBytes(payload),
  };
}

export function receipt(logs: Log[], status: 0 | 1 = 1): Receipt {
  return { type: 2, status, cumulativeGasUsed: 21_000n, logs, logsBloom: new Uint8Array(256) };
}

/** Signed L2 user transactions (EIP-1559 and legacy), distinct per `seed`. */
export async function l2Transactions(seed: number, count: number): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const nonce = seed * 100 + i;
    const raw =
      i % 2 === 0
        ? await user.signTransaction({
            type: "eip1559",
            chainId: Number(L2_CHAIN_ID),
            nonce,
            to: other.address,
            value: BigInt(seed * 1000 + i),
            gas: 21_000n,
            maxFeePerGas: 2_000_000_000n,
            maxPriorityFeePerGas: 1_000_000n,
          })
        : await user.signTransaction({
            type: "legacy",
            chainId: Number(L2_CHAIN_ID),
            nonce,
            to: other.address,
            value: BigInt(seed * 1000 + i),
            gas: 21_000n,
            gasPrice: 1_000_000_000n,
          });
    out.push(fromHex(raw));
  }
  return out;
}

/** A channel id from a number (16 bytes). */
export function channelId(n: number): Uint8Array {
  const id = new Uint8Array(16);
  id[0] = 0xc4;
  id[15] = n;
  return id;
}

/** The batcher payload (version 0 + frames) of one channel holding `batches` (raw batch bytes). */
export function channelPayloads(
  id: number,
  batches: Uint8Array[],
  options: { algo?: "zlib" | "brotli"; maxFrameData?: number } = {},
): Uint8Array[] {
  const channel = compressChannel(batches, options.algo ?? "zlib");
  return channelToFrames(channelId(id), channel, options.maxFrameData).map((f) => encodeFrames([f]));
}

export function singularBatch(b: SingularBatchData): Uint8Array {
  return encodeBatch({
    type: "singular",
    parentHash: b.parentHash,
    epochNumber: b.epochNumber,
    epochHash: b.epochHash,
    timestamp: b.timestamp,
    transactions: b.transactions,
  });
}

export function spanBatch(blocks: SingularBatchData[], firstBlockStartsEpoch: boolean): Uint8Array {
  const span = buildSpanBatch(
    blocks.map((b) => ({ ...b })),
    { genesisTimestamp: L2_GENESIS_TIME, blockTime: 2n, chainId: L2_CHAIN_ID },
    firstBlockStartsEpoch,
  );
  return encodeBatch(span);
}

interface PendingBlock {
  transactions: Uint8Array[];
  receipts: Receipt[];
}

/** An L1 chain built block by block; block n has time L1_GENESIS_TIME + 12 n. */
export class SyntheticL1 {
  readonly provider = new MemoryL1Provider();
  readonly blobs = new MemoryBlobProvider(false);
  readonly headers: BlockHeader[] = [];
  readonly hashes: Uint8Array[] = [];
  private nonce = 0;

  constructor(readonly rollup: RollupConfig) {}

  /** Appends the next block with the given transactions and receipts; returns its hash. */
  addBlock(content: Partial<PendingBlock> = {}): Uint8Array {
    const number = BigInt(this.headers.length);
    const header: BlockHeader = {
      parentHash: number === 0n ? new Uint8Array(32) : this.hashes[this.hashes.length - 1]!,
      ommersHash: EMPTY_OMMERS_HASH,
      beneficiary: new Uint8Array(20),
      stateRoot: fakeHash(0x51, number),
      transactionsRoot: EMPTY_TRIE_ROOT,
      receiptsRoot: EMPTY_TRIE_ROOT,
      logsBloom: new Uint8Array(256),
      difficulty: 0n,
      number,
      gasLimit: 30_000_000n,
      gasUsed: 0n,
      timestamp: L1_GENESIS_TIME + L1_BLOCK_TIME * number,
      extraData: new Uint8Array(0),
      mixHash: fakeHash(0x3a, number),
      nonce: new Uint8Array(8),
      baseFeePerGas: 1_000_000_000n + number,
      withdrawalsRoot: EMPTY_TRIE_ROOT,
      blobGasUsed: 0n,
      excessBlobGas: 0n,
      parentBeaconBlockRoot: fakeHash(0xbe, number),
    };
    const hash = this.provider.add({
      header,
      transactions: content.transactions ?? [],
      receipts: content.receipts ?? [],
    });
    this.headers.push(header);
    this.hashes.push(hash);
    if (number === 0n) this.rollup.genesis!.l1 = { number: 0n, hash };
    return hash;
  }

  /** Empty blocks up to and including `number`. */
  fillTo(number: bigint): void {
    while (BigInt(this.headers.length) <= number) this.addBlock();
  }

  get head(): Uint8Array {
    return this.hashes[this.hashes.length - 1]!;
  }

  ref(n: bigint): { number: bigint; hash: Uint8Array } {
    return { number: n, hash: this.hashes[Number(n)]! };
  }

  /** A signed calldata batcher transaction (type 2) from `from` to `to` (default: the batcher to the inbox). */
  async calldataTx(payload: Uint8Array, from = batcher, to: Uint8Array = INBOX): Promise<Uint8Array> {
    const raw = await from.signTransaction({
      type: "eip1559",
      chainId: Number(L1_CHAIN_ID),
      nonce: this.nonce++,
      to: toHex(to),
      data: toHex(payload),
      gas: 1_000_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    return fromHex(raw);
  }

  /** A signed blob batcher transaction (type 3) carrying `payloads`, one blob each; the blobs go to `this.blobs`. */
  async blobTx(payloads: Uint8Array[], from = batcher): Promise<{ raw: Uint8Array; hashes: Uint8Array[] }> {
    const hashes: Uint8Array[] = [];
    for (const p of payloads) {
      const blob = encodeBlob(p);
      const hash = versionedHash(await blobCommitment(blob));
      this.blobs.add(hash, blob);
      hashes.push(hash);
    }
    const raw = await from.signTransaction({
      type: "eip4844",
      chainId: Number(L1_CHAIN_ID),
      nonce: this.nonce++,
      to: toHex(INBOX),
      data: "0x",
      gas: 100_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
      maxFeePerBlobGas: 10_000_000_000n,
      blobVersionedHashes: hashes.map((h) => toHex(h)),
    });
    return { raw: fromHex(raw), hashes };
  }
}

/** An agreed L2 block whose L1 info deposit names L1 block `origin` of `l1`. */
export function agreedL2Block(
  l1: SyntheticL1,
  number: bigint,
  origin: bigint,
  sequenceNumber: bigint,
  systemConfig: SystemConfig,
  extraTransactions: Uint8Array[] = [],
): L2Block {
  const timestamp = L2_GENESIS_TIME + 2n * number;
  const info = buildL1BlockInfo({
    rollupConfig: l1.rollup,
    systemConfig,
    l1Origin: l1OriginFromHeader(l1.headers[Number(origin)]!, l1.rollup, L1_CHAIN),
    sequenceNumber,
    l2Timestamp: timestamp,
  });
  const header: BlockHeader = {
    parentHash: fakeHash(2, number - 1n),
    ommersHash: EMPTY_OMMERS_HASH,
    beneficiary: new Uint8Array(20),
    stateRoot: fakeHash(0x52, number),
    transactionsRoot: EMPTY_TRIE_ROOT,
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: new Uint8Array(256),
    difficulty: 0n,
    number,
    gasLimit: systemConfig.gasLimit,
    gasUsed: 0n,
    timestamp,
    extraData: encodeOpExtraData({
      denominator: BigInt(systemConfig.eip1559Denominator),
      elasticity: BigInt(systemConfig.eip1559Elasticity),
    }),
    mixHash: fakeHash(0x3a, origin),
    nonce: new Uint8Array(8),
    baseFeePerGas: 1_000_000n,
    withdrawalsRoot: EMPTY_TRIE_ROOT,
    blobGasUsed: 0n,
    excessBlobGas: 0n,
    parentBeaconBlockRoot: fakeHash(0xbe, origin),
    requestsHash: fakeHash(0x77, 0),
  };
  return {
    hash: headerHash(header),
    header,
    transactions: [encodeL1InfoDeposit(info), ...extraTransactions],
  };
}

export function l2Provider(blocks: L2Block[]): MemoryL2Provider {
  return new MemoryL2Provider(blocks);
}
