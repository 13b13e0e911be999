/**
 * The enclave's secp256k1 signer. The secret key is drawn from the security module's random source at
 * start-up and never leaves this object: only the public key, the address and signatures are exposed.
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { SIGNATURE_LENGTH, signerAddressOf } from "../src/proof/onchain/index.js";

/** Where the signer gets its entropy (the security module's random source). */
export type RandomSource = (length: number) => Uint8Array;

export class EnclaveSigner {
  readonly #secretKey: Uint8Array;
  /** 65-byte uncompressed public key (0x04 ‖ x ‖ y). */
  readonly publicKey: Uint8Array;
  /** 20-byte signer address. */
  readonly address: Uint8Array;

  private constructor(secretKey: Uint8Array) {
    this.#secretKey = secretKey;
    this.publicKey = secp256k1.getPublicKey(secretKey, false);
    this.address = signerAddressOf(this.publicKey);
  }

  /** A fresh key from `random` (a 48-byte seed reduced into the scalar field, as noble's keygen does). */
  static generate(random: RandomSource): EnclaveSigner {
    const seed = random(secp256k1.lengths.seed ?? 48);
    return new EnclaveSigner(secp256k1.utils.randomSecretKey(seed));
  }

  /** 65 bytes r‖s‖v over a 32-byte digest, low-s, v ∈ {0,1}, no prefix or hashing. */
  signDigest(digest: Uint8Array): Uint8Array {
    if (digest.length !== 32) throw new RangeError("expected a 32-byte digest");
    const recovered = secp256k1.sign(digest, this.#secretKey, {
      prehash: false,
      lowS: true,
      format: "recovered",
    });
    const sig = secp256k1.Signature.fromBytes(recovered, "recovered");
    if (sig.recovery === undefined) throw new Error("signature without recovery id");
    const out = new Uint8Array(SIGNATURE_LENGTH);
    out.set(sig.toBytes("compact"), 0);
    out[64] = sig.recovery;
    return out;
  }

  /** Signs keccak256(journal): the proposal signature of docs/protocol.md "Signed journal". */
  signJournal(journal: Uint8Array): Uint8Array {
    return this.signDigest(keccak_256(journal));
  }
}
