import { describe, expect, it } from "vitest";
import fc from "fast-check";
import v8 from "node:v8";
import vm from "node:vm";
import zlib from "node:zlib";
import { bytesEqual, fromHex } from "../../chain/index.js";
import { DroppedInputError } from "../errors.js";
import { encodeFrames, parseFrames } from "../frames/frame.js";
import { channelToFrames } from "../frames/frame.js";
import { FrameQueue } from "../frames/frame-queue.js";
import { ChannelAssembler, MAX_RLP_BYTES_PER_CHANNEL } from "./assembler.js";
import { compressChannel, encodeBatchItems } from "./encoder.js";
import { type CompressionAlgo, decompressLenient, readBatchItems, readChannel } from "./reader.js";
import { BATCHER_DECOMPRESSED_SIZE, batcherPayload } from "./test/fixtures.js";
import {
  KONA_BROTLI_BATCH_COMPRESSED,
  KONA_BROTLI_BATCH_DECOMPRESSED,
  KONA_BROTLI_SMALL,
} from "./test/kona-brotli-vectors.js";

function realChannel(): Uint8Array {
  return parseFrames(batcherPayload())[0]!.data;
}

function batch(type: number, length: number, seed: number): Uint8Array {
  const b = new Uint8Array(length);
  b[0] = type;
  for (let i = 1; i < length; i++) b[i] = (seed * 31 + i * 7) & 0xff;
  return b;
}

function sameBatches(a: Uint8Array[], b: Uint8Array[]): boolean {
  return a.length === b.length && a.every((x, i) => bytesEqual(x, b[i]!));
}

describe("readChannel on the real OP Mainnet batcher data", () => {
  it("inflates the unterminated zlib stream leniently to 240,308 bytes holding one span batch", () => {
    const r = readChannel(realChannel());
    expect(r.compression).toBe("zlib");
    expect(r.decompressedSize).toBe(BATCHER_DECOMPRESSED_SIZE);
    expect(r.stops).toEqual([]);
    expect(r.batches).toHaveLength(1);
    expect(r.batches[0]![0]).toBe(1); // span batch type
    // The item fills the output exactly (string header of 4 bytes: 0xba + 3 length bytes).
    expect(r.batches[0]!.length).toBe(BATCHER_DECOMPRESSED_SIZE - 4);
  });

  it("a strict inflate refuses that stream: leniency is what reads it", () => {
    expect(() => zlib.inflateSync(realChannel())).toThrow();
  });

  it("a truncated channel yields the decompressed prefix and no partial batch", () => {
    const full = readChannel(realChannel());
    const cut = readChannel(realChannel().subarray(0, 60_000));
    expect(cut.decompressedSize).toBeGreaterThan(0);
    expect(cut.decompressedSize).toBeLessThan(full.decompressedSize);
    expect(cut.batches).toEqual([]);
    expect(cut.stops).toEqual([{ reason: "truncated-item", offset: 0, end: BATCHER_DECOMPRESSED_SIZE }]);
  });
});

describe("kona's brotli vectors", () => {
  it("decompresses the small vector", () => {
    const { output, stop } = decompressLenient("brotli", fromHex(KONA_BROTLI_SMALL.compressed));
    expect(stop).toBeUndefined();
    expect(bytesEqual(output, fromHex(KONA_BROTLI_SMALL.decompressed))).toBe(true);
  });

  it("reads the batch vector as a brotli channel (version byte 0x01) into one singular batch", () => {
    const compressed = fromHex(KONA_BROTLI_BATCH_COMPRESSED);
    const expected = fromHex(KONA_BROTLI_BATCH_DECOMPRESSED);
    const channel = new Uint8Array(compressed.length + 1);
    channel[0] = 0x01;
    channel.set(compressed, 1);
    const r = readChannel(channel);
    expect(r.compression).toBe("brotli");
    expect(r.decompressedSize).toBe(expected.length);
    expect(r.stops).toEqual([]);
    expect(r.batches).toHaveLength(1);
    // The vector is one RLP string: 0xb9 + two length bytes, then the batch (type 0x00 = singular).
    expect(bytesEqual(r.batches[0]!, expected.subarray(3))).toBe(true);
    expect(r.batches[0]![0]).toBe(0);
  });
});

