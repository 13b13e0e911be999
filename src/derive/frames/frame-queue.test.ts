import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { DroppedInputError } from "../errors.js";
import type { Frame } from "./frame.js";
import { FrameQueue, pruneFrames } from "./frame-queue.js";

/** Frame `number` of channel `id` (a one-byte tag repeated); data tags the frame for identity checks. */
function f(id: number, number: number, isLast = false, tag = 0): Frame {
  return { channelId: new Uint8Array(16).fill(id), number, data: Uint8Array.of(id, number, tag), isLast };
}

function prune(frames: Frame[]): { kept: string[]; drops: string[] } {
  const drops: string[] = [];
  const kept = pruneFrames(
    frames.map((frame) => ({ frame })),
    (e: DroppedInputError) => drops.push(String(e.details.reason)),
  ).map(({ frame }) => label(frame));
  return { kept, drops };
}

function label(fr: Frame): string {
  return `${fr.channelId[0]!.toString(16)}:${fr.number}${fr.isLast ? "L" : ""}${fr.data[2] ? `#${fr.data[2]}` : ""}`;
}

/**
 * The reference model: op-node's pruneFrameQueue (op-node/rollup/derive/frame_queue.go), pairwise over an
 * index with removal in place, written out here as a test oracle.
 */
function opNodePrune(input: Frame[]): Frame[] {
  const frames = [...input];
  const same = (a: Frame, b: Frame) => a.channelId.every((x, i) => x === b.channelId[i]);
  for (let i = 0; i < frames.length - 1;) {
    const current = frames[i]!;
    const next = frames[i + 1]!;
    if (same(current, next)) {
      if (current.isLast || next.number !== current.number + 1) {
        frames.splice(i + 1, 1);
        continue;
      }
    } else {
      if (next.number === 0 && !current.isLast) {
        frames.splice(i, 1);
        if (i > 0) i--;
        continue;
      }
      if (next.number !== 0) {
        frames.splice(i + 1, 1);
        continue;
      }
    }
    i++;
  }
  return frames;
}

describe("Holocene frame pruning", () => {
  it("keeps an ordered channel", () => {
    expect(prune([f(0xa, 0), f(0xa, 1), f(0xa, 2, true)]).kept).toEqual(["a:0", "a:1", "a:2L"]);
  });

  it("drops a frame that follows the last frame of its channel", () => {
    const r = prune([f(0xa, 0), f(0xa, 1, true), f(0xa, 2), f(0xb, 0, true)]);
    expect(r.kept).toEqual(["a:0", "a:1L", "b:0L"]);
    expect(r.drops).toEqual(["frame-after-last"]);
  });

  it("drops frames out of order within a channel", () => {
    const r = prune([f(0xa, 0), f(0xa, 1), f(0xa, 3, true), f(0xa, 4)]);
    expect(r.kept).toEqual(["a:0", "a:1"]);
    expect(r.drops).toEqual(["frame-out-of-order", "frame-out-of-order"]);
  });

  it("drops a duplicate frame 0 of the same channel", () => {
    expect(prune([f(0xa, 0), f(0xa, 0, true)]).kept).toEqual(["a:0"]);
  });

  it("drops the frames of an unclosed channel when frame 0 of another follows", () => {
    const r = prune([f(0xa, 0), f(0xa, 1), f(0xa, 2), f(0xb, 0), f(0xb, 1, true)]);
    expect(r.kept).toEqual(["b:0", "b:1L"]);
    expect(r.drops).toEqual([
      "unclosed-channel-replaced",
      "unclosed-channel-replaced",
      "unclosed-channel-replaced",
    ]);
  });

  it("drops non-first frames of a channel that has not started", () => {
    const r = prune([f(0xd, 0), f(0xd, 1, true), f(0xe, 1), f(0xe, 2, true), f(0xf, 0), f(0xf, 1, true)]);
    expect(r.kept).toEqual(["d:0", "d:1L", "f:0", "f:1L"]);
    expect(r.drops).toEqual(["non-first-frame-of-new-channel", "non-first-frame-of-new-channel"]);
  });

  it("keeps a single non-first frame (ordering across transactions is the assembler's job)", () => {
    expect(prune([f(0xa, 1, true)]).kept).toEqual(["a:1L"]);
  });

  it("does not over-drain on a reused channel id (kona's range drain removes the earlier closed channels too)", () => {
    // X closes, Y closes, X is reused and left open, then Z starts: only the open X frame goes.
    const r = prune([f(0x1, 0, true, 1), f(0x2, 0, true), f(0x1, 0, false, 2), f(0x3, 0, true)]);
    expect(r.kept).toEqual(["1:0L#1", "2:0L", "3:0L"]);
    expect(r.drops).toEqual(["unclosed-channel-replaced"]);
  });

  it("walks back pairwise over several unclosed frames after a reused id", () => {
    const r = prune([f(0x1, 0, true, 1), f(0x1, 0, false, 2), f(0x1, 1), f(0x2, 0, true)]);
    // 1:0L then 1:0 (same id after last: dropped), 1:1 (follows 1:0L: dropped), then 2:0L.
    expect(r.kept).toEqual(["1:0L#1", "2:0L"]);
  });

  it("matches op-node's pruning on random frame sequences", () => {
    const arbFrame = fc
      .record({
        id: fc.integer({ min: 1, max: 3 }),
        number: fc.integer({ min: 0, max: 3 }),
        isLast: fc.boolean(),
      })
      .map(({ id, number, isLast }) => ({ id, number, isLast }));
    fc.assert(
      fc.property(fc.array(arbFrame, { maxLength: 14 }), (specs) => {
        const frames = specs.map((s, i) => f(s.id, s.number, s.isLast, i + 1));
        const ours = pruneFrames(frames.map((frame) => ({ frame }))).map(({ frame }) => label(frame));
        expect(ours).toEqual(opNodePrune(frames).map(label));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("FrameQueue", () => {
  it("hands out frames in order with their L1 block, pruning within each transaction only", () => {
    const q = new FrameQueue();
    q.push([f(0xa, 0), f(0xa, 1)], 10n);
    // A later transaction's frame 0 of another channel does not prune the earlier transaction's frames.
    q.push([f(0xb, 0, true)], 11n);
    q.push([f(0xc, 2), f(0xc, 3, true)], 12n);
    expect(q.length).toBe(5);
    const out: string[] = [];
    for (let item = q.next(); item !== undefined; item = q.next())
      out.push(`${label(item.frame)}@${item.l1BlockNumber}`);
    expect(out).toEqual(["a:0@10", "a:1@10", "b:0L@11", "c:2@12", "c:3L@12"]);
    expect(q.length).toBe(0);
    expect(q.next()).toBeUndefined();
  });

  it("reports pruned frames and clears", () => {
    const drops: DroppedInputError[] = [];
    const q = new FrameQueue({ onDrop: (e) => drops.push(e) });
    q.push([f(0xa, 0), f(0xb, 0, true)], 1n);
    expect(drops.map((d) => [d.stage, d.details.reason, d.details.frameNumber])).toEqual([
      ["frames", "unclosed-channel-replaced", 0],
    ]);
    expect(q.length).toBe(1);
    q.clear();
    expect(q.next()).toBeUndefined();
    q.push([], 2n);
    expect(q.length).toBe(0);
  });
});
