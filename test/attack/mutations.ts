/**
 * Mutations of the honest Prove request: byte-level edits aimed at one field class at a time (so the cheap
 * structural fields are hit as often as the bulk of blob bytes), and single-field edits (counts, lengths, key type
 * tags on the wire, a 32-byte key's type byte or one of its data bytes re-encoded by the codec, swapped / dropped / duplicated / reordered preimages, boot information values, extra preimages, length
 * prefixes). Deterministic from a seed: `mutationAt(i, rng)` is the i-th mutation of a run; the kinds are visited
 * in a fixed order (PERIOD) so every kind appears in a short run too.
 */
import {
  type Preimage,
  PREIMAGE_KEY_TYPE_DISCRIMINANTS,
  PREIMAGE_KEY_TYPE_VARIANTS,
} from "../../generated/protocol/index.js";
import {
  BootKey,
  bootPreimageKey,
  keccak256PreimageKey,
  preimageKeyOf,
  sha256PreimageKey,
} from "../../src/proof/preimages/index.js";
import type { FrameLengthPrefix } from "../../src/proof/transport/index.js";
import {
  concat,
  encodeEntry,
  entryBytes,
  frameOf,
  honestProve,
  provePayload,
  type EntryLayout,
  type ProveLayout,
} from "./prove-frame.js";

export interface Mutation {
  /** What was changed, e.g. "flip byte: blob value" or "boot: claimed block + 1". */
  readonly kind: string;
  readonly frame: Uint8Array;
  /** The frame's length-prefix form (the honest answer to compare against is the one of this form). */
  readonly prefix: FrameLengthPrefix;
  /** Half-close after writing: the frame announces more than is sent, and the enclave must see end of input. */
  readonly endInput: boolean;
}

/** A small seeded PRNG (mulberry32): runs are reproducible from `--seed`. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(below: number): number {
    return Math.floor(this.next() * below);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  bytes(length: number): Uint8Array {
    return Uint8Array.from({ length }, () => this.int(256));
  }
}

type FieldClass =
  | "variant tag"
  | "count"
  | "key bytes"
  | "key type tag"
  | "value length"
  | "local value"
  | "keccak256 value"
  | "sha256 value"
  | "blob value";

const VALUE_CLASS: Readonly<Record<string, FieldClass>> = {
  Local: "local value",
  Keccak256: "keccak256 value",
  Sha256: "sha256 value",
  Blob: "blob value",
};

/** A random byte offset inside one field class of the honest payload. */
function offsetIn(layout: ProveLayout, field: FieldClass, rng: Rng): number {
  const entry = (filter: (e: EntryLayout) => boolean): EntryLayout => {
    const candidates = layout.entries.filter(filter);
    return rng.pick(candidates.length > 0 ? candidates : layout.entries);
  };
  switch (field) {
    case "variant tag":
      return 0;
    case "count":
      return layout.countAt + rng.int(layout.entriesAt - layout.countAt);
    case "key bytes": {
      const e = rng.pick(layout.entries);
      return e.start + rng.int(31);
    }
    case "key type tag":
      return rng.pick(layout.entries).typeAt;
    case "value length": {
      const e = rng.pick(layout.entries);
      return e.lengthAt + rng.int(e.valueAt - e.lengthAt);
    }
    default: {
      const e = entry((x) => VALUE_CLASS[x.keyType] === field && x.end > x.valueAt);
      return e.end > e.valueAt ? e.valueAt + rng.int(e.end - e.valueAt) : e.lengthAt;
    }
  }
}

const FIELD_CLASSES: readonly FieldClass[] = [
  "variant tag",
  "count",
  "key bytes",
  "key type tag",
  "value length",
  "local value",
  "keccak256 value",
  "sha256 value",
  "blob value",
];

const u64be = (n: bigint): Uint8Array => {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt.asUintN(64, n), false);
  return out;
};

const readU64be = (bytes: Uint8Array): bigint =>
  new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, false);

/** A payload-level mutation, framed honestly in `prefix`. */
type PayloadMutator = (layout: ProveLayout, rng: Rng) => { kind: string; payload: Uint8Array };

/** The honest payload with the entries replaced (the count follows them unless given). */
function withEntries(entries: readonly Uint8Array[], count?: bigint): Uint8Array {
  return provePayload(count ?? BigInt(entries.length), entries);
}

function bootIndexOf(layout: ProveLayout, index: number): number {
  return layout.entries.findIndex((e) => e.localIndex === index);
}