describe("compression byte", () => {
  it("drops a channel whose first byte is neither zlib nor brotli", () => {
    for (const first of [0x00, 0x02, 0x7a, 0x10, 0xf1]) {
      try {
        readChannel(Uint8Array.of(first, 1, 2, 3));
        throw new Error("expected a drop");
      } catch (e) {
        expect(e).toBeInstanceOf(DroppedInputError);
        expect((e as DroppedInputError).stage).toBe("channel");
        expect((e as DroppedInputError).details).toMatchObject({
          reason: "unknown-compression",
          offset: 0,
          end: 1,
        });
      }
    }
    expect(() => readChannel(new Uint8Array(0))).toThrow(DroppedInputError);
  });

  it("selects zlib for low nibble 15 too, whose stream then fails: no batch", () => {
    const r = readChannel(Uint8Array.of(0x7f, 0x01, 0x02));
    expect(r.compression).toBe("zlib");
    expect(r.batches).toEqual([]);
    expect(r.stops[0]?.reason).toBe("corrupt-stream");
  });
});

describe("lenient decompression", () => {
  const batches = Array.from({ length: 40 }, (_, i) => batch(i % 2, 50 + ((i * 37) % 400), i));

  for (const algo of ["zlib", "brotli"] as CompressionAlgo[]) {
    it(`${algo}: compressChannel then readChannel gives the batches back`, () => {
      const r = readChannel(compressChannel(batches, algo));
      expect(r.compression).toBe(algo);
      expect(r.stops).toEqual([]);
      expect(sameBatches(r.batches, batches)).toBe(true);
    });
  }

  it("zlib: a bad checksum still yields every batch, and the failure is reported at the checksum", () => {
    const ch = compressChannel(batches, "zlib");
    ch[ch.length - 1]! ^= 0x01;
    const r = readChannel(ch);
    expect(sameBatches(r.batches, batches)).toBe(true);
    expect(r.stops).toEqual([{ reason: "corrupt-stream", offset: ch.length - 1 }]);
  });

  it("zlib: corruption mid-stream yields the batches decoded before it", () => {
    // Stored blocks make the corruption point exact: level 0 writes the items verbatim.
    const many = Array.from({ length: 400 }, (_, i) => batch(i % 2, 50 + ((i * 37) % 400), i));
    const raw = encodeBatchItems(many);
    const ch = new Uint8Array(zlib.deflateSync(raw, { level: 0 }));
    // Break the header of the second stored block (its LEN/NLEN check fails).
    const firstBlockLen = ch[3]! | (ch[4]! << 8);
    const secondHeader = 2 + 5 + firstBlockLen;
    if (secondHeader + 5 < ch.length) {
      ch[secondHeader + 1]! ^= 0xff;
      const r = readChannel(ch);
      // LEN is checked against NLEN once both are in: the failure shows at NLEN's last byte.
      expect(r.stops[0]).toEqual({ reason: "corrupt-stream", offset: secondHeader + 4 });
      expect(r.decompressedSize).toBe(firstBlockLen);
      expect(r.batches.length).toBeGreaterThan(0);
      expect(sameBatches(r.batches, many.slice(0, r.batches.length))).toBe(true);
    } else {
      // One stored block holds everything (not expected for these sizes).
      expect.unreachable("the test data should span several stored blocks");
    }
  });

  it("cuts the output at the cap: batches wholly inside count, the one across it does not", () => {
    const items = Array.from({ length: 10 }, (_, i) => batch(1, 100, i)); // 102 bytes each encoded
    const r = readChannel(compressChannel(items, "zlib"), { maxOutput: 550 });
    expect(r.decompressedSize).toBe(550);
    expect(sameBatches(r.batches, items.slice(0, 5))).toBe(true);
    expect(r.stops).toEqual([
      { reason: "output-cap", offset: 550 },
      { reason: "truncated-item", offset: 510, end: 612 },
    ]);
    // Same with a corrupt checksum (the replay path) and with brotli.
    const bad = compressChannel(items, "zlib");
    bad[bad.length - 1]! ^= 0xff;
    expect(sameBatches(readChannel(bad, { maxOutput: 550 }).batches, items.slice(0, 5))).toBe(true);
    expect(
      sameBatches(
        readChannel(compressChannel(items, "brotli"), { maxOutput: 550 }).batches,
        items.slice(0, 5),
      ),
    ).toBe(true);
  });

  it("cuts at MAX_RLP_BYTES_PER_CHANNEL (100,000,000 bytes) without decompressing the rest", () => {
    // 60 items of 1,999,996 bytes (4-byte headers: 2,000,000 encoded each): 50 fit exactly in the cap.
    const item = new Uint8Array(1_999_996);
    item[0] = 1;
    const raw = new Uint8Array(60 * 2_000_000);
    for (let i = 0; i < 60; i++) {
      raw.set([0xba, 0x1e, 0x84, 0x7c], i * 2_000_000);
      raw.set(item, i * 2_000_000 + 4);
    }
    const ch = new Uint8Array(zlib.deflateSync(raw, { level: 1 }));
    const r = readChannel(ch);
    expect(r.decompressedSize).toBe(MAX_RLP_BYTES_PER_CHANNEL);
    expect(r.batches).toHaveLength(50);
    expect(r.stops).toEqual([{ reason: "output-cap", offset: MAX_RLP_BYTES_PER_CHANNEL }]);
  });
});

