/** Test support: the shared derivation fixtures (override the folder with DERIVE_FIXTURES_DIR). */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseTransaction } from "viem";
import { fromHex } from "../../../chain/index.js";

export const DERIVE_FIXTURES_DIR =
  process.env.DERIVE_FIXTURES_DIR ??
  resolve(dirname(fileURLToPath(import.meta.url)), "../../../../../shared/fixtures/derive");

/** The real OP Mainnet batcher transaction from kona's testdata (see the fixtures README). */
export const BATCHER_TX_PATH = join(DERIVE_FIXTURES_DIR, "op-mainnet-batcher-tx.bin");

export function batcherTx(): Uint8Array {
  return new Uint8Array(readFileSync(BATCHER_TX_PATH));
}

/** The calldata of the real batcher transaction: version byte 0 and one frame. */
export function batcherPayload(): Uint8Array {
  const tx = parseTransaction(`0x${Buffer.from(batcherTx()).toString("hex")}`);
  if (tx.data === undefined) throw new Error("batcher tx has no calldata");
  return fromHex(tx.data);
}

export const BATCHER_CHANNEL_ID = "ac329933f5efdcc35ccd284232a376d3";
export const BATCHER_FRAME_DATA_LENGTH = 119_799;
export const BATCHER_DECOMPRESSED_SIZE = 240_308;
