/**
 * What one witness collection may hold (docs/host.md "Bounds"): the recorded preimages must fit one Prove frame
 * (the enclave's request cap, MAX_REQUEST_PAYLOAD_BYTES, and its preimage-count cap, MAX_PROVE_PREIMAGES), the
 * fetched cache may not outgrow that frame, and the L1 walk back from the request's L1 head is bounded (by default
 * per chain, from its rollup config: defaultMaxL1Distance).
 */
import { MAX_REQUEST_PAYLOAD_BYTES } from "../../../generated/protocol/index.js";
import type { RollupConfig } from "../../chain/index.js";
import { CHANNEL_TIMEOUT_GRANITE, MAX_SEQUENCER_DRIFT_FJORD } from "../../derive/index.js";
import { MAX_PROVE_PREIMAGES } from "../../proof/preimages/index.js";
import { L1DistanceError, WitnessTooLargeError } from "./errors.js";

export interface WitnessLimits {
  /** Most preimages in the Prove frame (default and maximum: MAX_PROVE_PREIMAGES). */
  readonly maxPreimages: number;
  /** Most bytes of the Prove request's payload, and of the fetched cache (default: MAX_REQUEST_PAYLOAD_BYTES). */
  readonly maxPayloadBytes: number;
}

/** The enclave's own caps: a witness over them would be refused by the enclave anyway. */
export const ENCLAVE_WITNESS_LIMITS: WitnessLimits = {
  maxPreimages: MAX_PROVE_PREIMAGES,
  maxPayloadBytes: MAX_REQUEST_PAYLOAD_BYTES,
};

/**
 * The bound when the host has no rollup config to derive one from (it then collects no witness and walks no L1):
 * about what OP Stack mainnets need (defaultMaxL1Distance).
 */
export const DEFAULT_MAX_L1_DISTANCE = 20_000;

/** Seconds per L1 block unless the host is told the slot length: Ethereum's 12 s (mainnet, Sepolia, the devnet's L1). */
export const DEFAULT_L1_BLOCK_SECONDS = 12;

/**
 * How long after the claimed block's batch the request's L1 head may lie: two days (a proposer catching up after an
 * outage names the current L1 head for old ranges).
 */
export const L1_HEAD_LAG_SECONDS = 172_800;

/** What a chain's L1 distance bound is derived from (defaultMaxL1Distance). */
export interface L1DistanceInputs {
  /** The most L2 blocks one proof covers (--max-blocks-per-proof). */
  readonly maxBlocksPerProof: bigint;
  /** Seconds per L1 block (--beacon-seconds-per-slot; default DEFAULT_L1_BLOCK_SECONDS). */
  readonly l1BlockSeconds?: number;
}

/**
 * The default of --max-l1-distance for a chain, from its rollup config: what an honest proof walks back from its L1
 * head, plus the L1 head's lag. Derivation walks L1 by parent hash from the request's L1 head to the channel timeout
 * before the agreed head's L1 origin, so it crosses
 *
 * - the sequencing window (`seq_window_size`): the claimed block's batch may land that many L1 blocks after its
 *   origin, and the L1 head is at or after it;
 * - the range's L1 origins: `maxBlocksPerProof` L2 blocks of `block_time`, plus the sequencer drift (the Fjord
 *   constant, or the config's when larger) by which origins may trail, in L1 blocks;
 * - the channel timeout (`granite_channel_timeout`, 50 by default) before the agreed head's origin;
 * - L1_HEAD_LAG_SECONDS of L1 blocks for an L1 head chosen after the claim's batch.
 *
 * OP Mainnet and Base (a 3,600-block window, 2 s blocks, 1,800 blocks per proof): 3,600 + 450 + 50 + 14,400 =
 * 18,500. A chain with a 28,800-block window gets 43,700, which a single default could not give without being far
 * too loose for the others.
 */
