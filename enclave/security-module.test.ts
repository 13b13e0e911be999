import { existsSync } from "node:fs";
import { decode, encode } from "cborg";
import { describe, expect, it } from "vitest";
import {
  AttestationFormatError,
  LOCAL_MODULE_ID_PREFIX,
  verifyAttestationDocument,
} from "../src/attestation/index.js";
import { LocalSecurityModule } from "./local-security-module.js";
import { NitroUnavailableError, openNitroSecurityModule } from "./nitro.js";
import { AttestationInputTooLargeError } from "./security-module.js";

const module = await LocalSecurityModule.open();
const publicKey = new Uint8Array(65).fill(4);

describe("local security module", () => {
  it("has no PCR0 and random bytes from the OS", () => {
    expect(module.mode).toBe("local");
    expect(module.pcr0()).toBeNull();
    expect(module.randomBytes(32)).not.toEqual(module.randomBytes(32));
  });

  it("attests in the Nitro document structure, marked local, echoing user_data and nonce", async () => {
    const before = BigInt(Date.now());
    const document = await module.attest({
      publicKey,
      userData: new Uint8Array([1, 2, 3]),
      nonce: new Uint8Array([9]),
    });
    const doc = await verifyAttestationDocument(document);
    expect(doc.moduleId.startsWith(LOCAL_MODULE_ID_PREFIX)).toBe(true);
    expect(doc.digest).toBe("SHA384");
    expect(doc.timestamp >= before).toBe(true);
    expect(doc.pcrs.size).toBe(0);
    expect(doc.publicKey).toEqual(publicKey);
    expect(doc.userData).toEqual(new Uint8Array([1, 2, 3]));
    expect(doc.nonce).toEqual(new Uint8Array([9]));
    expect(doc.cabundle).toHaveLength(1);
    // An untagged COSE_Sign1: array(4) whose protected header is {1: -35} (ES384).
    expect(document[0]).toBe(0x84);
    expect(Array.from(document.subarray(1, 6))).toEqual([0x44, 0xa1, 0x01, 0x38, 0x22]);
  });

  it("encodes absent user_data and nonce as null", async () => {
    const doc = await verifyAttestationDocument(
      await module.attest({ publicKey, userData: null, nonce: null }),
    );
    expect(doc.userData).toBeNull();
    expect(doc.nonce).toBeNull();
  });

  it("a tampered payload no longer verifies", async () => {
    const document = await module.attest({ publicKey, userData: new Uint8Array([1]), nonce: null });
    const [protectedHeader, unprotected, payload, signature] = decode(document, { useMaps: true }) as [
      Uint8Array,
      Map<number, unknown>,
      Uint8Array,
      Uint8Array,
    ];
    const fields = decode(payload, { useMaps: true }) as Map<string, unknown>;
    fields.set("user_data", new Uint8Array([2]));
    const forged = encode([protectedHeader, unprotected, encode(fields), signature]);
    await expect(verifyAttestationDocument(forged)).rejects.toThrow(AttestationFormatError);
    await expect(verifyAttestationDocument(new Uint8Array([1, 2, 3]))).rejects.toThrow(
      AttestationFormatError,
    );
  });

  it("refuses inputs over the NSM limits", async () => {
    await expect(module.attest({ publicKey, userData: new Uint8Array(513), nonce: null })).rejects.toThrow(
      AttestationInputTooLargeError,
    );
    await expect(module.attest({ publicKey, userData: null, nonce: new Uint8Array(513) })).rejects.toThrow(
      /nonce is 513 bytes/,
    );
    await module.attest({ publicKey, userData: new Uint8Array(512), nonce: new Uint8Array(512) });
  });
});

describe("Nitro security module", () => {
  // On a real Nitro instance /dev/nsm exists and opening it must succeed; never touch it from tests here.
  it.skipIf(existsSync("/dev/nsm"))(
    "fails loudly without the NSM device (no fallback to local mode)",
    async () => {
      await expect(openNitroSecurityModule()).rejects.toThrow(NitroUnavailableError);
    },
  );
});
