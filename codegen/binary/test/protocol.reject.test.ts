/** Strict decoding: every malformed payload is a BincodeDecodeError, never a partial value or a big allocation. */
import { describe, expect, it } from "vitest";
import {
  BincodeDecodeError,
  BincodeEncodeError,
  decodeRequest,
  decodeResponse,
  encodeRequest,
  encodeResponse,
} from "../../../generated/protocol/index.js";
import { bytes, repeat } from "./hex.js";

function rejects(decode: (b: Uint8Array) => unknown, wire: Uint8Array, message: RegExp): void {
  let caught: unknown;
  try {
    decode(wire);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(BincodeDecodeError);
  expect((caught as Error).message).toMatch(message);
}

describe("decoder rejections", () => {
  it("an empty payload", () => rejects(decodeRequest, bytes(""), /truncated/));

  it("a truncated Prove request (at every cut)", () => {
    const full = bytes("00", "01", repeat("11", 31), "02", "03", "616263");
    for (let cut = 0; cut < full.length; cut++)
      rejects(decodeRequest, full.subarray(0, cut), /truncated|exceeds/);
  });

  it("trailing bytes after a complete message", () => {
    rejects(decodeRequest, bytes("01", "00"), /1 trailing bytes/);
    rejects(decodeResponse, bytes("03", "01", "61", "ffff"), /2 trailing bytes/);
  });

  it("unknown variant indices", () => {
    rejects(decodeRequest, bytes("05"), /Request: unknown variant index 5/);
    rejects(decodeResponse, bytes("06"), /Response: unknown variant index 6/);
    rejects((payload) => decodeRequest(payload, "base"), bytes("05"), /Request: unknown variant index 5/);
    rejects((payload) => decodeResponse(payload, "base"), bytes("06"), /Response: unknown variant index 6/);
    rejects(decodeResponse, bytes("00", "01"), /ProofResult: unknown variant index 1/);
    rejects(
      decodeRequest,
      bytes("00", "01", repeat("11", 31), "06", "00"),
      /PreimageKeyType: unknown variant index 6/,
    );
    rejects(decodeRequest, bytes("fc ffffffff"), /unknown variant index 4294967295/);
  });

  it("an oversized collection length is refused before anything is allocated", () => {
    // Prove with 2^64-1 preimages announced in a 10-byte payload.
    rejects(decodeRequest, bytes("00", "fd ffffffffffffffff", "00"), /length 18446744073709551615 exceeds/);
    // 2 preimages announced, room for one (each needs at least 33 bytes).
    rejects(decodeRequest, bytes("00", "02", repeat("11", 31), "02", "00", "00"), /exceeds/);
    // A 1000-byte value announced with 3 bytes left.
    rejects(
      decodeRequest,
      bytes("00", "01", repeat("11", 31), "02", "fb e803", "616263"),
      /length 1000 exceeds the 3 bytes left/,
    );
    // An attestation document announced at 4 GiB.
    rejects(decodeResponse, bytes("02", "fc ffffffff"), /exceeds/);
  });

  it("lengths over the spec's caps are refused before the remaining-bytes check", () => {
    // 4194305 preimages (0x400001): one over the cap of 2^22.
    rejects(
      decodeRequest,
      bytes("00", "fc 01004000"),
      /preimages: length 4194305 exceeds the cap of 4194304/,
    );
    // user_data of 513 bytes (0x0201), with the bytes present: still over the 512-byte cap.
    rejects(
      decodeRequest,
      bytes("02", "01", "fb 0102", repeat("00", 513), "00"),
      /user_data: length 513 exceeds the cap of 512/,
    );
    rejects(
      decodeRequest,
      bytes("02", "00", "01", "fb 0102", repeat("00", 513)),
      /nonce: length 513 exceeds the cap/,
    );
    // Exactly 512 is accepted.
    const ok = decodeRequest(bytes("02", "01", "fb 0002", repeat("ab", 512), "00"));
    expect(ok).toEqual({ kind: "SignerAttestation", user_data: new Uint8Array(512).fill(0xab), nonce: null });
  });

  it("varint overflow and non-canonical varints", () => {
    rejects(decodeRequest, bytes("fe", repeat("00", 16)), /u128 marker/);
    rejects(decodeRequest, bytes("fd 0100000000000000"), /64-bit value for a u32/);
    rejects(decodeRequest, bytes("fb 0100"), /non-canonical varint/);
    rejects(decodeRequest, bytes("fc 01000000"), /non-canonical varint/);
    rejects(decodeResponse, bytes("02", "fd 0100000000000000", "00"), /non-canonical varint/);
  });

  it("bad Option tags", () => {
    rejects(decodeRequest, bytes("02", "02", "00"), /invalid Option tag 2/);
    rejects(decodeRequest, bytes("02", "00", "ff"), /invalid Option tag 255/);
  });

  it("a B256 whose length prefix is not 32", () => {
    const proposal = (rootLength: string, root: string) =>
      bytes(
        "00",
        "00",
        rootLength,
        root,
        "41",
        repeat("5a", 65),
        "20",
        repeat("e1", 32),
        "01",
        "02",
        "20",
        repeat("aa", 32),
        "20",
        repeat("c0", 32),
        "00",
      );
    rejects(decodeResponse, proposal("1f", repeat("bb", 31)), /B256: length must be 32, got 31/);
    rejects(decodeResponse, proposal("21", repeat("bb", 33)), /B256: length must be 32, got 33/);
    expect(decodeResponse(proposal("20", repeat("bb", 32))).kind).toBe("Prove");
  });

  it("invalid UTF-8 in an Error message", () => {
    rejects(decodeResponse, bytes("03", "02", "c328"), /invalid UTF-8/);
  });

  it("reports the offset of the fault", () => {
    try {
      decodeRequest(bytes("02", "00", "07"));
      expect.unreachable();
    } catch (error) {
      expect((error as BincodeDecodeError).offset).toBe(2);
    }
  });
});

describe("encoder refusals", () => {
  it("user_data or nonce over 512 bytes", () => {
    expect(() =>
      encodeRequest({ kind: "SignerAttestation", user_data: new Uint8Array(513), nonce: null }),
    ).toThrow(/user_data: 513 bytes exceed the cap of 512/);
    expect(() =>
      encodeRequest({ kind: "SignerAttestation", user_data: null, nonce: new Uint8Array(513) }),
    ).toThrow(BincodeEncodeError);
  });

  it("a string with a lone surrogate (not representable as a Rust String)", () => {
    expect(() => encodeResponse({ kind: "Error", message: "a\ud800b" })).toThrow(/lone UTF-16 surrogate/);
    expect(() => encodeResponse({ kind: "Error", message: "\udc00" })).toThrow(BincodeEncodeError);
    expect(encodeResponse({ kind: "Error", message: "\ud83d\ude00" }).length).toBe(6); // 😀: a valid pair, 4 bytes
  });

  it("a key that is not 32 bytes", () => {
    for (const length of [0, 31, 33])
      expect(() =>
        encodeRequest({
          kind: "Prove",
          preimages: [[new Uint8Array(length).fill(1), new Uint8Array(0)]],
        }),
      ).toThrow(/PreimageKey must be 32 bytes/);
  });

  it("a key whose type byte names no key type", () => {
    for (const type of [0, 7, 255])
      expect(() =>
        encodeRequest({
          kind: "Prove",
          preimages: [[Uint8Array.of(type, ...new Uint8Array(31)), new Uint8Array(0)]],
        }),
      ).toThrow(/PreimageKey: unknown PreimageKeyType byte/);
  });

  it("a B256 that is not 32 bytes and a u64 out of range", () => {
    const proposal = {
      output_root: new Uint8Array(32),
      signature: new Uint8Array(65),
      l1_origin_hash: new Uint8Array(32),
      l1_origin_number: 1n,
      l2_block_number: 2n,
      prev_output_root: new Uint8Array(32),
      config_hash: new Uint8Array(32),
    };
    const response = (p: typeof proposal) => ({
      kind: "Prove" as const,
      result: { Tee: { aggregate_proposal: p, proposals: [] } },
    });
    expect(() => encodeResponse(response({ ...proposal, output_root: new Uint8Array(31) }))).toThrow(
      /B256 must be 32 bytes/,
    );
    expect(() => encodeResponse(response({ ...proposal, l2_block_number: 1n << 64n }))).toThrow(
      /u64 out of range/,
    );
    expect(() => encodeResponse(response({ ...proposal, l1_origin_number: -1n }))).toThrow(
      /u64 out of range/,
    );
  });
});
