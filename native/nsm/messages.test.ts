import { describe, expect, it } from "vitest";
import {
  decodeNsmResponse,
  encodeNsmRequest,
  NsmRequestEncodeError,
  NsmResponseDecodeError,
} from "./messages.js";

/** Hex with spaces and comments allowed: "a1 # map(1)" style, as CBOR diagnostics are written. */
function hex(text: string): Uint8Array {
  const digits = text
    .split("\n")
    .map((line) => line.replace(/#.*$/, ""))
    .join("")
    .replace(/\s+/g, "");
  return Uint8Array.from(Buffer.from(digits, "hex"));
}

function ascii(text: string): string {
  return Buffer.from(text, "ascii").toString("hex");
}

function filled(length: number, first: number): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (first + i) & 0xff);
}

function hexOf(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex");
}

describe("NSM request encoding (serde externally tagged enums in CBOR)", () => {
  it("GetRandom is the text string itself (the byte vector in the Linux driver's nsm.c)", () => {
    expect(encodeNsmRequest({ kind: "GetRandom" })).toEqual(hex("69 47657452616e646f6d"));
  });

  it("DescribePCR { index } is a one-entry map to the field map", () => {
    expect(encodeNsmRequest({ kind: "DescribePCR", index: 0 })).toEqual(
      hex(`
        a1                              # map(1)
          6b ${ascii("DescribePCR")}    # text(11)
          a1                            # map(1)
            65 ${ascii("index")}        # text(5)
            00                          # unsigned(0)
      `),
    );
    expect(encodeNsmRequest({ kind: "DescribePCR", index: 16 })).toEqual(
      hex(`a1 6b ${ascii("DescribePCR")} a1 65 ${ascii("index")} 10`),
    );
    expect(encodeNsmRequest({ kind: "DescribePCR", index: 300 })).toEqual(
      hex(`a1 6b ${ascii("DescribePCR")} a1 65 ${ascii("index")} 19 012c`),
    );
  });

  it("Attestation keeps the declaration order user_data, nonce, public_key; None is null", () => {
    const publicKey = filled(65, 4);
    expect(encodeNsmRequest({ kind: "Attestation", userData: hex("0102"), nonce: null, publicKey })).toEqual(
      hex(`
        a1                                  # map(1)
          6b ${ascii("Attestation")}        # text(11)
          a3                                # map(3)
            69 ${ascii("user_data")}        # text(9)
            42 0102                         # bytes(2)
            65 ${ascii("nonce")}            # text(5)
            f6                              # null
            6a ${ascii("public_key")}       # text(10)
            58 41 ${hexOf(publicKey)}       # bytes(65)
      `),
    );
    expect(encodeNsmRequest({ kind: "Attestation", userData: null, nonce: null, publicKey: null })).toEqual(
      hex(
        `a1 6b ${ascii("Attestation")} a3 69 ${ascii("user_data")} f6 65 ${ascii("nonce")} f6 6a ${ascii("public_key")} f6`,
      ),
    );
  });

  it("refuses a PCR index outside u16 and a request over the driver's 4096 bytes", () => {
    expect(() => encodeNsmRequest({ kind: "DescribePCR", index: 65536 })).toThrow(NsmRequestEncodeError);
    expect(() => encodeNsmRequest({ kind: "DescribePCR", index: -1 })).toThrow(NsmRequestEncodeError);
    expect(() => encodeNsmRequest({ kind: "DescribePCR", index: 1.5 })).toThrow(NsmRequestEncodeError);
    const big = new Uint8Array(4096);
    expect(() =>
      encodeNsmRequest({ kind: "Attestation", userData: big, nonce: null, publicKey: null }),
    ).toThrow(/at most 4096/);
    // 512 + 512 + 1024 (the module's documented input limits) fits.
    expect(
      encodeNsmRequest({
        kind: "Attestation",
        userData: new Uint8Array(512),
        nonce: new Uint8Array(512),
        publicKey: new Uint8Array(1024),
      }).length,
    ).toBeLessThanOrEqual(4096);
  });
});

