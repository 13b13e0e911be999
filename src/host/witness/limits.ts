/**
 * What one witness collection may hold (docs/host.md "Bounds"): the recorded preimages must fit one Prove frame
 * (the enclave's request cap, MAX_REQUEST_PAYLOAD_BYTES, and its preimage-count cap, MAX_PROVE_PREIMAGES), the
 * fetched cache may not outgrow that frame, and the L1 walk back from the request's L1 head is bounded.
 */
import { MAX_REQUEST_PAYLOAD_BYTES } from "../../../generated/protocol/index.js";
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
 * Default for --max-l1-distance: L1 headers witness collection may walk back from the request's L1 head. A proof
 * needs the sequencing window (3,600 L1 blocks on OP Stack mainnets) past the claimed block's origin, the range
 * (1,800 L2 blocks of 2 s are 300 L1 slots) and the channel timeout (50) before the agreed head's origin: about
 * 4,000; 20,000 (under three days of 12 s slots) leaves room for an L1 head chosen well past the claim.
 */
export const DEFAULT_MAX_L1_DISTANCE = 20_000;

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
