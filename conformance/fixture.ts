/**
 * The recorded devnet witness (docs/conformance.md "The recorded witness"): a Prove witness collected by the
 * host's witness collector on a short range of a real L1-backed devnet, checked in under conformance/fixtures/
 * with that chain's rollup.json and a manifest. Written by conformance/record-witness.ts
 * (`npm run conformance:record`); the suite uses it as its control by default.
 *
 * Files:
 * - `devnet-witness.json.gz`: gzip'd JSON in the `--witness` format, `{"preimages":[{"key","value"}]}`;
 * - `devnet-rollup.json`: the chain's rollup config (the enclave under test takes it as `--rollup-config`);
 * - `devnet-witness.manifest.json`: `RecordedManifest` below.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import type { Preimage } from "../generated/protocol/index.js";
import { parseRollupConfig, type RollupConfig } from "../src/chain/index.js";
import { parseWitnessJson } from "./witness.js";

export const FIXTURE_DIR = fileURLToPath(new URL("./fixtures/", import.meta.url));
export const FIXTURE_WITNESS_PATH = `${FIXTURE_DIR}devnet-witness.json.gz`;
export const FIXTURE_ROLLUP_PATH = `${FIXTURE_DIR}devnet-rollup.json`;
export const FIXTURE_MANIFEST_PATH = `${FIXTURE_DIR}devnet-witness.manifest.json`;
/** Bumped when the files' layout changes; the fixture test refuses a manifest of another format. */
export const FIXTURE_FORMAT = 1;

/** The manifest: what was recorded and what a correct prover must produce for it (hex strings, decimal numbers). */
export interface RecordedManifest {
  readonly format: number;
  readonly recordedAt: string;
  readonly command: string;
  readonly witness: string;
  readonly rollupConfig: string;
  readonly dataAvailability: "blobs" | "calldata";
  /** The boot information the witness's local keys carry. */
  readonly boot: {
    readonly l1Head: string;
    readonly l1HeadNumber: number;
    readonly agreedOutputRoot: string;
    readonly claimedOutputRoot: string;
    readonly claimedL2BlockNumber: number;
    readonly chainId: string;
    readonly proposer: string;
    readonly intermediateBlockInterval: number;
  };
  readonly agreedL2HeadHash: string;
  /** The agreed block: the range is (startBlock, claimedL2BlockNumber]. */
  readonly startBlock: number;
  /** optimism_outputAtBlock of every block of the range, in order (the per-block proposals' roots). */
  readonly outputRoots: readonly string[];
  /** What the range holds: user transactions and deposits, by L2 block. */
  readonly contents: {
    readonly userTransactions: readonly { readonly block: number; readonly hash: string }[];
    readonly deposits: readonly { readonly block: number; readonly hash: string }[];
  };
  readonly preimageCount: number;
  /** Preimages per key type. */
  readonly keyTypes: Readonly<Record<string, number>>;
}

export interface RecordedWitness {
  readonly preimages: Preimage[];
  readonly manifest: RecordedManifest;
  readonly rollupConfig: RollupConfig;
}

let cached: RecordedWitness | undefined;

/** The checked-in recording (read once per process). */
export function recordedWitness(): RecordedWitness {
  cached ??= {
    preimages: parseWitnessJson(
      gunzipSync(readFileSync(FIXTURE_WITNESS_PATH)).toString("utf8"),
      FIXTURE_WITNESS_PATH,
    ),
    manifest: JSON.parse(readFileSync(FIXTURE_MANIFEST_PATH, "utf8")) as RecordedManifest,
    rollupConfig: parseRollupConfig(JSON.parse(readFileSync(FIXTURE_ROLLUP_PATH, "utf8"))),
  };
  return cached;
}