describe("NSM response decoding", () => {
  it("GetRandom { random } (the response prefix the Linux driver's hwrng code matches)", () => {
    const random = filled(32, 0x80);
    const response = decodeNsmResponse(
      hex(`a1 69 ${ascii("GetRandom")} a1 66 ${ascii("random")} 58 20 ${hexOf(random)}`),
    );
    expect(response).toEqual({ kind: "GetRandom", random });
  });

  it("DescribePCR { lock, data } with a 48-byte SHA-384 PCR", () => {
    const pcr = filled(48, 1);
    const response = decodeNsmResponse(
      hex(`
        a1 6b ${ascii("DescribePCR")}
          a2                            # map(2)
            64 ${ascii("lock")} f5      # true
            64 ${ascii("data")} 58 30 ${hexOf(pcr)}
      `),
    );
    expect(response).toEqual({ kind: "DescribePCR", lock: true, data: pcr });
  });

  it("Attestation { document } hands back the COSE_Sign1 bytes untouched", () => {
    const document = hex("d2 84 40 a0 40 40"); // tag 18, [h'', {}, h'', h'']
    expect(
      decodeNsmResponse(hex(`a1 6b ${ascii("Attestation")} a1 68 ${ascii("document")} 46 d28440a04040`)),
    ).toEqual({ kind: "Attestation", document });
  });

  it("Error(code) is a one-entry map to the code's name", () => {
    expect(decodeNsmResponse(hex(`a1 65 ${ascii("Error")} 6c ${ascii("InvalidIndex")}`))).toEqual({
      kind: "Error",
      code: "InvalidIndex",
    });
    expect(decodeNsmResponse(hex(`a1 65 ${ascii("Error")} 6d ${ascii("InternalError")}`))).toEqual({
      kind: "Error",
      code: "InternalError",
    });
  });

  it("rejects anything else with NsmResponseDecodeError", () => {
    const bad: [string, string][] = [
      ["empty", ""],
      ["not CBOR", "ff"],
      ["trailing bytes", `a1 65 ${ascii("Error")} 6c ${ascii("InvalidIndex")} 00`],
      ["truncated", `a1 69 ${ascii("GetRandom")} a1 66 ${ascii("random")} 58 20 0102`],
      ["unit variant", `67 ${ascii("LockPCR")}`],
      ["unsupported variant", `a1 69 ${ascii("ExtendPCR")} a1 64 ${ascii("data")} 41 00`],
      ["two variants", `a2 65 ${ascii("Error")} 6c ${ascii("InvalidIndex")} 69 ${ascii("GetRandom")} a0`],
      ["missing field", `a1 6b ${ascii("DescribePCR")} a1 64 ${ascii("data")} 41 00`],
      ["extra field", `a1 69 ${ascii("GetRandom")} a2 66 ${ascii("random")} 41 00 64 ${ascii("more")} 00`],
      [
        "duplicate field",
        `a1 69 ${ascii("GetRandom")} a2 66 ${ascii("random")} 41 00 66 ${ascii("random")} 41 01`,
      ],
      ["random as text", `a1 69 ${ascii("GetRandom")} a1 66 ${ascii("random")} 61 78`],
      ["lock as number", `a1 6b ${ascii("DescribePCR")} a2 64 ${ascii("lock")} 01 64 ${ascii("data")} 41 00`],
      ["unknown error code", `a1 65 ${ascii("Error")} 63 ${ascii("Bad")}`],
      ["fields as array", `a1 69 ${ascii("GetRandom")} 81 41 00`],
    ];
    for (const [what, bytes] of bad) {
      expect(() => decodeNsmResponse(hex(bytes)), what).toThrow(NsmResponseDecodeError);
    }
    expect(() => decodeNsmResponse(new Uint8Array(0x3001))).toThrow(/more than 12288/);
  });
});
