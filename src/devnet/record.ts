/**
 * `<data-dir>/devnet.json`: what the devnet remembers between runs (docs/devnet.md "The record"). Written by
 * `npm start`, read back by the next start and by `npm run prove`:
 *
 *   chainId, token     the L2 chain and the Dev USD token deployed on it (first start)
 *   verifiers          TEEVerifier and AggregateVerifier (or ProtocolVersions and ScheduleIdAggregateVerifier) on the
 *                      L1 and the values they were deployed with (first start)
 *   endpoints          the URLs and accounts of the running devnet (every start)
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Address, getAddress, type Hex, isAddress, isHex } from "viem";
import { VERIFIER_VERSIONS, type VerifierVersion } from "../../contracts/index.js";

export const RECORD_FILE = "devnet.json";

/** The proof verifiers deployed on the L1, with their constructor values. */
export interface VerifiersRecord {
  readonly l1ChainId: number;
  /** The journal version the aggregate verifier checks (a record without it: "spec"). */
  readonly verifierVersion: VerifierVersion;
  /** The ProtocolVersions a schedule-id verifier reads. */
  readonly protocolVersions?: Address;
  readonly teeVerifier: Address;
  readonly aggregateVerifier: Address;
  readonly teeProverRegistry: Address;
  readonly configHash: Hex;
  readonly blockInterval: number;
  readonly intermediateBlockInterval: number;
  readonly anchorBlock: number;
  readonly anchorRoot: Hex;
}

/** Where the running devnet answers (rewritten on every start). */
export interface EndpointsRecord {
  readonly l1RpcUrl: string;
  readonly l1BeaconUrl: string;
  readonly l2RpcUrl: string;
  readonly proverUrl: string;
  readonly proposer: Address;
  readonly challenger: Address;
}

export interface DevnetRecord {
  readonly chainId?: number;
  readonly token?: Address;
  readonly verifiers?: VerifiersRecord;
  readonly endpoints?: EndpointsRecord;
}

const address = (value: unknown): Address | undefined =>
  typeof value === "string" && isAddress(value, { strict: false }) ? getAddress(value) : undefined;
const hex32 = (value: unknown): Hex | undefined =>
  typeof value === "string" && isHex(value) && value.length === 66 ? value : undefined;
const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;
const url = (value: unknown): string | undefined =>
  typeof value === "string" && /^https?:\/\//.test(value) ? value : undefined;

function verifiersOf(value: unknown): VerifiersRecord | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const fields = {
    l1ChainId: count(v.l1ChainId),
    teeVerifier: address(v.teeVerifier),
    aggregateVerifier: address(v.aggregateVerifier),
    teeProverRegistry: address(v.teeProverRegistry),
    configHash: hex32(v.configHash),
    blockInterval: count(v.blockInterval),
    intermediateBlockInterval: count(v.intermediateBlockInterval),
    anchorBlock: count(v.anchorBlock),
    anchorRoot: hex32(v.anchorRoot),
  };
  if (Object.values(fields).some((f) => f === undefined)) return undefined;
  const verifierVersion = v.verifierVersion ?? "spec";
  const version = VERIFIER_VERSIONS.find((known) => known === verifierVersion);
  const protocolVersions = address(v.protocolVersions);
  if (version === undefined || (version === "schedule-id") !== (protocolVersions !== undefined))
    return undefined;
  return {
    ...(fields as Omit<VerifiersRecord, "verifierVersion" | "protocolVersions">),
    verifierVersion: version,
    ...(protocolVersions === undefined ? {} : { protocolVersions }),
  };
}

function endpointsOf(value: unknown): EndpointsRecord | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const fields = {
    l1RpcUrl: url(v.l1RpcUrl),
    l1BeaconUrl: url(v.l1BeaconUrl),
    l2RpcUrl: url(v.l2RpcUrl),
    proverUrl: url(v.proverUrl),
    proposer: address(v.proposer),
    challenger: address(v.challenger),
  };
  return Object.values(fields).some((f) => f === undefined) ? undefined : (fields as EndpointsRecord);
}

/** The record of `dataDir` (empty when missing or unreadable; a malformed part is left out). */
export function readRecord(dataDir: string): DevnetRecord {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(readFileSync(join(dataDir, RECORD_FILE), "utf8")) as Record<string, unknown>;
  } catch {
    return {};
  }
  if (typeof value !== "object" || value === null) return {};
  const token = address(value.token);
  const chainId = count(value.chainId);
  const verifiers = verifiersOf(value.verifiers);
  const endpoints = endpointsOf(value.endpoints);
  return {
    ...(chainId === undefined || token === undefined ? {} : { chainId, token }),
    ...(verifiers === undefined ? {} : { verifiers }),
    ...(endpoints === undefined ? {} : { endpoints }),
  };
}

/** Replaces the given parts of the record, keeping the others. */
export function updateRecord(dataDir: string, parts: DevnetRecord): DevnetRecord {
  const next = { ...readRecord(dataDir), ...parts };
  writeFileSync(join(dataDir, RECORD_FILE), `${JSON.stringify(next, null, 2)}\n`);
  return next;
}
