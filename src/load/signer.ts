/**
 * Signing the load's EIP-1559 transactions without viem's per-call cost: the fields encoded with
 * @ethereumjs/rlp, keccak256 from the engine (hash-wasm once initialised), and the signature from libsecp256k1
 * (the `secp256k1` package's N-API addon, the one the node's sender recovery uses), about 30x cheaper than viem's
 * signTransaction on @noble/curves, which still signs when the addon cannot be loaded. Both give the same bytes
 * (RFC 6979 nonces, low s): src/load/signer.test.ts compares them.
 */
import { createRequire } from "node:module";
import { RLP } from "@ethereumjs/rlp";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { keccak256 } from "../chain/index.js";

/** The part of the `secp256k1` package's binding used here. */
interface Libsecp256k1Signer {
  ecdsaSign(msg32: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
}

function loadSigner(): Libsecp256k1Signer | undefined {
  try {
    return createRequire(import.meta.url)("secp256k1/bindings") as Libsecp256k1Signer;
  } catch {
    return undefined;
  }
}

const lib = loadSigner();

/** Which implementation signs in this process. */
export const loadSignerBackend: "libsecp256k1" | "viem" = lib === undefined ? "viem" : "libsecp256k1";

export interface Eip1559Fields {
  readonly chainId: number;
  readonly nonce: bigint;
  readonly maxPriorityFeePerGas: bigint;
  readonly maxFeePerGas: bigint;
  readonly gas: bigint;
  /** Undefined: a contract creation. */
  readonly to: Address | undefined;
  readonly value: bigint;
  readonly data: Hex;
}

export interface SignedRaw {
  readonly raw: Hex;
  readonly hash: Hex;
}

const bytesOf = (hex: string): Uint8Array => Buffer.from(hex.startsWith("0x") ? hex.slice(2) : hex, "hex");
const hexOf = (bytes: Uint8Array): Hex =>
  `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("hex")}`;

/** A non-negative integer as RLP wants it: big-endian without leading zeros (zero is empty). */
function quantity(n: bigint): Uint8Array {
  if (n === 0n) return new Uint8Array(0);
  const hex = n.toString(16);
  return bytesOf(hex.length % 2 === 0 ? hex : `0${hex}`);
}

function stripZeros(bytes: Uint8Array): Uint8Array {
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  return bytes.subarray(i);
}

function typed(fields: (Uint8Array | Uint8Array[])[]): Uint8Array {
  const body = RLP.encode(fields);
  const out = new Uint8Array(body.length + 1);
  out[0] = 0x02;
  out.set(body, 1);
  return out;
}

/** Signs an EIP-1559 transaction with `privateKey`: its encoding and hash. */
export async function signEip1559(privateKey: Hex, tx: Eip1559Fields): Promise<SignedRaw> {
  if (lib === undefined) {
    const raw = await privateKeyToAccount(privateKey).signTransaction({
      type: "eip1559",
      chainId: tx.chainId,
      nonce: Number(tx.nonce),
      ...(tx.to === undefined ? {} : { to: tx.to }),
      data: tx.data,
      value: tx.value,
      gas: tx.gas,
      maxFeePerGas: tx.maxFeePerGas,
      maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
    });
    return { raw, hash: hexOf(keccak256(bytesOf(raw))) };
  }
  const fields: (Uint8Array | Uint8Array[])[] = [
    quantity(BigInt(tx.chainId)),
    quantity(tx.nonce),
    quantity(tx.maxPriorityFeePerGas),
    quantity(tx.maxFeePerGas),
    quantity(tx.gas),
    tx.to === undefined ? new Uint8Array(0) : bytesOf(tx.to),
    quantity(tx.value),
    bytesOf(tx.data),
    [],
  ];
  const { signature, recid } = lib.ecdsaSign(keccak256(typed(fields)), bytesOf(privateKey));
  const raw = typed([
    ...fields,
    quantity(BigInt(recid)),
    stripZeros(signature.subarray(0, 32)),
    stripZeros(signature.subarray(32, 64)),
  ]);
  return { raw: hexOf(raw), hash: hexOf(keccak256(raw)) };
}