/** The honest entries with the value under boot index `index` replaced. */
function withBoot(layout: ProveLayout, index: number, value: Uint8Array | undefined): Uint8Array {
  const entries = entryBytes(layout);
  const at = bootIndexOf(layout, index);
  const replacement = value === undefined ? [] : [encodeEntry([bootPreimageKey(index), value])];
  if (at < 0) return withEntries([...entries, ...replacement]);
  return withEntries([...entries.slice(0, at), ...replacement, ...entries.slice(at + 1)]);
}

const BOOT_NAMES = Object.fromEntries(Object.entries(BootKey).map(([name, index]) => [index, name]));

/** Numeric boot fields (u64 big-endian values) and the values worth trying in them. */
const NUMERIC_BOOT = [
  BootKey.ClaimedL2BlockNumber,
  BootKey.L2ChainId,
  BootKey.IntermediateBlockInterval,
  BootKey.L1HeadNumber,
] as const;

const extraPreimage = (rng: Rng): { kind: string; preimage: Preimage } => {
  const value = rng.bytes(1 + rng.int(64));
  return rng.pick([
    { kind: "extra: unused keccak256 preimage", preimage: [keccak256PreimageKey(value), value] as Preimage },
    { kind: "extra: unused sha256 preimage", preimage: [sha256PreimageKey(value), value] as Preimage },
    {
      kind: "extra: GlobalGeneric key",
      preimage: [preimageKeyOf("GlobalGeneric", rng.bytes(31)), value] as Preimage,
    },
    {
      kind: "extra: Precompile key",
      preimage: [preimageKeyOf("Precompile", rng.bytes(31)), value] as Preimage,
    },
    {
      kind: "extra: unknown local index",
      preimage: [bootPreimageKey(12 + rng.int(1000)), value] as Preimage,
    },
    { kind: "extra: local index 0", preimage: [bootPreimageKey(0), value] as Preimage },
    {
      kind: "extra: keccak256 key over other content",
      preimage: [keccak256PreimageKey(value), rng.bytes(value.length)] as Preimage,
    },
  ]);
};

