/**
 * Golden vectors for the host-enclave protocol, typed out by hand from the bincode 2 "standard" rules in
 * spec/protocol/enclave.protocol.json (never produced by our encoder). Each vector is checked both ways:
 * encode(value) must equal the bytes and decode(bytes) must equal the value.
 */
import { describe, expect, it } from "vitest";
import {
  decodePreimageKey,
  decodeProposal,
  decodeRequest,
  decodeResponse,
  encodePreimageKey,
  encodeProposal,
  encodeRequest,
  encodeResponse,
  type PreimageKey,
  type PreimageKeyType,
  type Proposal,
  type Request,
  type Response,
} from "../../../generated/protocol/index.js";
import { bytes, repeat } from "./hex.js";

// keccak256("abc") = 4e03657a ea45a94f c7d47ba8 26c8d667 c0d1e6e3 3a64a036 ec44f58f a12d6c45
// sha256("abc")    = ba7816bf 8f01cfea 414140de 5dae2223 b00361a3 96177a9c b410ff61 f20015ad
// A hash-keyed preimage key drops the hash's first byte (replaced by the type byte in the 32-byte form):
const KECCAK_ABC_DATA = "03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"; // 31 bytes
const SHA256_ABC_DATA = "7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; // 31 bytes

/** The type byte of each key type in the 32-byte form (docs/decisions.md "Boot information"), typed by hand. */
const TYPE_BYTE: Readonly<Record<PreimageKeyType, string>> = {
  Local: "01",
  Keccak256: "02",
  GlobalGeneric: "03",
  Sha256: "04",
  Blob: "05",
  Precompile: "06",
};

/** A 32-byte preimage key: the type byte first, then the 31 data bytes (on the wire: data, then variant index). */
function key(dataHex: string, keyType: PreimageKeyType): PreimageKey {
  return bytes(TYPE_BYTE[keyType], dataHex);
}

describe("PreimageKey golden vectors: 31 data bytes, then the key type's variant index", () => {
  const cases: [string, PreimageKey, Uint8Array][] = [
    [
      "Local (boot key 1: L1 head)",
      key(`${repeat("00", 30)}01`, "Local"),
      bytes(repeat("00", 30), "01", /* variant Local = 0 */ "00"),
    ],
    [
      "Keccak256",
      key(KECCAK_ABC_DATA, "Keccak256"),
      bytes(KECCAK_ABC_DATA, /* variant Keccak256 = 1 */ "01"),
    ],
    [
      "GlobalGeneric",
      key(repeat("11", 31), "GlobalGeneric"),
      bytes(repeat("11", 31), /* variant GlobalGeneric = 2 */ "02"),
    ],
    ["Sha256", key(SHA256_ABC_DATA, "Sha256"), bytes(SHA256_ABC_DATA, /* variant Sha256 = 3 */ "03")],
    ["Blob", key(repeat("22", 31), "Blob"), bytes(repeat("22", 31), /* variant Blob = 4 */ "04")],
    [
      "Precompile",
      key(repeat("33", 31), "Precompile"),
      bytes(repeat("33", 31), /* variant Precompile = 5 */ "05"),
    ],
  ];
  for (const [name, value, wire] of cases) {
    it(name, () => {
      expect(wire.length).toBe(32);
      expect(encodePreimageKey(value)).toEqual(wire);
      expect(decodePreimageKey(wire)).toEqual(value);
    });
  }
});

function checkRequest(value: Request, wire: Uint8Array): void {
  expect(encodeRequest(value)).toEqual(wire);
  expect(decodeRequest(wire)).toEqual(value);
}

function checkResponse(value: Response, wire: Uint8Array): void {
  expect(encodeResponse(value)).toEqual(wire);
  expect(decodeResponse(wire)).toEqual(value);
}

describe("Request golden vectors", () => {
  it("Prove carrying two preimages", () => {
    const abc = bytes("616263");
    checkRequest(
      {
        kind: "Prove",
        preimages: [
          [key(KECCAK_ABC_DATA, "Keccak256"), abc],
          [key(SHA256_ABC_DATA, "Sha256"), abc],
        ],
      },
      bytes(
        "00", // Request::Prove, variant index 0
        "02", // Vec length 2
        KECCAK_ABC_DATA, // preimage 1: key data, 31 bytes
        "01", //   key type Keccak256 (index 1)
        "03", //   value length 3
        "616263", //   "abc"
        SHA256_ABC_DATA, // preimage 2: key data, 31 bytes
        "03", //   key type Sha256 (index 3)
        "03", //   value length 3
        "616263", //   "abc"
      ),
    );
  });

  it("Prove with a 300-byte value (length as 0xfb + u16 LE)", () => {
    const value = new Uint8Array(300).fill(0x5a);
    checkRequest(
      { kind: "Prove", preimages: [[key(repeat("11", 31), "GlobalGeneric"), value]] },
      bytes("00", "01", repeat("11", 31), "02", /* 300 = 0x012c */ "fb 2c 01", repeat("5a", 300)),
    );
  });

  it("SignerPublicKey: the variant index alone", () => {
    checkRequest({ kind: "SignerPublicKey" }, bytes("01"));
  });

  it("SignerAttestation without user_data and nonce", () => {
    checkRequest(
      { kind: "SignerAttestation", user_data: null, nonce: null },
      bytes("02", /* None */ "00", /* None */ "00"),
    );
  });

  it("SignerAttestation with user_data and nonce", () => {
    checkRequest(
      { kind: "SignerAttestation", user_data: bytes("dead"), nonce: bytes("010203") },
      bytes("02", /* Some */ "01", /* len 2 */ "02", "dead", /* Some */ "01", /* len 3 */ "03", "010203"),
    );
  });

  it("SignerAttestation with user_data only", () => {
    checkRequest(
      { kind: "SignerAttestation", user_data: bytes("beef"), nonce: null },
      bytes("02", /* Some */ "01", /* len 2 */ "02", "beef", /* None */ "00"),
    );
  });

  it("SignerAttestation with nonce only (empty user_data differs from None)", () => {
    checkRequest(
      { kind: "SignerAttestation", user_data: new Uint8Array(0), nonce: bytes("ff") },
      bytes("02", /* Some */ "01", /* len 0 */ "00", /* Some */ "01", /* len 1 */ "01", "ff"),
    );
  });
});

