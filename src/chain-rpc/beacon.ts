/**
 * EIP-4844 blobs over a beacon API (docs/chain-rpc.md "Beacon API"). Two ways to name a block's blobs:
 *
 * - by SLOT, the standard beacon API: the slot of an L1 block is `(timestamp − genesis_time) / SECONDS_PER_SLOT`
 *   with `genesis_time` from `GET /eth/v1/beacon/genesis` and `SECONDS_PER_SLOT` from `GET /eth/v1/config/spec`
 *   (or the `secondsPerSlot` option, for a node that lacks the spec route). Then
 *   `GET /eth/v1/beacon/blobs/{slot}?versioned_hashes=…` (Fulu) answers `{data: ["0x<blob>"]}`, and where that
 *   route is not served, `GET /eth/v1/beacon/blob_sidecars/{slot}?indices=…` (Deneb/Electra) answers sidecars,
 *   the one whose `kzg_commitment` has the versioned hash being the blob's;
 * - by EXECUTION BLOCK HASH, anvil's own route `GET /eth/v1/beacon/blobs/{block hash}?versioned_hashes=…` (anvil
 *   has no slots and no spec route).
 *
 * `routes` picks: `block-hash` (the default: the node's derivation against anvil), `slot` (standard routes only),
 * or `auto`: by slot when the node serves the genesis and spec routes and the block sits on the slot grid, anvil's
 * route otherwise. A blob is decoded strictly (exactly 131072 bytes of hex) and every body is capped.
 *
 * `verified` is false unless a Kzg instance is given: derivation then recomputes each blob's commitment itself.
 * With one, the provider checks every blob against its versioned hash before returning it.
 */
import { bytesEqual, toHex } from "../chain/index.js";
import {
  BLOB_SIZE,
  type BlobProvider,
  BlobMismatchError,
  type Kzg,
  type L1BlockRef,
  versionedHash as versionedHashOf,
} from "../derive/index.js";
import { DataMismatchError, EndpointUnavailableError, MalformedResponseError } from "./errors.js";
import { type HttpAnswer, type HttpLimits, httpRequest, isRecord, parseJson } from "./http.js";
import { hexData } from "./json.js";

export type BeaconRoutes = "block-hash" | "slot" | "auto";

export interface BeaconBlobProviderOptions extends Omit<HttpLimits, "maxResponseBytes"> {
  /** When given, every blob is checked against its versioned hash here and the provider says `verified`. */
  readonly kzg?: Kzg;
  /** Which routes name a block's blobs (default `block-hash`, anvil's). */
  readonly routes?: BeaconRoutes;
  /** SECONDS_PER_SLOT when the node does not serve /eth/v1/config/spec. */
  readonly secondsPerSlot?: number;
}

/** Room for one blob as hex plus the envelope. */
const MAX_BODY_BYTES = 2 * BLOB_SIZE + 4096;
/** Room for every sidecar of a slot (a node may ignore `indices`): 21 blobs (Prague's limit), each with its proofs. */
const MAX_SIDECARS_BODY_BYTES = 21 * (2 * BLOB_SIZE + 8192);
/** The spec route answers a few hundred constants. */
const MAX_SPEC_BODY_BYTES = 256 * 1024;

/** Where slots fall on the beacon chain. */
export interface SlotClock {
  readonly genesisTime: bigint;
  readonly secondsPerSlot: bigint;
}

/** The slot whose start is `timestamp`, or undefined when the timestamp is off the grid. */
export function slotOfTimestamp(clock: SlotClock, timestamp: bigint): bigint | undefined {
  if (timestamp < clock.genesisTime) return undefined;
  const offset = timestamp - clock.genesisTime;
  return offset % clock.secondsPerSlot === 0n ? offset / clock.secondsPerSlot : undefined;
}

const DECIMAL = /^\d{1,20}$/;

export class BeaconBlobProvider implements BlobProvider {
  readonly verified: boolean;
  private readonly base: string;
  private readonly routes: BeaconRoutes;
  /** The node's slot clock, once asked (null: the node serves no clock; auto mode then uses anvil's route). */
  private clock: Promise<SlotClock | null> | undefined;
  /** The Fulu route answered something other than a blob list once: sidecars from then on. */
  private fuluServed = true;

  constructor(
    baseUrl: string,
    private readonly options: BeaconBlobProviderOptions = {},
  ) {
    this.base = baseUrl.replace(/\/+$/, "");
    this.verified = options.kzg !== undefined;
    this.routes = options.routes ?? "block-hash";
  }

  private get(path: string, what: string, maxResponseBytes = MAX_BODY_BYTES): Promise<HttpAnswer> {
    return httpRequest(
      `${this.base}${path}`,
      { method: "GET", headers: { accept: "application/json" } },
      { timeoutMs: this.options.timeoutMs, maxResponseBytes, stats: this.options.stats },
      what,
    );
  }

  /** The `data` object or list of a 200 answer. */
  private data(answer: HttpAnswer, what: string): unknown {
    const body = parseJson(answer.body, what);
    if (!isRecord(body) || body.data === undefined)
      throw new MalformedResponseError(`${what}: the answer has no data`);
    return body.data;
  }

  private unavailable(what: string, path: string, status: number): EndpointUnavailableError {
    return new EndpointUnavailableError(`${what}: HTTP ${status}`, {
      details: { url: `${this.base}${path}`, status },
    });
  }

  /** The node's genesis time and slot length; null when it serves neither route (anvil: no spec). */
  slotClock(): Promise<SlotClock | null> {
    this.clock ??= this.readClock().catch((error: unknown) => {
      this.clock = undefined;
      throw error;
    });
    return this.clock;
  }

