/**
 * EVM configuration per OP fork: the Ethereum hardfork each OP fork builds on, OP's precompile
 * changes (RIP-7212 P256VERIFY from Fjord, input-size limits from Granite / Isthmus / Jovian), and
 * a lazily loaded KZG backend for the point-evaluation precompile.
 */
import { type Common, Hardfork, Mainnet, createCustomCommon } from "@ethereumjs/common";
import {
  type CustomPrecompile,
  EVMError,
  type ExecResult,
  type PrecompileFunc,
  type PrecompileInput,
  getActivePrecompiles,
} from "@ethereumjs/evm";
import type { KZG } from "@ethereumjs/util";
import { ethereumjsKzg, loadPointEvaluationKzg } from "./kzg.js";
import { keccak256 } from "./keccak.js";
import { ecrecover } from "./secp256k1.js";
import { OpFork } from "./rollup-config.js";

/** The Ethereum hardfork whose EVM rules an OP fork uses. */
export function ethereumHardforkFor(fork: OpFork): Hardfork {
  if (fork >= OpFork.Isthmus) return Hardfork.Prague;
  if (fork >= OpFork.Ecotone) return Hardfork.Cancun;
  if (fork >= OpFork.Canyon) return Hardfork.Shanghai;
  return Hardfork.Paris;
}

/** A fresh Common for `chainId` at the Ethereum hardfork matching `fork` (one per EVM: the EVM subscribes to it). */
export function commonFor(chainId: bigint, fork: OpFork): Common {
  return createCustomCommon({ chainId: Number(chainId), name: `op-${chainId}` }, Mainnet, {
    hardfork: ethereumHardforkFor(fork),
    customCrypto: { keccak256, ecrecover },
  });
}

/** Precompile input limits (bytes) per fork; over the limit the call fails and consumes all gas. */
export interface PrecompileInputLimits {
  bn256Pairing?: number;
  blsG1Msm?: number;
  blsG2Msm?: number;
  blsPairing?: number;
}

export function precompileInputLimits(fork: OpFork): PrecompileInputLimits {
  if (fork >= OpFork.Jovian)
    return { bn256Pairing: 81_984, blsG1Msm: 288_960, blsG2Msm: 278_784, blsPairing: 156_672 };
  if (fork >= OpFork.Isthmus)
    return { bn256Pairing: 112_687, blsG1Msm: 513_760, blsG2Msm: 488_448, blsPairing: 235_008 };
  if (fork >= OpFork.Granite) return { bn256Pairing: 112_687 };
  return {};
}

/** RIP-7212 P256VERIFY gas (OP, Fjord). EIP-7951 on L1 later priced it at 6900. */
export const P256VERIFY_GAS = 3450n;
export const P256VERIFY_ADDRESS: `0x${string}` = "0x0000000000000000000000000000000000000100";

function failAllGas(input: PrecompileInput): ExecResult {
  return {
    returnValue: new Uint8Array(0),
    executionGasUsed: input.gasLimit,
    exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS),
  };
}

function limited(inner: PrecompileFunc, maxInput: number): PrecompileFunc {
  return (input) => (input.data.length > maxInput ? failAllGas(input) : inner(input));
}

/**
 * The KZG backend (src/chain/kzg.ts's `loadPointEvaluationKzg`), loaded on first use of the point-evaluation
 * precompile, behind @ethereumjs's hex-string interface (the precompile calls only `verifyProof`).
 */
async function loadKzg(): Promise<KZG> {
  return ethereumjsKzg(await loadPointEvaluationKzg());
}

function lazyKzg(inner: PrecompileFunc): PrecompileFunc {
  return async (input) => {
    const crypto = input.common.customCrypto as { kzg?: KZG };
    if (crypto.kzg === undefined) crypto.kzg = await loadKzg();
    return inner(input);
  };
}

function addr(n: number): `0x${string}` {
  return `0x${n.toString(16).padStart(40, "0")}`;
}

/** Custom precompile set for the EVM at `fork` on top of the hardfork's own precompiles. */
export function opPrecompiles(common: Common, fork: OpFork): CustomPrecompile[] {
  const active = getActivePrecompiles(common);
  const get = (n: number): PrecompileFunc | undefined => active.get(addr(n).slice(2));
  const custom: CustomPrecompile[] = [];
  const limits = precompileInputLimits(fork);
  const pairing = get(0x08);
  if (limits.bn256Pairing !== undefined && pairing) {
    custom.push({ address: addr(0x08), function: limited(pairing, limits.bn256Pairing) });
  }
  const blsLimits: [number, number | undefined][] = [
    [0x0c, limits.blsG1Msm],
    [0x0e, limits.blsG2Msm],
    [0x0f, limits.blsPairing],
  ];
  for (const [a, limit] of blsLimits) {
    const f = get(a);
    if (limit !== undefined && f) custom.push({ address: addr(a), function: limited(f, limit) });
  }
  const pointEval = get(0x0a);
  if (pointEval) custom.push({ address: addr(0x0a), function: lazyKzg(pointEval) });
  if (fork >= OpFork.Fjord) custom.push({ address: P256VERIFY_ADDRESS, function: p256Verify });
  return custom;
}

const P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

/** RIP-7212: 160-byte input (hash, r, s, x, y); 32-byte 1 on a valid signature, empty otherwise. */
export const p256Verify: PrecompileFunc = async (input) => {
  if (input.gasLimit < P256VERIFY_GAS) return failAllGas(input);
  const ok = { returnValue: new Uint8Array(0), executionGasUsed: P256VERIFY_GAS };
  const data = input.data;
  if (data.length !== 160) return ok;
  const { p256 } = await import("@noble/curves/nist.js");
  const big = (b: Uint8Array): bigint => BigInt(`0x${Buffer.from(b).toString("hex")}`);
  const r = big(data.subarray(32, 64));
  const s = big(data.subarray(64, 96));
  if (r === 0n || r >= P256_N || s === 0n || s >= P256_N) return ok;
  try {
    const pub = new Uint8Array(65);
    pub[0] = 4;
    pub.set(data.subarray(96, 160), 1);
    const sig = new Uint8Array(64);
    sig.set(data.subarray(32, 96));
    const valid = p256.verify(sig, data.subarray(0, 32), pub, { prehash: false, lowS: false });
    if (!valid) return ok;
  } catch {
    return ok;
  }
  const one = new Uint8Array(32);
  one[31] = 1;
  return { returnValue: one, executionGasUsed: P256VERIFY_GAS };
};