const PAYLOAD_MUTATORS: readonly PayloadMutator[] = [
  // Byte-level, aimed at one field class.
  (layout, rng) => {
    const field = rng.pick(FIELD_CLASSES);
    const payload = layout.payload.slice();
    const at = offsetIn(layout, field, rng);
    payload[at] = payload[at]! ^ (1 + rng.int(255));
    return { kind: `flip byte: ${field}`, payload };
  },
  (layout, rng) => {
    const field = rng.pick(FIELD_CLASSES);
    const payload = layout.payload.slice();
    const value = rng.pick([0x00, 0xff, 0xfb, 0xfc, 0xfd, 0xfe]);
    const at = offsetIn(layout, field, rng);
    if (payload[at] === value) payload[at] = value ^ 1;
    else payload[at] = value;
    return { kind: `set byte: ${field}`, payload };
  },
  (layout, rng) => ({
    kind: "truncate payload",
    payload: layout.payload.slice(0, rng.int(layout.payload.length)),
  }),
  (layout, rng) => ({
    kind: "extend payload",
    payload: concat([layout.payload, rng.bytes(1 + rng.int(64))]),
  }),
  (layout, rng) => {
    const at = offsetIn(layout, rng.pick(FIELD_CLASSES), rng);
    return {
      kind: "insert byte",
      payload: concat([layout.payload.subarray(0, at), rng.bytes(1), layout.payload.subarray(at)]),
    };
  },
  (layout, rng) => {
    const at = offsetIn(layout, rng.pick(FIELD_CLASSES), rng);
    return {
      kind: "delete byte",
      payload: concat([layout.payload.subarray(0, at), layout.payload.subarray(at + 1)]),
    };
  },
  // Single fields.
  (layout, rng) => {
    const n = BigInt(layout.entries.length);
    const [name, count] = rng.pick([
      ["count - 1", n - 1n],
      ["count + 1", n + 1n],
      ["count 0", 0n],
      ["count x 2", n * 2n],
      ["count at the table cap (2^21)", 1n << 21n],
      ["count past the table cap", (1n << 21n) + 1n],
      ["count past the codec cap", 4_194_305n],
      ["count u64 max", (1n << 64n) - 1n],
    ] as const);
    return { kind: `count: ${name}`, payload: withEntries(entryBytes(layout), count) };
  },
  (layout, rng) => {
    const at = rng.int(layout.entries.length);
    const e = layout.entries[at]!;
    const length = BigInt(e.end - e.valueAt);
    const [name, announced] = rng.pick([
      ["- 1", length - 1n],
      ["+ 1", length + 1n],
      ["0", 0n],
      ["u32 max", 0xffff_ffffn],
      ["u64 max", (1n << 64n) - 1n],
    ] as const);
    const entries = entryBytes(layout);
    const header = layout.payload.subarray(e.start, e.lengthAt);
    const value = layout.payload.subarray(e.valueAt, e.end);
    entries[at] = concat([header, varintBytes(announced < 0n ? 1n : announced), value]);
    return { kind: `value length: ${name}`, payload: withEntries(entries) };
  },
  (layout, rng) => {
    const at = rng.int(layout.entries.length);
    const e = layout.entries[at]!;
    const choice = rng.int(3);
    if (choice === 0) {
      // On the wire: the key type's variant index after the key's data bytes, valid or not.
      const payload = layout.payload.slice();
      const tag = rng.pick([0, 1, 2, 3, 4, 5, 6, 250]);
      payload[e.typeAt] = tag === payload[e.typeAt] ? 6 : tag;
      return { kind: `key type: ${e.keyType} -> tag ${payload[e.typeAt]}`, payload };
    }
    // The 32-byte key itself (type byte first), re-encoded by the codec: another valid type, or one data byte.
    const [honestKey, value] = layout.preimages[at]!;
    const key = honestKey.slice();
    let kind: string;
    if (choice === 1) {
      const type = rng.pick(PREIMAGE_KEY_TYPE_VARIANTS.filter((t) => t !== e.keyType));
      key[0] = PREIMAGE_KEY_TYPE_DISCRIMINANTS[type];
      kind = `key type byte: ${e.keyType} -> ${type}`;
    } else {
      const i = 1 + rng.int(31);
      key[i] = key[i]! ^ (1 + rng.int(255));
      kind = `key data byte: ${e.keyType}`;
    }
    const entries = entryBytes(layout);
    entries[at] = encodeEntry([key, value]);
    return { kind, payload: withEntries(entries) };
  },
  (layout, rng) => {
    // Swap two preimages' values (each key now names the other's content).
    const entries = entryBytes(layout);
    const a = rng.int(layout.entries.length);
    let b = rng.int(layout.entries.length);
    if (b === a) b = (a + 1) % layout.entries.length;
    const ea = layout.entries[a]!;
    const eb = layout.entries[b]!;
    const key = (e: EntryLayout) => layout.payload.subarray(e.start, e.lengthAt);
    const rest = (e: EntryLayout) => layout.payload.subarray(e.lengthAt, e.end);
    entries[a] = concat([key(ea), rest(eb)]);
    entries[b] = concat([key(eb), rest(ea)]);
    return { kind: `swap values: ${ea.keyType} / ${eb.keyType}`, payload: withEntries(entries) };
  },
  (layout, rng) => {
    const entries = entryBytes(layout);
    const at = rng.int(entries.length);
    return {
      kind: `drop preimage: ${layout.entries[at]!.keyType}`,
      payload: withEntries([...entries.slice(0, at), ...entries.slice(at + 1)]),
    };
  },
  (layout, rng) => {
    const entries = entryBytes(layout);
    const at = rng.int(entries.length);
    return {
      kind: `duplicate preimage: ${layout.entries[at]!.keyType}`,
      payload: withEntries([...entries, entries[at]!]),
    };
  },
  (layout, rng) => {
    const entries = entryBytes(layout);
    const a = rng.int(entries.length);
    const b = rng.int(entries.length);
    [entries[a], entries[b]] = [entries[b]!, entries[a]!];
    return { kind: "reorder preimages", payload: withEntries(entries) };
  },
  (layout, rng) => {
    const index = rng.pick([1, 2, 3, 4, 5, 8, 9, 10]);
    const at = bootIndexOf(layout, index);
    const value = layout.preimages[at]?.[1] ?? new Uint8Array(32);
    const name = BOOT_NAMES[index] ?? String(index);
    const choice = rng.int(5);
    if (choice === 0) {
      const flipped = value.slice();
      const i = rng.int(Math.max(1, flipped.length));
      if (flipped.length > 0) flipped[i] = flipped[i]! ^ (1 + rng.int(255));
      return { kind: `boot ${name}: flip a byte`, payload: withBoot(layout, index, flipped) };
    }
    if (choice === 1) return { kind: `boot ${name}: missing`, payload: withBoot(layout, index, undefined) };
    if (choice === 2)
      return {
        kind: `boot ${name}: one byte longer`,
        payload: withBoot(layout, index, concat([value, Uint8Array.of(0)])),
      };
    if (choice === 3)
      return { kind: `boot ${name}: one byte shorter`, payload: withBoot(layout, index, value.slice(1)) };
    return { kind: `boot ${name}: empty`, payload: withBoot(layout, index, new Uint8Array(0)) };
  },
  (layout, rng) => {
    const index = rng.pick(NUMERIC_BOOT);
    const at = bootIndexOf(layout, index);
    const honest = readU64be(layout.preimages[at]![1]);
    const name = BOOT_NAMES[index] ?? String(index);
    const [what, value] = rng.pick([
      ["+ 1", honest + 1n],
      ["- 1", honest - 1n],
      ["0", 0n],
      ["u64 max", (1n << 64n) - 1n],
      ["2^53", 1n << 53n],
      ["x 2", honest * 2n],
      ["8453 (Base)", 8453n],
    ] as const);
    return { kind: `boot ${name}: ${what}`, payload: withBoot(layout, index, u64be(value)) };
  },
  (layout, rng) => {
    const proposer = rng.bytes(20);
    return {
      kind: "boot Proposer: another address",
      payload: withBoot(layout, BootKey.Proposer, proposer),
    };
  },
  (layout, rng) => {
    // A swapped root: the claimed root where the agreed one belongs, or the other way around.
    const agreed = layout.preimages[bootIndexOf(layout, BootKey.AgreedOutputRoot)]![1];
    const claimed = layout.preimages[bootIndexOf(layout, BootKey.ClaimedOutputRoot)]![1];
    return rng.int(2) === 0
      ? {
          kind: "boot: claimed root = agreed root",
          payload: withBoot(layout, BootKey.ClaimedOutputRoot, agreed),
        }
      : {
          kind: "boot: agreed root = claimed root",
          payload: withBoot(layout, BootKey.AgreedOutputRoot, claimed),
        };
  },
  (layout, rng) => {
    const { kind, preimage } = extraPreimage(rng);
    return { kind, payload: withEntries([...entryBytes(layout), encodeEntry(preimage)]) };
  },
  (layout, rng) => ({
    kind: "boot ScheduleL2BlockNumber: added",
    payload: withBoot(layout, BootKey.ScheduleL2BlockNumber, u64be(BigInt(rng.int(100)))),
  }),
];

