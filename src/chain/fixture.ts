/**
 * Stateless execution fixtures (the format of shared/fixtures/op-sepolia): rollup config, parent
 * header, payload attributes with transactions, expected block hash, keccak256-keyed preimages.
 */
import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import type { PayloadAttributes } from "./block-builder.js";
import { type BlockHeader, headerFromJson } from "./header.js";
import { fromHex, hexToBigInt } from "./hex.js";
import { PreimageStore, keccak256Key } from "./preimage-store.js";
import { type RollupConfig, parseRollupConfig } from "./rollup-config.js";
import { ChainError, type ChainErrorOptions } from "./errors.js";

export interface ExecutionFixture {
  config: RollupConfig;
  parent: BlockHeader;
  attributes: PayloadAttributes;
  transactions: Uint8Array[];
  expectedBlockHash: Uint8Array;
  /** keccak256 hash (hex, 0x) -> value, unverified. */
  preimages: Map<string, Uint8Array>;
}

export class InvalidFixtureError extends ChainError {
  constructor(message: string, options?: ChainErrorOptions) {
    super(message, "invalid-fixture", options);
  }
}

/** Uncompressed fixtures above this size are refused (they are a few MB in practice). */
export const MAX_FIXTURE_BYTES = 1 << 30;

function str(o: Record<string, unknown>, name: string): string {
  const v = o[name];
  if (typeof v !== "string") throw new InvalidFixtureError(`fixture field ${name} must be a string`);
  return v;
}

/** Engine API payload attributes (JSON, hex quantities) as the engine takes them. */
export function parsePayloadAttributes(json: unknown): PayloadAttributes {
  if (typeof json !== "object" || json === null)
    throw new InvalidFixtureError("payload attributes must be an object");
  const payload = json as Record<string, unknown>;
  const attributes: PayloadAttributes = {
    timestamp: hexToBigInt(str(payload, "timestamp")),
    prevRandao: fromHex(str(payload, "prevRandao")),
    suggestedFeeRecipient: fromHex(str(payload, "suggestedFeeRecipient")),
    gasLimit: hexToBigInt(str(payload, "gasLimit")),
  };
  if (typeof payload.parentBeaconBlockRoot === "string")
    attributes.parentBeaconBlockRoot = fromHex(payload.parentBeaconBlockRoot);
  if (typeof payload.eip1559Params === "string") attributes.eip1559Params = fromHex(payload.eip1559Params);
  if (typeof payload.minBaseFee === "string") attributes.minBaseFee = hexToBigInt(payload.minBaseFee);
  else if (typeof payload.minBaseFee === "number") attributes.minBaseFee = BigInt(payload.minBaseFee);
  const lengths: [string, Uint8Array | undefined, number][] = [
    ["prevRandao", attributes.prevRandao, 32],
    ["suggestedFeeRecipient", attributes.suggestedFeeRecipient, 20],
    ["parentBeaconBlockRoot", attributes.parentBeaconBlockRoot, 32],
    ["eip1559Params", attributes.eip1559Params, 8],
  ];
  for (const [name, value, len] of lengths) {
    if (value !== undefined && value.length !== len)
      throw new InvalidFixtureError(`${name} must be ${len} bytes`);
  }
  return attributes;
}

export function parseFixture(json: unknown): ExecutionFixture {
  if (typeof json !== "object" || json === null) throw new InvalidFixtureError("fixture must be an object");
  const f = json as Record<string, unknown>;
  const payload = f.executing_payload as Record<string, unknown> | undefined;
  if (typeof payload !== "object" || payload === null)
    throw new InvalidFixtureError("executing_payload missing");
  const txs = payload.transactions;
  if (!Array.isArray(txs) || txs.some((t) => typeof t !== "string")) {
    throw new InvalidFixtureError("executing_payload.transactions must be an array of hex strings");
  }
  const attributes = parsePayloadAttributes(payload);
  const pre = f.preimages;
  if (typeof pre !== "object" || pre === null) throw new InvalidFixtureError("preimages missing");
  const preimages = new Map<string, Uint8Array>();
  for (const [k, v] of Object.entries(pre as Record<string, unknown>)) {
    if (!/^0x[0-9a-fA-F]{64}$/.test(k) || typeof v !== "string")
      throw new InvalidFixtureError(`bad preimage entry ${k.slice(0, 70)}`);
    preimages.set(k.toLowerCase(), fromHex(v));
  }
  return {
    config: parseRollupConfig(f.rollup_config),
    parent: headerFromJson(f.parent_header),
    attributes,
    transactions: (txs as string[]).map((t) => fromHex(t)),
    expectedBlockHash: fromHex(str(f, "expected_block_hash")),
    preimages,
  };
}

export async function loadFixture(path: string): Promise<ExecutionFixture> {
  const raw = await readFile(path);
  const gz = raw[0] === 0x1f && raw[1] === 0x8b;
  const text = (gz ? gunzipSync(raw, { maxOutputLength: MAX_FIXTURE_BYTES }) : raw).toString("utf8");
  return parseFixture(JSON.parse(text));
}

/** Loads the fixture's preimages into a store, verifying each against its keccak256 key. */
export function fixtureStore(fixture: ExecutionFixture): PreimageStore {
  const store = new PreimageStore();
  for (const [hash, value] of fixture.preimages) store.put(keccak256Key(fromHex(hash)), value);
  return store;
}
