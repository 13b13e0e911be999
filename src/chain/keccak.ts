/**
 * keccak256 for the hot paths (trie nodes, trie keys, SHA3 opcode, bloom, hashes): hash-wasm's
 * WebAssembly Keccak, 5-10x faster than the pure-JS one here. It needs one asynchronous
 * initialisation (`initKeccak`, done by BlockBuilder.start); until then the pure-JS
 * @noble/hashes implementation answers, with identical results.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { type IHasher, createKeccak } from "hash-wasm";

let hasher: IHasher | undefined;
let loading: Promise<void> | undefined;

export function initKeccak(): Promise<void> {
  loading ??= createKeccak(256).then((h) => {
    hasher = h;
  });
  return loading;
}

export function keccak256(data: Uint8Array): Uint8Array {
  if (hasher === undefined) return keccak_256(data);
  return hasher.init().update(data).digest("binary");
}
