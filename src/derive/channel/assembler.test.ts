import { describe, expect, it } from "vitest";
import type { DroppedInputError } from "../errors.js";
import type { Frame } from "../frames/frame.js";
import { MAX_FRAME_DATA_LENGTH } from "../frames/frame.js";
import { CHANNEL_TIMEOUT_GRANITE, ChannelAssembler, MAX_RLP_BYTES_PER_CHANNEL } from "./assembler.js";

function f(id: number, number: number, data: number[] | Uint8Array, isLast = false): Frame {
  return {
    channelId: new Uint8Array(16).fill(id),
    number,
    data: data instanceof Uint8Array ? data : Uint8Array.from(data),
    isLast,
  };
}

function assembler(): { a: ChannelAssembler; drops: string[] } {
  const drops: string[] = [];
  const a = new ChannelAssembler({
    onDrop: (e: DroppedInputError) => {
      expect(e.stage).toBe("channel");
      drops.push(String(e.details.reason));
    },
  });
  return { a, drops };
}

describe("ChannelAssembler", () => {
  it("assembles frames in order into the channel, with its open and close blocks", () => {
    const { a, drops } = assembler();
    expect(a.addFrame(f(1, 0, [1, 2]), 100n)).toBeUndefined();
    expect(a.stagingChannel).toMatchObject({ openBlockNumber: 100n, frameCount: 1, size: 202 });
    expect(a.addFrame(f(1, 1, [3]), 101n)).toBeUndefined();
    const ready = a.addFrame(f(1, 2, [4, 5], true), 103n);
    expect(ready).toEqual({
      channelId: new Uint8Array(16).fill(1),
      data: Uint8Array.of(1, 2, 3, 4, 5),
      openBlockNumber: 100n,
      closeBlockNumber: 103n,
    });
    expect(a.stagingChannel).toBeUndefined();
    expect(drops).toEqual([]);
  });

  it("a single last frame 0 is a whole channel", () => {
    const { a } = assembler();
    expect(a.addFrame(f(1, 0, [9], true), 5n)?.data).toEqual(Uint8Array.of(9));
  });

  it("times out a channel opened more than 50 L1 blocks before the current one", () => {
    expect(CHANNEL_TIMEOUT_GRANITE).toBe(50n);
    const { a, drops } = assembler();
    a.addFrame(f(1, 0, [1]), 100n);
    // Block 150 = open + 50: still in time.
    expect(a.addFrame(f(1, 1, [2], true), 150n)?.data).toEqual(Uint8Array.of(1, 2));

    a.addFrame(f(2, 0, [1]), 200n);
    // Block 251 = open + 51: the channel is gone and its last frame has no channel to join.
    expect(a.addFrame(f(2, 1, [2], true), 251n)).toBeUndefined();
    expect(drops).toEqual(["channel-timed-out", "no-staging-channel"]);
  });

  it("times out on checkTimeout when the origin moves on without frames", () => {
    const { a, drops } = assembler();
    a.addFrame(f(1, 0, [1]), 10n);
    a.checkTimeout(60n);
    expect(a.stagingChannel).toBeDefined();
    a.checkTimeout(61n);
    expect(a.stagingChannel).toBeUndefined();
    expect(drops).toEqual(["channel-timed-out"]);
  });

  it("a frame 0 replaces the staging channel, even with the same id", () => {
    const { a, drops } = assembler();
    a.addFrame(f(1, 0, [1]), 1n);
    a.addFrame(f(2, 0, [2]), 2n);
    expect(a.addFrame(f(1, 1, [3], true), 3n)).toBeUndefined();
    expect(a.addFrame(f(2, 1, [4], true), 3n)?.data).toEqual(Uint8Array.of(2, 4));
    a.addFrame(f(3, 0, [5]), 4n);
    a.addFrame(f(3, 0, [6]), 4n);
    expect(a.addFrame(f(3, 1, [7], true), 4n)?.data).toEqual(Uint8Array.of(6, 7));
    expect(drops).toEqual(["channel-replaced", "wrong-channel", "channel-replaced"]);
  });

  it("drops frames out of order, duplicates and non-first frames without a channel", () => {
    const { a, drops } = assembler();
    expect(a.addFrame(f(1, 1, [1], true), 1n)).toBeUndefined();
    a.addFrame(f(1, 0, [1]), 1n);
    expect(a.addFrame(f(1, 2, [3], true), 1n)).toBeUndefined();
    expect(a.addFrame(f(1, 1, [2]), 1n)).toBeUndefined();
    expect(a.addFrame(f(1, 1, [2]), 1n)).toBeUndefined();
    expect(a.addFrame(f(1, 2, [3], true), 2n)?.data).toEqual(Uint8Array.of(1, 2, 3));
    // The channel is complete: a late frame of the same id has no channel to join.
    expect(a.addFrame(f(1, 3, [4], true), 2n)).toBeUndefined();
    expect(drops).toEqual([
      "no-staging-channel",
      "frame-out-of-order",
      "frame-out-of-order",
      "no-staging-channel",
    ]);
  });

  it("drops a channel whose frames exceed MAX_RLP_BYTES_PER_CHANNEL (data_len + 200 each)", () => {
    expect(MAX_RLP_BYTES_PER_CHANNEL).toBe(100_000_000);
    const data = new Uint8Array(MAX_FRAME_DATA_LENGTH);
    // 99 full frames: 99 × 1,000,200 = 99,019,800 bytes, under the limit.
    const { a, drops } = assembler();
    for (let i = 0; i < 99; i++) a.addFrame(f(1, i, data), 1n);
    expect(a.stagingChannel?.size).toBe(99_019_800);
    // The 100th takes it to 100,020,000: dropped.
    expect(a.addFrame(f(1, 99, data, true), 1n)).toBeUndefined();
    expect(a.stagingChannel).toBeUndefined();
    expect(drops).toEqual(["channel-too-large"]);
  });

  it("the size limit counts 200 bytes per frame", () => {
    const small = new ChannelAssembler({ maxChannelSize: 3 * 200 + 9 });
    small.addFrame(f(1, 0, [1, 2, 3]), 1n);
    small.addFrame(f(1, 1, [4, 5, 6]), 1n);
    expect(small.addFrame(f(1, 2, [7, 8, 9], true), 1n)?.data.length).toBe(9);
    small.addFrame(f(1, 0, [1, 2, 3]), 1n);
    small.addFrame(f(1, 1, [4, 5, 6]), 1n);
    expect(small.addFrame(f(1, 2, [7, 8, 9, 10], true), 1n)).toBeUndefined();
    small.addFrame(f(1, 0, [1]), 1n);
    small.reset();
    expect(small.stagingChannel).toBeUndefined();
  });
});
