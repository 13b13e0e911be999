/** The spec loaders reject malformed or inconsistent specs instead of generating wrong code. */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { JournalSpecError, parseJournalLayout } from "../journal-spec.js";
import { parseProtocolSpec, ProtocolSpecError } from "../protocol-spec.js";

interface ProtocolJson {
  types: Record<string, unknown>;
  frame: Record<string, unknown>;
}
interface JournalJson {
  elements: unknown[];
}

const protocolJson = JSON.parse(
  await readFile(new URL("../../../spec/protocol/enclave.protocol.json", import.meta.url), "utf8"),
) as ProtocolJson;
const journalJson = JSON.parse(
  await readFile(new URL("../../../spec/journal/journal.layout.json", import.meta.url), "utf8"),
) as JournalJson;

function withTypes(types: Record<string, unknown>): unknown {
  return { ...protocolJson, types: { ...protocolJson.types, ...types } };
}

describe("protocol spec loader", () => {
  it("accepts the committed spec", () => {
    const spec = parseProtocolSpec(protocolJson);
    expect(spec.forms.map((form) => form.name)).toEqual(["spec", "base"]);
    expect([...spec.types.keys()]).toEqual([
      "B256",
      "Address",
      "Bytes",
      "PreimageKeyType",
      "PreimageKey",
      "Preimage",
      "Proposal",
      "ProofResult",
      "Request",
      "Response",
    ]);
    expect(spec.frame).toMatchObject({
      lengthPrefixBytes: 4,
      maxWriteChunkBytes: 28672,
      readTimeoutMs: 300000,
    });
  });

  it("rejects unknown type names, recursion, unsupported arrays and bad kinds", () => {
    const struct = (type: unknown) => ({ kind: "struct", doc: "x", fields: [{ name: "f", type }] });
    expect(() => parseProtocolSpec(withTypes({ X: struct("Nope") }))).toThrow(/unknown type Nope/);
    expect(() => parseProtocolSpec(withTypes({ X: struct("X") }))).toThrow(/recursive type/);
    expect(() =>
      parseProtocolSpec(withTypes({ X: struct({ kind: "array", of: "u64", length: 2 }) })),
    ).toThrow(/only arrays of u8/);
    expect(() => parseProtocolSpec(withTypes({ X: { kind: "union", doc: "x" } }))).toThrow(ProtocolSpecError);
    expect(() => parseProtocolSpec(withTypes({ u8: { kind: "bytes", doc: "x" } }))).toThrow(
      /shadows a primitive/,
    );
    expect(() =>
      parseProtocolSpec(
        withTypes({ E: { kind: "enum", doc: "x", variants: [{ name: "A" }, { name: "A" }] } }),
      ),
    ).toThrow(/duplicate variant names/);
  });

  it("rejects a taggedBytes type whose tag cannot be its first byte", () => {
    const tagged = (tag: string, length = 32) => ({ K: { kind: "taggedBytes", length, tag, doc: "x" } });
    const variants = (...list: unknown[]) => ({ kind: "enum", doc: "x", variants: list });
    expect(parseProtocolSpec(withTypes(tagged("PreimageKeyType"))).types.get("K")).toMatchObject({
      kind: "taggedBytes",
      length: 32,
      tag: "PreimageKeyType",
    });
    expect(() => parseProtocolSpec(withTypes(tagged("Nope")))).toThrow(/Nope is not an enum/);
    expect(() => parseProtocolSpec(withTypes(tagged("Bytes")))).toThrow(/Bytes is not an enum/);
    expect(() => parseProtocolSpec(withTypes(tagged("PreimageKeyType", 1)))).toThrow(/at least one more/);
    expect(() =>
      parseProtocolSpec(
        withTypes({ ...tagged("T"), T: variants({ name: "A", discriminant: 1 }, { name: "B" }) }),
      ),
    ).toThrow(/needs a discriminant of at most 255/);
    expect(() =>
      parseProtocolSpec(withTypes({ ...tagged("T"), T: variants({ name: "A", discriminant: 256 }) })),
    ).toThrow(/needs a discriminant of at most 255/);
    expect(() =>
      parseProtocolSpec(
        withTypes({
          ...tagged("T"),
          T: variants({ name: "A", discriminant: 2 }, { name: "B", discriminant: 2 }),
        }),
      ),
    ).toThrow(/not distinct/);
    expect(() => parseProtocolSpec(withTypes({ ...tagged("ProofResult") }))).toThrow(/unit variants only/);
  });

  it("rejects frame settings the generated code cannot honour", () => {
    const frame = (patch: Record<string, unknown>) => ({
      ...protocolJson,
      frame: { ...protocolJson.frame, ...patch },
    });
    expect(() => parseProtocolSpec(frame({ lengthPrefixBytes: 8 }))).toThrow(/only a 4-byte prefix/);
    expect(() => parseProtocolSpec(frame({ lengthPrefixEndianness: "little" }))).toThrow(/big-endian/);
    expect(() => parseProtocolSpec(frame({ maxRequestPayloadBytes: 2 ** 32 }))).toThrow(
      /4-byte prefix can announce/,
    );
    expect(() => parseProtocolSpec(frame({ requestMessage: "Proposal" }))).toThrow(/must be an enum/);
  });
});