describe("lenient decompression: one whole-input decode, streaming only when it fails", () => {
  it("reads a large stream with a bad checksum in three passes (whole input, streaming, the failing chunk replayed), not by bisection", () => {
    // About 10 MB of output: the bisection inflated it about 20 times to find the failing byte.
    const raw = encodeBatchItems(Array.from({ length: 40 }, (_, i) => batch(1, 250_000, i)));
    const ch = new Uint8Array(zlib.deflateSync(raw, { level: 1 }));
    ch[ch.length - 1]! ^= 0xff;
    const r = decompressLenient("zlib", ch);
    expect(r.passes).toBe(3);
    expect(r.stop).toEqual({ reason: "corrupt-stream", offset: ch.length - 1 });
    expect(bytesEqual(r.output, raw)).toBe(true);
  });

  it("reads a sound stream, the real truncated one and a capped one in one pass", () => {
    const items = Array.from({ length: 10 }, (_, i) => batch(1, 100, i));
    for (const algo of ["zlib", "brotli"] as CompressionAlgo[]) {
      const ch = compressChannel(items, algo);
      expect(decompressLenient(algo, ch.subarray(algo === "brotli" ? 1 : 0)).passes).toBe(1);
    }
    const real = decompressLenient("zlib", realChannel());
    expect([real.passes, real.output.length, real.stop]).toEqual([1, BATCHER_DECOMPRESSED_SIZE, undefined]);
    const capped = decompressLenient("zlib", compressChannel(items, "zlib"), 550);
    expect([capped.passes, capped.output.length, capped.stop]).toEqual([
      1,
      550,
      { reason: "output-cap", offset: 550 },
    ]);
  });

  it("streams an output far past the cap and its margin in two passes, stopping at the cap", () => {
    // 20 MB of zeros in about 20 KB: the whole-input decode passes cap and margin and fails; the streaming
    // pass (each 4 KiB of input yields at most about 4 MB, within the margin) stops once past the cap.
    const bomb = new Uint8Array(zlib.deflateSync(new Uint8Array(20_000_000)));
    const r = decompressLenient("zlib", bomb, 5_000_000);
    expect([r.passes, r.output.length, r.stop]).toEqual([
      2,
      5_000_000,
      { reason: "output-cap", offset: 5_000_000 },
    ]);
    expect(r.output.every((x) => x === 0)).toBe(true);
  });
});