// secp256k1 generator point G, uncompressed: a valid 65-byte public key.
const G_UNCOMPRESSED =
  "04" +
  "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798" +
  "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8";

function proposal(fill: { root: string; sig: string; prev: string }, l2BlockNumber: bigint): Proposal {
  return {
    output_root: bytes(repeat(fill.root, 32)),
    signature: bytes(repeat(fill.sig, 65)),
    l1_origin_hash: bytes(repeat("e1", 32)),
    l1_origin_number: 70_000n,
    l2_block_number: l2BlockNumber,
    prev_output_root: bytes(repeat(fill.prev, 32)),
    config_hash: bytes(repeat("c0", 32)),
  };
}

/** A Proposal's bytes, written out field by field. */
function proposalWire(
  fill: { root: string; sig: string; prev: string },
  l2BlockNumberVarint: string,
): string {
  return [
    `20${repeat(fill.root, 32)}`, // output_root: B256, length 32 then 32 bytes
    `41${repeat(fill.sig, 65)}`, // signature: Bytes, length 65 (0x41) then 65 bytes
    `20${repeat("e1", 32)}`, // l1_origin_hash: B256
    "fc 70110100", // l1_origin_number 70000 = 0x00011170: 0xfc + u32 LE
    l2BlockNumberVarint, // l2_block_number
    `20${repeat(fill.prev, 32)}`, // prev_output_root: B256
    `20${repeat("c0", 32)}`, // config_hash: B256
  ].join("");
}

describe("Response golden vectors", () => {
  it("SignerPublicKey with a 65-byte key", () => {
    checkResponse(
      { kind: "SignerPublicKey", public_key: bytes(G_UNCOMPRESSED) },
      bytes("01", /* Response::SignerPublicKey */ "41", /* length 65 */ G_UNCOMPRESSED),
    );
  });

  it("SignerAttestation with a document", () => {
    checkResponse(
      { kind: "SignerAttestation", document: bytes("d28443a10126a0") },
      bytes("02", /* Response::SignerAttestation */ "07", /* length 7 */ "d28443a10126a0"),
    );
  });

  it("Error with a message", () => {
    checkResponse(
      { kind: "Error", message: "UnsupportedChain: 42" },
      bytes(
        "03",
        /* Response::Error */ "14",
        /* 20 UTF-8 bytes */ "556e737570706f72746564436861696e3a203432" /* "UnsupportedChain: 42" */,
      ),
    );
  });

  it("Error whose message starts with U+FEFF keeps it (no BOM stripping)", () => {
    checkResponse({ kind: "Error", message: "\ufeffA" }, bytes("03", "04", "efbbbf", "41"));
  });

  it("Error with a non-ASCII message (length counts UTF-8 bytes)", () => {
    checkResponse({ kind: "Error", message: "é" }, bytes("03", "02", "c3a9"));
  });

  it("Prove with a two-block ProofResult", () => {
    // Blocks 250 and 251 after agreed root 0xaa..: per-block proposals chain prev_output_root.
    const first = { root: "b1", sig: "51", prev: "aa" };
    const second = { root: "b2", sig: "52", prev: "b1" };
    const aggregate = { root: "b2", sig: "5a", prev: "aa" };
    checkResponse(
      {
        kind: "Prove",
        result: {
          Tee: {
            aggregate_proposal: proposal(aggregate, 251n),
            proposals: [proposal(first, 250n), proposal(second, 251n)],
          },
        },
      },
      bytes(
        "00", // Response::Prove
        "00", // ProofResult::Tee
        proposalWire(aggregate, "fb fb00"), // aggregate_proposal; 251 needs 0xfb + u16 LE
        "02", // proposals: Vec length 2
        proposalWire(first, "fa"), // 250 fits in one byte
        proposalWire(second, "fb fb00"),
      ),
    );
  });
});

describe("varint widths in a Proposal", () => {
  const base = { root: "01", sig: "02", prev: "03" };
  const cases: [bigint, string][] = [
    [0n, "00"],
    [250n, "fa"],
    [251n, "fb fb00"],
    [65_535n, "fb ffff"],
    [65_536n, "fc 00000100"],
    [4_294_967_295n, "fc ffffffff"],
    [4_294_967_296n, "fd 0000000001000000"],
    [18_446_744_073_709_551_615n, "fd ffffffffffffffff"],
  ];
  for (const [n, varint] of cases) {
    it(`l2_block_number ${n}`, () => {
      const wire = bytes(proposalWire(base, varint));
      expect(encodeProposal(proposal(base, n))).toEqual(wire);
      expect(decodeProposal(wire)).toEqual(proposal(base, n));
    });
  }
});