export function defaultMaxL1Distance(config: RollupConfig, inputs: L1DistanceInputs): number {
  const l1BlockSeconds = BigInt(inputs.l1BlockSeconds ?? DEFAULT_L1_BLOCK_SECONDS);
  const l1Blocks = (seconds: bigint): bigint => (seconds + l1BlockSeconds - 1n) / l1BlockSeconds;
  const drift =
    config.maxSequencerDrift !== undefined && config.maxSequencerDrift > MAX_SEQUENCER_DRIFT_FJORD
      ? config.maxSequencerDrift
      : MAX_SEQUENCER_DRIFT_FJORD;
  const window = config.seqWindowSize ?? DEFAULT_SEQ_WINDOW_SIZE;
  const range = l1Blocks(inputs.maxBlocksPerProof * config.blockTime + drift);
  const timeout = config.channelTimeout ?? CHANNEL_TIMEOUT_GRANITE;
  return Number(window + range + timeout + l1Blocks(BigInt(L1_HEAD_LAG_SECONDS)));
}

/** A sequencing window for a config that states none (derivation refuses such a config; the OP Stack's 3,600). */
const DEFAULT_SEQ_WINDOW_SIZE = 3600n;

/** Bytes of a bincode varint (u64) holding `value`. */
function varintBytes(value: number): number {
  return value < 251 ? 1 : value <= 0xffff ? 3 : value <= 0xffff_ffff ? 5 : 9;
}

/** Bytes one preimage takes in a Prove payload: 31 key bytes, the key type's index, the value's length and bytes. */
export function encodedPreimageBytes(valueLength: number): number {
  return 32 + varintBytes(valueLength) + valueLength;
}

/** Bytes of the Prove payload's own fields around `count` preimages: the variant index and the list's length. */
function proveHeaderBytes(count: number): number {
  return 1 + varintBytes(count);
}

/** Counts a collection against its limits; every `add…` throws before a limit would be passed. */
export class WitnessBudget {
  private preimages = 0;
  private preimageBytes = 0;
  private cacheBytes = 0;
  private l1Headers = 0;
  /** The first refusal of the frame or the cache: kept, since a reader inside the EVM might swallow it. */
  private refusal: WitnessTooLargeError | undefined;

  constructor(
    private readonly limits: WitnessLimits = ENCLAVE_WITNESS_LIMITS,
    private readonly maxL1Distance: number = DEFAULT_MAX_L1_DISTANCE,
  ) {}

  /** One more preimage in the Prove frame. */
  addPreimage(valueLength: number): void {
    const count = this.preimages + 1;
    const bytes = this.preimageBytes + encodedPreimageBytes(valueLength);
    const payloadBytes = bytes + proveHeaderBytes(count);
    const { maxPreimages, maxPayloadBytes } = this.limits;
    if (count > maxPreimages)
      this.refuse(
        `the witness needs more than ${maxPreimages} preimages, the most one Prove frame may carry; prove a shorter range`,
        { limit: "preimages", preimages: count, maxPreimages },
      );
    if (payloadBytes > maxPayloadBytes)
      this.refuse(
        `the witness's Prove frame would exceed ${maxPayloadBytes} bytes (${count} preimages); prove a shorter range`,
        { limit: "frame-bytes", payloadBytes, maxPayloadBytes },
      );
    this.preimages = count;
    this.preimageBytes = bytes;
  }

  /** Bytes that entered the fetched cache (a superset of the frame's values). */
  addCached(valueLength: number): void {
    const cacheBytes = this.cacheBytes + valueLength;
    if (cacheBytes > this.limits.maxPayloadBytes)
      this.refuse(
        `the fetched witness cache would exceed ${this.limits.maxPayloadBytes} bytes, the most one Prove frame may carry; prove a shorter range`,
        { limit: "cache-bytes", cacheBytes, maxPayloadBytes: this.limits.maxPayloadBytes },
      );
    this.cacheBytes = cacheBytes;
  }

  private refuse(message: string, details: ConstructorParameters<typeof WitnessTooLargeError>[1]): never {
    const error = new WitnessTooLargeError(message, details);
    this.refusal ??= error;
    throw error;
  }

  /** Throws the first refusal, if there was one (before the witness is handed out). */
  checkNotRefused(): void {
    if (this.refusal !== undefined) throw this.refusal;
  }

  /** One more L1 header walked (the first is the request's L1 head, at distance 0). */
  addL1Header(hashHex: string): void {
    const distance = this.l1Headers;
    if (distance > this.maxL1Distance)
      throw new L1DistanceError(
        `the L1 walk from the request's L1 head reached ${distance} blocks back (header ${hashHex}), more than the ${this.maxL1Distance} allowed (--max-l1-distance)`,
        { distance, maxL1Distance: this.maxL1Distance, hash: hashHex },
      );
    this.l1Headers += 1;
  }
}