  private async readClock(): Promise<SlotClock | null> {
    const genesis = await this.get("/eth/v1/beacon/genesis", "beacon genesis", MAX_SPEC_BODY_BYTES);
    if (genesis.status !== 200) return null;
    const g = this.data(genesis, "beacon genesis");
    const time = isRecord(g) ? g.genesis_time : undefined;
    if (typeof time !== "string" || !DECIMAL.test(time))
      throw new MalformedResponseError("beacon genesis: genesis_time is not a decimal number");
    let secondsPerSlot = this.options.secondsPerSlot;
    if (secondsPerSlot === undefined) {
      const spec = await this.get("/eth/v1/config/spec", "beacon spec", MAX_SPEC_BODY_BYTES);
      if (spec.status !== 200) return null;
      const s = this.data(spec, "beacon spec");
      const value = isRecord(s) ? s.SECONDS_PER_SLOT : undefined;
      if (typeof value !== "string" || !DECIMAL.test(value) || Number(value) === 0)
        throw new MalformedResponseError("beacon spec: SECONDS_PER_SLOT is not a positive decimal number");
      secondsPerSlot = Number(value);
    }
    return { genesisTime: BigInt(time), secondsPerSlot: BigInt(secondsPerSlot) };
  }

  /** The blob of `block` with `versionedHash` at position `index` among the block's blobs. */
  async blob(block: L1BlockRef, index: number, versionedHash: Uint8Array): Promise<Uint8Array | undefined> {
    const blob =
      this.routes === "block-hash"
        ? await this.byBlockHash(block, versionedHash)
        : await this.bySlotOrHash(block, index, versionedHash);
    if (blob !== undefined && this.options.kzg !== undefined) {
      try {
        this.options.kzg.verifyBlob(blob, versionedHash);
      } catch (error) {
        if (!(error instanceof BlobMismatchError)) throw error;
        throw new DataMismatchError("blob-hash", "beacon blobs: the blob does not match its versioned hash", {
          versionedHash: toHex(versionedHash),
          block: toHex(block.hash),
        });
      }
    }
    return blob;
  }

  private async bySlotOrHash(
    block: L1BlockRef,
    index: number,
    versionedHash: Uint8Array,
  ): Promise<Uint8Array | undefined> {
    const clock = await this.slotClock();
    const slot = clock === null ? undefined : slotOfTimestamp(clock, block.timestamp);
    if (slot === undefined) {
      if (this.routes === "auto") return this.byBlockHash(block, versionedHash);
      throw new MalformedResponseError(
        clock === null
          ? "beacon API: the node serves no genesis and spec routes, so no slot can be computed"
          : `beacon API: L1 block ${block.number} (time ${block.timestamp}) is not at the start of a slot`,
        { details: { block: toHex(block.hash) } },
      );
    }
    if (this.fuluServed) {
      const path = `/eth/v1/beacon/blobs/${slot}?versioned_hashes=${toHex(versionedHash)}`;
      const answer = await this.get(path, "beacon blobs");
      if (answer.status === 200) return this.oneBlob(answer, "beacon blobs");
      if (answer.status >= 500 && answer.status !== 501)
        throw this.unavailable("beacon blobs", path, answer.status);
      // 400, 404, 405, 501: a node before Fulu (or an empty slot, which the sidecars route says too).
      this.fuluServed = false;
    }
    return this.sidecar(slot, index, versionedHash);
  }

  private async sidecar(
    slot: bigint,
    index: number,
    versionedHash: Uint8Array,
  ): Promise<Uint8Array | undefined> {
    const what = "beacon blob_sidecars";
    const path = `/eth/v1/beacon/blob_sidecars/${slot}?indices=${index}`;
    const answer = await this.get(path, what, MAX_SIDECARS_BODY_BYTES);
    if (answer.status === 404) return undefined;
    if (answer.status !== 200) throw this.unavailable(what, path, answer.status);
    const data = this.data(answer, what);
    if (!Array.isArray(data)) throw new MalformedResponseError(`${what}: data is not a list`);
    for (const [i, sidecar] of data.entries()) {
      if (!isRecord(sidecar)) throw new MalformedResponseError(`${what}: data[${i}] is not an object`);
      const commitment = hexData(sidecar.kzg_commitment, `${what}.data[${i}].kzg_commitment`, 48);
      if (bytesEqual(versionedHashOf(commitment), versionedHash))
        return hexData(sidecar.blob, `${what}.data[${i}].blob`, BLOB_SIZE);
    }
    return undefined;
  }

  private async byBlockHash(block: L1BlockRef, versionedHash: Uint8Array): Promise<Uint8Array | undefined> {
    const what = "beacon blobs";
    const path = `/eth/v1/beacon/blobs/${toHex(block.hash)}?versioned_hashes=${toHex(versionedHash)}`;
    const answer = await this.get(path, what);
    if (answer.status === 404) return undefined;
    if (answer.status !== 200) throw this.unavailable(what, path, answer.status);
    return this.oneBlob(answer, what);
  }

  /** The one blob of a `{data: [blob]}` answer; an empty list is undefined. */
  private oneBlob(answer: HttpAnswer, what: string): Uint8Array | undefined {
    const data = this.data(answer, what);
    if (!Array.isArray(data)) throw new MalformedResponseError(`${what}: the answer has no data list`);
    if (data.length === 0) return undefined;
    if (data.length > 1) {
      throw new MalformedResponseError(`${what}: ${data.length} blobs for one versioned hash`, {
        details: { count: data.length },
      });
    }
    return hexData(data[0], `${what}.data[0]`, BLOB_SIZE);
  }
}