describe("reading many channels in one synchronous stretch", () => {
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc") as () => void;
  const bufferBytes = (): number => {
    gc();
    return process.memoryUsage().arrayBuffers;
  };

  it("keeps no channel's output alive once read, sound or corrupt (closed streams linger until the next tick)", () => {
    const sound = realChannel();
    // The same batch in a terminated zlib stream whose checksum is wrong: it fails at its last byte.
    const corrupt = compressChannel(readChannel(sound).batches, "zlib");
    corrupt[corrupt.length - 1]! ^= 0xff;
    expect(readChannel(corrupt).stops[0]).toEqual({ reason: "corrupt-stream", offset: corrupt.length - 1 });
    const before = bufferBytes();
    // No await in the loop: nothing scheduled for the next tick runs before the measurement.
    for (let i = 0; i < 200; i++) {
      expect(readChannel(sound).decompressedSize).toBe(BATCHER_DECOMPRESSED_SIZE);
      readChannel(corrupt);
    }
    // 200 reads of 240,308 bytes each: about 48 MB if each read's output were kept.
    expect(bufferBytes() - before).toBeLessThan(16 * 1024 * 1024);
  });
});

/**
 * The oracle: a streaming decoder fed one byte at a time, flushed after each, stopped at its first error.
 * That is what a streaming reader (op-node's) has seen when it fails; the lenient reader must yield the same.
 */
async function streamOneByteAtATime(algo: CompressionAlgo, input: Uint8Array): Promise<Uint8Array> {
  const dec = algo === "zlib" ? zlib.createInflate() : zlib.createBrotliDecompress();
  const flushKind = algo === "zlib" ? zlib.constants.Z_SYNC_FLUSH : zlib.constants.BROTLI_OPERATION_FLUSH;
  const chunks: Buffer[] = [];
  let failed = false;
  dec.on("data", (d: Buffer) => chunks.push(d));
  dec.on("error", () => (failed = true));
  for (let i = 0; i < input.length && !failed; i++) {
    dec.write(input.subarray(i, i + 1));
    await new Promise<void>((resolve) => {
      dec.flush(flushKind, () => resolve());
      dec.once("error", () => resolve());
    });
  }
  dec.destroy();
  return new Uint8Array(Buffer.concat(chunks));
}

describe("lenient decompression equals a byte-at-a-time streaming decoder on corrupted channels", () => {
  for (const algo of ["zlib", "brotli"] as CompressionAlgo[]) {
    it(algo, async () => {
      let seed = 11;
      const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
      let nonEmpty = 0;
      for (let c = 0; c < 12; c++) {
        const items = Array.from({ length: 1 + (rnd() % 6) }, (_, i) =>
          batch(i % 2, 2 + (rnd() % 300), rnd()),
        );
        const ch = compressChannel(items, algo, { level: 1 + (c % 9) });
        const stream = ch.subarray(algo === "brotli" ? 1 : 0);
        for (let k = 0; k < 1 + (c % 3); k++) stream[rnd() % stream.length]! ^= 1 + (rnd() % 255);
        const expected = await streamOneByteAtATime(algo, stream);
        const { output } = decompressLenient(algo, stream);
        expect(bytesEqual(output, expected)).toBe(true);
        if (output.length > 0) nonEmpty++;
      }
      expect(nonEmpty).toBeGreaterThan(3);
    });
  }
});