describe("request/response pairing", () => {
  const requestType = protocolJson.types.Request as { variants: Record<string, unknown>[] };
  const withRequestVariants = (variants: Record<string, unknown>[]) =>
    withTypes({ Request: { ...requestType, variants } });

  it("every request variant names an existing response variant", () => {
    const [prove, key, attestation, image] = requestType.variants as [
      Record<string, unknown>,
      ...Record<string, unknown>[],
    ];
    const { response: _dropped, ...keyWithoutResponse } = key!;
    expect(() =>
      parseProtocolSpec(withRequestVariants([prove, keyWithoutResponse, attestation!, image!])),
    ).toThrow(/Request.SignerPublicKey: needs a response variant/);
    expect(() =>
      parseProtocolSpec(withRequestVariants([prove, { ...key, response: "Nope" }, attestation!, image!])),
    ).toThrow(/unknown response variant Nope/);
  });

  it("every form's wire indices are 0..n-1 once each; only named forms; none for the default form", () => {
    const [prove, key, attestation, image] = requestType.variants as Record<string, unknown>[];
    expect(() =>
      parseProtocolSpec(
        withRequestVariants([prove!, key!, attestation!, { ...image, indexIn: { base: 3 } }]),
      ),
    ).toThrow(/wire indices in form base are not 0..3, each once/);
    expect(() =>
      parseProtocolSpec(
        withRequestVariants([prove!, key!, attestation!, { ...image, indexIn: { rust: 2 } }]),
      ),
    ).toThrow(/unknown form rust/);
    expect(() =>
      parseProtocolSpec(
        withRequestVariants([prove!, key!, { ...attestation, indexIn: { spec: 3 } }, image!]),
      ),
    ).toThrow(/the default form spec takes the declaration order/);
    const proposal = protocolJson.types.Proposal as { fields: Record<string, unknown>[] };
    expect(() =>
      parseProtocolSpec(
        withTypes({
          Proposal: { ...proposal, fields: [...proposal.fields, { name: "x", type: "u8", forms: ["zk"] }] },
        }),
      ),
    ).toThrow(/types.Proposal.x.forms: unknown form zk/);
  });

  it("the error response must carry one string", () => {
    const frame = { ...protocolJson.frame, errorResponse: "SignerPublicKey" };
    expect(() => parseProtocolSpec({ ...protocolJson, frame })).toThrow(
      /must be a Response variant with one string/,
    );
  });
});

describe("journal layout loader", () => {
  it("accepts the committed layout: nine elements, 196 fixed bytes", () => {
    const layout = parseJournalLayout(journalJson);
    expect(layout.elements.map((e) => e.name)).toEqual([
      "proposer",
      "l1OriginHash",
      "prevOutputRoot",
      "startingL2Block",
      "outputRoot",
      "endingL2Block",
      "intermediateRoots",
      "configHash",
      "teeImageHash",
    ]);
  });

  it("rejects two variable elements, little-endian integers and unknown kinds", () => {
    const elements = journalJson.elements;
    const extra = { name: "more", kind: "bytesList", itemLength: 32 };
    expect(() => parseJournalLayout({ ...journalJson, elements: [...elements, extra] })).toThrow(
      /at most one/,
    );
    expect(() =>
      parseJournalLayout({
        ...journalJson,
        elements: [{ name: "n", kind: "uint", bits: 64, endianness: "little" }],
      }),
    ).toThrow(JournalSpecError);
    expect(() => parseJournalLayout({ ...journalJson, elements: [{ name: "n", kind: "float" }] })).toThrow(
      /unknown kind/,
    );
  });
});
