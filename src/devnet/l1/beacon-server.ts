/**
 * A standard beacon API beside anvil, for the devnet L1 whose blocks sit on a slot grid (slots.ts). anvil 1.7.1
 * serves `/eth/v1/beacon/genesis` and `/eth/v1/beacon/blobs/{id}` with `id` an execution block hash or number, but
 * no `/eth/v1/config/spec`, answers 410 for `/eth/v1/beacon/blob_sidecars/{id}`, and has no slots (a number is a
 * block number). This server answers, by slot:
 *
 * - `GET /eth/v1/beacon/genesis`: the grid's genesis time;
 * - `GET /eth/v1/config/spec`: `SECONDS_PER_SLOT` (and `SLOTS_PER_EPOCH`);
 * - `GET /eth/v1/beacon/blob_sidecars/{slot|head}[?indices=…]` (Deneb/Electra): each blob of the slot's block with
 *   its KZG commitment and proof (computed here; the block header and inclusion proof are placeholders: there is
 *   no beacon block);
 * - `GET /eth/v1/beacon/blobs/{slot|head}[?versioned_hashes=…]` (Fulu): the blobs, from anvil.
 *
 * An empty slot is 404. Any other `GET /eth/…` (the execution block hash form the host reads today) is passed to
 * anvil unchanged. Only 127.0.0.1; requests are GETs with bounded URLs and at most 64 versioned hashes or indices.
 */
