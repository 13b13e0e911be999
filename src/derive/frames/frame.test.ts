import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { bytesEqual, toHexRaw } from "../../chain/index.js";
import { DroppedInputError } from "../errors.js";
import { BATCHER_CHANNEL_ID, BATCHER_FRAME_DATA_LENGTH, batcherPayload } from "../channel/test/fixtures.js";
import {
  type Frame,
  MAX_FRAME_DATA_LENGTH,
  channelToFrames,
  encodeFrame,
  encodeFrames,
  parseFrames,
} from "./frame.js";

function frame(id: number, number: number, data: number[] | Uint8Array, isLast: boolean): Frame {
  return { channelId: new Uint8Array(16).fill(id), number, data: Uint8Array.from(data), isLast };
}

function droppedDetails(fn: () => unknown): Record<string, unknown> {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(DroppedInputError);
    const err = e as DroppedInputError;
    expect(err.stage).toBe("frames");
    expect(err.kind).toBe("dropped");
    return err.details as Record<string, unknown>;
  }
  throw new Error("expected a DroppedInputError");
}

describe("parseFrames on the real OP Mainnet batcher transaction", () => {
  it("finds one last frame of channel ac3299…, 119,799 data bytes", () => {
    const payload = batcherPayload();
    expect(payload.length).toBe(119_823);
    const frames = parseFrames(payload);
    expect(frames).toHaveLength(1);
    const [f] = frames;
    expect(toHexRaw(f!.channelId)).toBe(BATCHER_CHANNEL_ID);
    expect(f!.number).toBe(0);
    expect(f!.data.length).toBe(BATCHER_FRAME_DATA_LENGTH);
    expect(f!.isLast).toBe(true);
  });

  it("encodes back to the same bytes", () => {
    const payload = batcherPayload();
    expect(bytesEqual(encodeFrames(parseFrames(payload)), payload)).toBe(true);
  });

  it("drops the payload when is_last is 2 and names the byte", () => {
    const payload = batcherPayload();
    payload[payload.length - 1] = 2;
    const d = droppedDetails(() => parseFrames(payload));
    expect(d.reason).toBe("invalid-is-last");
    expect(d.offset).toBe(payload.length - 1);
    expect(d.end).toBe(payload.length);
  });
});