function varintBytes(value: bigint): Uint8Array {
  return provePayload(value, []).subarray(1);
}

/** Mutations of the length prefix itself (the payload stays honest). */
const PREFIX_MUTATORS: readonly ((layout: ProveLayout, rng: Rng) => Mutation)[] = [
  (layout) => ({
    kind: "prefix: announces 1 byte more, then end of input",
    frame: frameOf(layout.payload, 4, BigInt(layout.payload.length + 1)),
    prefix: 4,
    endInput: true,
  }),
  (layout) => ({
    kind: "prefix: announces 1 byte less",
    frame: frameOf(layout.payload, 4, BigInt(layout.payload.length - 1)),
    prefix: 4,
    endInput: true,
  }),
  (layout, rng) => ({
    kind: "prefix: 8-byte form announcing 2^32 + length",
    frame: frameOf(layout.payload, 8, (1n << 32n) + BigInt(rng.int(layout.payload.length))),
    prefix: 8,
    endInput: true,
  }),
  (layout) => ({
    kind: "prefix: zero length",
    frame: frameOf(layout.payload, 4, 0n),
    prefix: 4,
    endInput: true,
  }),
  (layout, rng) => ({
    kind: "frame: cut short, then end of input",
    frame: frameOf(layout.payload, 4).subarray(0, 1 + rng.int(layout.payload.length + 3)),
    prefix: 4,
    endInput: true,
  }),
];

/**
 * The order the mutators are visited in, by index into PAYLOAD_MUTATORS then PREFIX_MUTATORS: the byte-level ones
 * three times a round; the ones that leave the request provable (swapped equal values, duplicates, reordering,
 * another proposer, an added schedule block: each runs the whole program, ~10x a refusal's cost) once every
 * fourth round.
 */
const ROUND: readonly number[] = [
  0, 1, 2, 3, 4, 5, 0, 1, 6, 7, 8, 10, 13, 14, 0, 1, 16, 17, 19, 20, 21, 22, 23,
];
const PROVABLE: readonly number[] = [9, 11, 12, 15, 18];
const PERIOD: readonly number[] = [...ROUND, ...PROVABLE, ...ROUND, ...ROUND, ...ROUND];

/**
 * The i-th mutation of a run (PERIOD order), payload mutations framed in the 4-byte form, in every fifth pass
 * through the period in the 8-byte form (Base's message form).
 */
export function mutationAt(i: number, rng: Rng, layout: ProveLayout = honestProve()): Mutation {
  const which = PERIOD[i % PERIOD.length]!;
  if (which >= PAYLOAD_MUTATORS.length) return PREFIX_MUTATORS[which - PAYLOAD_MUTATORS.length]!(layout, rng);
  const { kind, payload } = PAYLOAD_MUTATORS[which]!(layout, rng);
  const prefix: FrameLengthPrefix = i % 5 === 4 ? 8 : 4;
  return { kind, frame: frameOf(payload, prefix), prefix, endInput: false };
}