describe("readBatchItems (RLP strings, go-ethereum's canonical rules)", () => {
  it("reads short and long strings", () => {
    const long = batch(1, 300, 1);
    const r = readBatchItems(encodeBatchItems([Uint8Array.of(0, 0x99), long]));
    expect(r.stop).toBeUndefined();
    expect(r.batches).toEqual([Uint8Array.of(0, 0x99), long]);
  });

  const cases: [string, number[], string][] = [
    ["a list", [0xc1, 0x80], "invalid-item"],
    ["a one-byte item", [0x01], "invalid-item"],
    ["an empty string", [0x80], "invalid-item"],
    ["a single byte below 0x80 in string form", [0x81, 0x05], "invalid-item"],
    ["a long form for a short string", [0xb8, 0x05, 1, 2, 3, 4, 5], "invalid-item"],
    ["a leading zero in the size", [0xb9, 0x00, 0x40, ...new Array<number>(64).fill(1)], "invalid-item"],
    ["a string past the end", [0x83, 0x01, 0x02], "truncated-item"],
    ["a size past the end", [0xb9, 0x01], "truncated-item"],
  ];
  for (const [name, bytes, reason] of cases) {
    it(`stops at ${name}, keeping the batches before`, () => {
      const trailer = reason === "truncated-item" ? [] : [0x82, 0x00, 0x02];
      const data = Uint8Array.from([0x82, 0x00, 0x01, ...bytes, ...trailer]);
      const r = readBatchItems(data);
      expect(r.batches).toEqual([Uint8Array.of(0x00, 0x01)]);
      expect(r.stop).toMatchObject({ reason, offset: 3 });
    });
  }
});

describe("property tests", () => {
  const arbBatches = fc.array(
    fc.tuple(fc.constantFrom(0, 1), fc.uint8Array({ minLength: 1, maxLength: 400 })).map(([t, body]) => {
      const b = new Uint8Array(body.length + 1);
      b[0] = t;
      b.set(body, 1);
      return b;
    }),
    { minLength: 1, maxLength: 12 },
  );

  it("compress → frame → payload → parse → queue → assemble → read round-trips, zlib and brotli", () => {
    fc.assert(
      fc.property(
        arbBatches,
        fc.constantFrom<CompressionAlgo>("zlib", "brotli"),
        fc.integer({ min: 1, max: 500 }),
        (batches, algo, frameSize) => {
          const id = new Uint8Array(16).fill(0x5a);
          const frames = channelToFrames(id, compressChannel(batches, algo, { level: 1 }), frameSize);
          const queue = new FrameQueue();
          for (let i = 0; i < frames.length; i += 3)
            queue.push(parseFrames(encodeFrames(frames.slice(i, i + 3))), BigInt(Math.min(i, 50)));
          const asm = new ChannelAssembler();
          let ready;
          for (let q = queue.next(); q !== undefined; q = queue.next())
            ready = asm.addFrame(q.frame, q.l1BlockNumber) ?? ready;
          expect(ready).toBeDefined();
          const r = readChannel(ready!.data);
          expect(r.stops).toEqual([]);
          expect(sameBatches(r.batches, batches)).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("corrupted channels never crash, and the batches decoded before the corruption are the ones sent", () => {
    fc.assert(
      fc.property(
        arbBatches,
        fc.constantFrom<CompressionAlgo>("zlib", "brotli"),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (batches, algo, at, xor) => {
          const ch = compressChannel(batches, algo, { level: 1 });
          const pos = at % ch.length;
          const bad = Uint8Array.from(ch);
          bad[pos]! ^= xor;
          let r;
          try {
            r = readChannel(bad);
          } catch (e) {
            // Only a changed compression byte drops the channel.
            expect(e).toBeInstanceOf(DroppedInputError);
            expect(pos).toBe(0);
            return;
          }
          expect(r.decompressedSize).toBeLessThanOrEqual(MAX_RLP_BYTES_PER_CHANNEL);
          // The output of the bytes before the corrupted one is the same in both channels: every batch
          // wholly inside it must come out unchanged.
          const skip = algo === "brotli" ? 1 : 0;
          const before = pos < skip ? 0 : decompressLenient(algo, ch.subarray(skip, pos)).output.length;
          let end = 0;
          let intact = 0;
          for (const b of batches) {
            end += encodeBatchItems([b]).length;
            if (end > before) break;
            intact++;
          }
          expect(r.batches.length).toBeGreaterThanOrEqual(intact);
          expect(sameBatches(r.batches.slice(0, intact), batches.slice(0, intact))).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