import { type IncomingMessage, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { bytesToHex, type Hex, hexToBytes } from "viem";
import { type Kzg, versionedHash } from "../../derive/index.js";
import type { Anvil } from "./anvil.js";
import { type SlotGrid, slotAt, slotTime } from "./slots.js";

/** Slots per epoch the spec route names (anvil's default, `--slots-in-an-epoch`). */
const SLOTS_PER_EPOCH = 32;
/** Most versioned hashes or indices one request may name (a block holds at most 21 blobs under Prague's limits). */
const MAX_FILTER = 64;
const MAX_URL_LENGTH = 8192;
const ZERO_ROOT = `0x${"00".repeat(32)}`;
/** Depth of a blob commitment's inclusion proof in a Deneb beacon block body. */
const INCLUSION_PROOF_DEPTH = 17;

export interface BeaconServerOptions {
  readonly anvil: Pick<Anvil, "beaconUrl" | "client">;
  readonly grid: SlotGrid;
  readonly kzg: Kzg;
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  readonly port?: number;
}

export interface BeaconServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** An answer with an HTTP status and a JSON body in the beacon API's error form. */
class BeaconHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** A comma-separated (or repeated) query list, bounded. */
function queryList(url: URL, name: string): string[] | undefined {
  const values = url.searchParams.getAll(name).flatMap((v) => v.split(",").filter((x) => x !== ""));
  if (values.length === 0) return undefined;
  if (values.length > MAX_FILTER)
    throw new BeaconHttpError(400, `BAD_REQUEST: at most ${MAX_FILTER} ${name}, got ${values.length}`);
  return values;
}

export async function startBeaconServer(options: BeaconServerOptions): Promise<BeaconServer> {
  const { anvil, grid, kzg } = options;
  const upstream = anvil.beaconUrl.replace(/\/+$/, "");

  /** The execution block of `slot`, or undefined for an empty slot (binary search by timestamp). */
  const blockAtSlot = async (slot: bigint): Promise<{ hash: Hex; number: bigint } | undefined> => {
    const target = slotTime(grid, slot);
    let lo = 0n;
    // Uncached: viem keeps a block number for its client's cacheTime (4 s), two slots on a 2 s grid, so a cached
    // number can predate the block of the slot asked for (the test's L1 answered 404 for a block it had just mined).
    let hi = await anvil.client.getBlockNumber({ cacheTime: 0 });
    while (lo <= hi) {
      const mid = (lo + hi) / 2n;
      const block = await anvil.client.getBlock({ blockNumber: mid });
      if (block.timestamp === target) return { hash: block.hash, number: block.number };
      if (block.timestamp < target) lo = mid + 1n;
      else hi = mid - 1n;
    }
    return undefined;
  };

  /** The slot a block id names: a decimal slot or `head`; 400 for anything else. */
  const slotOf = async (id: string): Promise<bigint> => {
    if (id === "head") return slotAt(grid, (await anvil.client.getBlock({ blockTag: "latest" })).timestamp);
    if (!/^\d{1,19}$/.test(id)) throw new BeaconHttpError(400, `BAD_REQUEST: invalid block id ${id}`);
    return BigInt(id);
  };

  const blockOf = async (id: string): Promise<{ slot: bigint; hash: Hex; number: bigint }> => {
    const slot = await slotOf(id);
    const block = await blockAtSlot(slot);
    if (block === undefined) throw new BeaconHttpError(404, `NOT_FOUND: beacon block at slot ${slot}`);
    return { slot, ...block };
  };

  /** Every blob of an execution block, in order, from anvil. */
  const blobsOf = async (hash: Hex, query = ""): Promise<Hex[]> => {
    const response = await fetch(`${upstream}/eth/v1/beacon/blobs/${hash}${query}`);
    if (response.status !== 200)
      throw new BeaconHttpError(502, `the L1 answered HTTP ${response.status} for the blobs of ${hash}`);
    const body = (await response.json()) as { data?: unknown };
    if (!Array.isArray(body.data)) throw new BeaconHttpError(502, `the L1 answered no blob list for ${hash}`);
    return body.data as Hex[];
  };

  const sidecars = async (id: string, url: URL) => {
    const block = await blockOf(id);
    const indices = queryList(url, "indices")?.map(Number);
    const blobs = await blobsOf(block.hash);
    return blobs
      .map((blob, index) => ({ blob, index }))
      .filter(({ index }) => indices === undefined || indices.includes(index))
      .map(({ blob, index }) => {
        const bytes = hexToBytes(blob);
        const commitment = kzg.commitment(bytes);
        return {
          index: String(index),
          blob,
          kzg_commitment: bytesToHex(commitment),
          kzg_proof: bytesToHex(kzg.proof(bytes, commitment)),
          signed_block_header: {
            message: {
              slot: String(block.slot),
              proposer_index: "0",
              parent_root: ZERO_ROOT,
              state_root: ZERO_ROOT,
              body_root: ZERO_ROOT,
            },
            signature: `0x${"00".repeat(96)}`,
          },
          kzg_commitment_inclusion_proof: Array.from({ length: INCLUSION_PROOF_DEPTH }, () => ZERO_ROOT),
        };
      });
  };

  const fulu = async (id: string, url: URL): Promise<Hex[]> => {
    const block = await blockOf(id);
    const wanted = queryList(url, "versioned_hashes");
    const blobs = await blobsOf(block.hash);
    if (wanted === undefined) return blobs;
    const set = new Set(wanted.map((h) => h.toLowerCase()));
    return blobs.filter((blob) => set.has(bytesToHex(versionedHash(kzg.commitment(hexToBytes(blob))))));
  };

  /** Passes a GET to anvil and its answer back. */
  const proxy = async (path: string, res: ServerResponse): Promise<void> => {
    const response = await fetch(`${upstream}${path}`);
    const text = await response.text();
    res.writeHead(response.status, {
      "content-type": response.headers.get("content-type") ?? "application/json",
    });
    res.end(text);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = req.url ?? "/";
    if (raw.length > MAX_URL_LENGTH) throw new BeaconHttpError(414, "URI_TOO_LONG");
    if (req.method !== "GET") throw new BeaconHttpError(405, `METHOD_NOT_ALLOWED: ${req.method ?? ""}`);
    const url = new URL(raw, "http://127.0.0.1");
    const path = url.pathname;
    const meta = { execution_optimistic: false, finalized: false };
    if (path === "/eth/v1/beacon/genesis")
      return send(res, 200, {
        data: {
          genesis_time: String(grid.genesisTime),
          genesis_validators_root: ZERO_ROOT,
          genesis_fork_version: "0x00000000",
        },
      });
    if (path === "/eth/v1/config/spec")
      return send(res, 200, {
        data: { SECONDS_PER_SLOT: String(grid.secondsPerSlot), SLOTS_PER_EPOCH: String(SLOTS_PER_EPOCH) },
      });
    const sidecarRoute = /^\/eth\/v1\/beacon\/blob_sidecars\/([^/]+)$/.exec(path);
    if (sidecarRoute !== null && !sidecarRoute[1]!.startsWith("0x"))
      return send(res, 200, { ...meta, data: await sidecars(sidecarRoute[1]!, url) });
    const blobsRoute = /^\/eth\/v1\/beacon\/blobs\/([^/]+)$/.exec(path);
    if (blobsRoute !== null && !blobsRoute[1]!.startsWith("0x"))
      return send(res, 200, { ...meta, data: await fulu(blobsRoute[1]!, url) });
    if (path.startsWith("/eth/")) return proxy(raw, res);
    throw new BeaconHttpError(404, `NOT_FOUND: ${path}`);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      const status = e instanceof BeaconHttpError ? e.status : 500;
      const message = e instanceof Error ? e.message : String(e);
      if (!res.headersSent) send(res, status, { code: status, message });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
