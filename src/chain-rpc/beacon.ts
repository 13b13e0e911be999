/**
 * EIP-4844 blobs over a beacon API. Supported route: anvil's `GET /eth/v1/beacon/blobs/{block_id}` with
 * `?versioned_hashes=`, where block_id is the EXECUTION block hash (anvil has no slots; see
 * ../shared/notes/derivation.md, "L1 for the devnet"); the answer is `{ "data": ["0x<131072 bytes>", …] }` with
 * the blobs whose versioned hashes were asked for. The blob is decoded strictly (exactly 131072 bytes of hex) and
 * the body is capped.
 *
 * Future work: a real beacon node serves blobs by SLOT (`/eth/v1/beacon/blob_sidecars/{slot}`, or
 * `/eth/v1/beacon/blobs/{slot}` from Fulu). Supporting it needs the slot of an L1 block: from the block's
 * timestamp and the beacon genesis time and seconds per slot (`/eth/v1/beacon/genesis`, `/eth/v1/config/spec`),
 * then the sidecar at `index` among the block's blobs, checked by its commitment's versioned hash.
 *
 * `verified` is false unless a Kzg instance is given: derivation then recomputes each blob's commitment itself.
 * With one, the provider checks every blob against its versioned hash before returning it.
 */
import { toHex } from "../chain/index.js";
import {
  BLOB_SIZE,
  type BlobProvider,
  BlobMismatchError,
  type Kzg,
  type L1BlockRef,
} from "../derive/index.js";
import { DataMismatchError, EndpointUnavailableError, MalformedResponseError } from "./errors.js";
import { type HttpLimits, httpRequest, isRecord, parseJson } from "./http.js";
import { hexData } from "./json.js";

export interface BeaconBlobProviderOptions extends Omit<HttpLimits, "maxResponseBytes"> {
  /** When given, every blob is checked against its versioned hash here and the provider says `verified`. */
  readonly kzg?: Kzg;
}

/** Room for one blob as hex plus the envelope. */
const MAX_BODY_BYTES = 2 * BLOB_SIZE + 4096;

export class BeaconBlobProvider implements BlobProvider {
  readonly verified: boolean;
  private readonly base: string;

  constructor(
    baseUrl: string,
    private readonly options: BeaconBlobProviderOptions = {},
  ) {
    this.base = baseUrl.replace(/\/+$/, "");
    this.verified = options.kzg !== undefined;
  }

  /** The blob of `block` with `versionedHash` (`index` is not needed: the versioned hash selects it). */
  async blob(block: L1BlockRef, _index: number, versionedHash: Uint8Array): Promise<Uint8Array | undefined> {
    const what = "beacon blobs";
    const url = `${this.base}/eth/v1/beacon/blobs/${toHex(block.hash)}?versioned_hashes=${toHex(versionedHash)}`;
    const answer = await httpRequest(
      url,
      { method: "GET", headers: { accept: "application/json" } },
      { timeoutMs: this.options.timeoutMs, maxResponseBytes: MAX_BODY_BYTES },
      what,
    );
    if (answer.status === 404) return undefined;
    if (answer.status !== 200) {
      throw new EndpointUnavailableError(`${what}: HTTP ${answer.status}`, {
        details: { url, status: answer.status },
      });
    }
    const body = parseJson(answer.body, what);
    if (!isRecord(body) || !Array.isArray(body.data)) {
      throw new MalformedResponseError(`${what}: the answer has no data list`);
    }
    if (body.data.length === 0) return undefined;
    if (body.data.length > 1) {
      throw new MalformedResponseError(`${what}: ${body.data.length} blobs for one versioned hash`, {
        details: { count: body.data.length },
      });
    }
    const blob = hexData(body.data[0], `${what}.data[0]`, BLOB_SIZE);
    if (this.options.kzg !== undefined) {
      try {
        this.options.kzg.verifyBlob(blob, versionedHash);
      } catch (error) {
        if (!(error instanceof BlobMismatchError)) throw error;
        throw new DataMismatchError("blob-hash", `${what}: the blob does not match its versioned hash`, {
          versionedHash: toHex(versionedHash),
          block: toHex(block.hash),
        });
      }
    }
    return blob;
  }
}
