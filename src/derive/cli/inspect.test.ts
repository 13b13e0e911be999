import { afterAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nodeArgs } from "../../bundles/index.js";
import { toHex } from "../../chain/index.js";
import { compressChannel } from "../channel/encoder.js";
import { readChannel } from "../channel/reader.js";
import { BATCHER_TX_PATH, batcherPayload, batcherTx } from "../channel/test/fixtures.js";
import { channelToFrames, encodeFrames, parseFrames } from "../frames/frame.js";
import { decodeBatch, encodeBatch } from "../index.js";
import { detectKind, inspect } from "./inspect.js";

const dir = mkdtempSync(join(tmpdir(), "derive-inspect-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs("src/derive/cli/main.ts"), ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const TX_DATA_OFFSET = 51; // where the calldata starts in the transaction bytes

describe("npm run derive -- inspect (spawned)", () => {
  it("decodes the real OP Mainnet batcher transaction", async () => {
    const { code, stdout, stderr } = await runCli(["inspect", BATCHER_TX_PATH]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out.kind).toBe("tx");
    expect(out.tx).toMatchObject({ type: "eip1559", to: "0xff00000000000000000000000000000000000010" });
    expect(out.frames).toEqual([
      { channelId: "ac329933f5efdcc35ccd284232a376d3", number: 0, dataLength: 119_799, isLast: true },
    ]);
    expect(out.decompressedSize).toBe(240_308);
    expect(out.batches).toHaveLength(1);
    const [b] = out.batches;
    expect(b).toMatchObject({ type: "span", blockCount: 27, txCount: 209, l1OriginNum: 19_426_585 });
    expect(b.txTypes).toEqual({ eip1559: 173, legacy: 36 });
    expect(b.txCountsPerBlock).toHaveLength(27);
    expect(b.txCountsPerBlock.reduce((a: number, x: number) => a + x, 0)).toBe(209);
    expect(b.parentCheck).toMatch(/^0x[0-9a-f]{40}$/);
    expect(b.l1OriginCheck).toMatch(/^0x[0-9a-f]{40}$/);
    expect(typeof b.relTimestamp).toBe("number");
    expect(out.problem).toBeUndefined();
  });

  it("exits 1 on a corrupted copy, naming the invalid byte range", async () => {
    const tx = batcherTx();
    // is_last of the only frame (the last calldata byte; the signature follows it) set to 2.
    const payload = batcherPayload();
    const isLastAt = TX_DATA_OFFSET + payload.length - 1;
    expect(tx[isLastAt]).toBe(1);
    tx[isLastAt] = 2;
    const file = join(dir, "corrupt-is-last.bin");
    writeFileSync(file, tx);
    const { code, stdout, stderr } = await runCli(["inspect", file]);
    expect(code).toBe(1);
    expect(stderr).toContain(`[${isLastAt}, ${isLastAt + 1})`);
    expect(stderr).toContain("is_last");
    expect(JSON.parse(stdout).problem).toMatchObject({
      stage: "frames",
      offset: isLastAt,
      end: isLastAt + 1,
    });
  });

  it("exits 1 when a corrupted channel yields an undecodable batch, with its decompressed range", async () => {
    const tx = batcherTx();
    tx[200]! ^= 0x55;
    const file = join(dir, "corrupt-channel.hex");
    writeFileSync(file, `${toHex(tx)}\n`);
    const { code, stdout, stderr } = await runCli(["inspect", file]);
    expect(code).toBe(1);
    const out = JSON.parse(stdout);
    expect(out.frames).toHaveLength(1);
    expect(out.problem.stage).toBe("batches");
    expect(out.problem.where).toBe("decompressed");
    expect(stderr).toMatch(/decompressed bytes of channel 0 \[\d+, \d+\)/);
  });

  it("prints help and refuses bad usage", async () => {
    const [help, bad] = await Promise.all([
      runCli(["--help"]),
      runCli(["inspect", BATCHER_TX_PATH, "--as", "nonsense"]),
    ]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--as tx|frames|channel|batch");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--as takes one of");
  });
});

describe("inspect (in process)", () => {
  const channel = parseFrames(batcherPayload())[0]!.data;

  it("reads the payload, the channel and the batch alone, detected or named", () => {
    const payload = batcherPayload();
    expect(detectKind(payload)).toBe("frames");
    expect(inspect(payload).batches[0]).toMatchObject({ blockCount: 27, txCount: 209 });
    expect(detectKind(channel)).toBe("channel");
    const viaChannel = inspect(channel);
    expect(viaChannel.decompressedSize).toBe(240_308);
    expect(viaChannel.frames).toEqual([]);
    const batchBytes = encodeBatch(decodeBatch(extractBatch()));
    const viaBatch = inspect(batchBytes, "batch");
    expect(viaBatch.problem).toBeUndefined();
    expect(viaBatch.batches[0]).toMatchObject({ type: "span", blockCount: 27, l1OriginNum: 19_426_585 });
  });

  it("follows a brotli channel split over several frames", () => {
    const batch = extractBatch();
    const ch = compressChannel([batch], "brotli");
    const frames = channelToFrames(new Uint8Array(16).fill(9), ch, 10_000);
    expect(frames.length).toBeGreaterThan(1);
    const r = inspect(encodeFrames(frames));
    expect(r.problem).toBeUndefined();
    expect(r.channels).toEqual([
      {
        channelId: "09".repeat(16),
        compression: "brotli",
        compressedSize: ch.length,
        decompressedSize: 240_308,
        batchCount: 1,
      },
    ]);
    expect(r.batches[0]).toMatchObject({ blockCount: 27, txCount: 209 });
  });

  it("maps a corrupt stream in a later frame back to the input byte", () => {
    const ch = compressChannel([extractBatch()], "zlib");
    const frames = channelToFrames(new Uint8Array(16).fill(3), ch, 20_000);
    const payload = encodeFrames(frames);
    // Corrupt the zlib checksum: the last 4 bytes of the last frame's data (the frame ends with is_last).
    const at = payload.length - 2;
    payload[at]! ^= 0xff;
    const r = inspect(payload);
    expect(r.batches).toHaveLength(1);
    expect(r.problem).toMatchObject({ stage: "channel", where: "input", offset: at, end: at + 1 });
  });

  it("reports an incomplete channel without failing", () => {
    const frames = channelToFrames(new Uint8Array(16).fill(4), channel, 50_000);
    const r = inspect(encodeFrames(frames.slice(0, 2)));
    expect(r.problem).toBeUndefined();
    expect(r.incompleteChannels).toEqual(["04".repeat(16)]);
    expect(r.batches).toEqual([]);
  });

  function extractBatch(): Uint8Array {
    const r = readChannel(channel);
    expect(r.batches).toHaveLength(1);
    return r.batches[0]!;
  }
});