describe("parseFrames rules", () => {
  const a0 = frame(0xaa, 0, [1, 2, 3], false);
  const a1 = frame(0xaa, 1, [4], true);

  it("parses several frames of one payload", () => {
    const frames = parseFrames(encodeFrames([a0, a1]));
    expect(frames).toEqual([a0, a1]);
  });

  it("ignores a payload of another version", () => {
    const payload = encodeFrames([a0]);
    payload[0] = 1;
    const d = droppedDetails(() => parseFrames(payload));
    expect(d).toMatchObject({ reason: "unknown-version", offset: 0, end: 1, version: 1 });
  });

  it("refuses an empty payload and a payload with no frame", () => {
    expect(droppedDetails(() => parseFrames(new Uint8Array(0))).reason).toBe("empty-payload");
    expect(droppedDetails(() => parseFrames(Uint8Array.of(0))).reason).toBe("no-frames");
  });

  it("refuses is_last above 1 in a later frame: the whole payload is dropped", () => {
    const payload = encodeFrames([a0, a1]);
    const isLastAt = payload.length - 1;
    payload[isLastAt] = 0xff;
    const d = droppedDetails(() => parseFrames(payload));
    expect(d).toMatchObject({
      reason: "invalid-is-last",
      frameIndex: 1,
      offset: isLastAt,
      end: isLastAt + 1,
    });
  });

  it("refuses data_len above 1,000,000 and names the length field", () => {
    const big = new Uint8Array(1 + 23 + MAX_FRAME_DATA_LENGTH + 1);
    new DataView(big.buffer).setUint32(1 + 18, MAX_FRAME_DATA_LENGTH + 1);
    const d = droppedDetails(() => parseFrames(big));
    expect(d).toMatchObject({
      reason: "data-too-long",
      offset: 19,
      end: 23,
      dataLength: MAX_FRAME_DATA_LENGTH + 1,
    });
    // Exactly the maximum is fine.
    const ok = encodeFrames([frame(1, 0, new Uint8Array(MAX_FRAME_DATA_LENGTH), true)]);
    expect(parseFrames(ok)[0]!.data.length).toBe(MAX_FRAME_DATA_LENGTH);
  });

  it("drops the whole payload when bytes are left over after the frames", () => {
    const payload = encodeFrames([a0, a1]);
    const withTail = new Uint8Array(payload.length + 3);
    withTail.set(payload);
    const d = droppedDetails(() => parseFrames(withTail));
    expect(d).toMatchObject({
      reason: "truncated-frame",
      frameIndex: 2,
      offset: payload.length,
      end: withTail.length,
    });
  });

  it("drops a payload whose last frame is cut short", () => {
    const payload = encodeFrames([a0, a1]);
    const cut = payload.subarray(0, payload.length - 1);
    const d = droppedDetails(() => parseFrames(cut));
    expect(d).toMatchObject({ reason: "truncated-frame", frameIndex: 1 });
  });

  it("encodes one frame as its wire form", () => {
    expect(toHexRaw(encodeFrame(frame(0x11, 0x0102, [0xde, 0xad], true)))).toBe(
      "11".repeat(16) + "0102" + "00000002" + "dead" + "01",
    );
  });

  it("splits a channel into numbered frames, the last marked", () => {
    const id = new Uint8Array(16).fill(7);
    const channel = Uint8Array.from({ length: 25 }, (_, i) => i);
    const frames = channelToFrames(id, channel, 10);
    expect(frames.map((f) => [f.number, f.data.length, f.isLast])).toEqual([
      [0, 10, false],
      [1, 10, false],
      [2, 5, true],
    ]);
    expect(channelToFrames(id, new Uint8Array(0))).toEqual([
      { channelId: id, number: 0, data: new Uint8Array(0), isLast: true },
    ]);
    expect(() => channelToFrames(id, channel, 0)).toThrow(RangeError);
  });
});

const arbFrame: fc.Arbitrary<Frame> = fc.record({
  channelId: fc.uint8Array({ minLength: 16, maxLength: 16 }),
  number: fc.integer({ min: 0, max: 0xffff }),
  data: fc.uint8Array({ maxLength: 300 }),
  isLast: fc.boolean(),
});

describe("frames, property tests", () => {
  it("encode then parse gives the frames back", () => {
    fc.assert(
      fc.property(fc.array(arbFrame, { minLength: 1, maxLength: 8 }), (frames) => {
        expect(parseFrames(encodeFrames(frames))).toEqual(frames);
      }),
    );
  });

  it("corrupted payloads either parse into well-formed frames or are dropped with a range inside the payload", () => {
    fc.assert(
      fc.property(
        fc.array(arbFrame, { minLength: 1, maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }),
        fc.option(fc.nat(), { nil: undefined }),
        (frames, flips, cutAt) => {
          let payload = encodeFrames(frames);
          for (const [at, xor] of flips) payload[at % payload.length]! ^= xor;
          if (cutAt !== undefined) payload = payload.subarray(0, cutAt % (payload.length + 1));
          let parsed: Frame[];
          try {
            parsed = parseFrames(payload);
          } catch (e) {
            expect(e).toBeInstanceOf(DroppedInputError);
            const d = (e as DroppedInputError).details as { offset: number; end: number };
            expect(d.offset).toBeGreaterThanOrEqual(0);
            expect(d.end).toBeLessThanOrEqual(payload.length);
            expect(d.offset).toBeLessThanOrEqual(d.end);
            return;
          }
          // Whatever parsed re-encodes to exactly the payload: nothing was invented or skipped.
          expect(encodeFrames(parsed)).toEqual(payload);
        },
      ),
    );
  });
});
