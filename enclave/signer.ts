/**
 * The enclave's secp256k1 signer. The secret key is drawn from the security module's random source at
 * start-up and never leaves this object: only the public key, the address and signatures are exposed.
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";

export const SIGNATURE_LENGTH = 65;
export const PUBLIC_KEY_LENGTH = 65;

/** Where the signer gets its entropy (the security module's random source). */
export type RandomSource = (length: number) => Uint8Array;

/** Signer address: the last 20 bytes of keccak256 of the public key without its 0x04 prefix. */
export function addressOfPublicKey(publicKey: Uint8Array): Uint8Array {
  if (publicKey.length !== PUBLIC_KEY_LENGTH || publicKey[0] !== 0x04) {
    throw new RangeError("expected a 65-byte uncompressed public key");
  }
  return keccak_256(publicKey.subarray(1)).slice(12);
}

/** The signer address of a 65-byte r‖s‖v signature (v ∈ {0,1}) over a 32-byte digest. */
export function recoverSignerAddress(digest: Uint8Array, signature: Uint8Array): Uint8Array {
  if (signature.length !== SIGNATURE_LENGTH) throw new RangeError("expected a 65-byte signature");
  const v = signature[64] as number;
  if (v > 1) throw new RangeError(`recovery id must be 0 or 1, got ${v}`);
  const sig = secp256k1.Signature.fromBytes(signature.subarray(0, 64), "compact").addRecoveryBit(v);
  const publicKey = sig.recoverPublicKey(digest).toBytes(false);
  return addressOfPublicKey(publicKey);
}

export class EnclaveSigner {
  readonly #secretKey: Uint8Array;
  /** 65-byte uncompressed public key (0x04 ‖ x ‖ y). */
  readonly publicKey: Uint8Array;
  /** 20-byte signer address. */
  readonly address: Uint8Array;

  private constructor(secretKey: Uint8Array) {
    this.#secretKey = secretKey;
    this.publicKey = secp256k1.getPublicKey(secretKey, false);
    this.address = addressOfPublicKey(this.publicKey);
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

  /** Signs keccak256(journal): the proposal signature of system-spec "Signed journal". */
  signJournal(journal: Uint8Array): Uint8Array {
    return this.signDigest(keccak_256(journal));
  }
}
