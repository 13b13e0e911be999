/**
 * Shared fixture for the token tests: a fresh EVM with the compiled Eip3009Token deployed, funded
 * accounts with fixed keys, and plain-viem EIP-712 signing (independent of src/payments, so the
 * contract tests do not lean on the library they also validate).
 */
import {
  type Address,
  type Hex,
  keccak256,
  pad,
  parseSignature,
  serializeSignature,
  toHex,
  type TypedDataDomain,
} from "viem";
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { loadArtifact } from "../../contracts/artifacts.js";
import { type DeployedContract, EvmHarness } from "./harness.js";

export const OWNER = privateKeyToAccount(
  "0x1000000000000000000000000000000000000000000000000000000000000001",
);
export const BUYER = privateKeyToAccount(
  "0x2000000000000000000000000000000000000000000000000000000000000002",
);
export const MERCHANT = privateKeyToAccount(
  "0x3000000000000000000000000000000000000000000000000000000000000003",
);
export const STRANGER = privateKeyToAccount(
  "0x4000000000000000000000000000000000000000000000000000000000000004",
);
export const RELAYER: Address = "0x00000000000000000000000000000000000000aa";

export const NOW = 1_700_000_000n;
export const CHAIN_ID = 901n;

/** secp256k1 group order. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

export const TRANSFER_TYPES = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

export const RECEIVE_TYPES = {
  ReceiveWithAuthorization: TRANSFER_TYPES.TransferWithAuthorization,
} as const;

export const CANCEL_TYPES = {
  CancelAuthorization: [
    { name: "authorizer", type: "address" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

export interface Authorization {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
}

export interface SplitSig {
  v: number;
  r: Hex;
  s: Hex;
  bytes: Hex;
}

export function nonceOf(label: string): Hex {
  return keccak256(toHex(label));
}

export function split(signature: Hex): SplitSig {
  const { r, s, yParity } = parseSignature(signature);
  return { v: 27 + yParity, r, s, bytes: signature };
}

/** The malleable twin (n - s, flipped parity): a valid secp256k1 signature with a high s. */
export function highS(sig: SplitSig): SplitSig {
  const s = pad(toHex(SECP256K1_N - BigInt(sig.s)), { size: 32 });
  const v = sig.v === 27 ? 28 : 27;
  return { v, r: sig.r, s, bytes: serializeSignature({ r: sig.r, s, v: BigInt(v) }) };
}

export interface TokenFixture {
  harness: EvmHarness;
  token: DeployedContract;
  domain: TypedDataDomain;
}

export async function deployToken(options: { chainId?: bigint; name?: string } = {}): Promise<TokenFixture> {
  const harness = await EvmHarness.create({ chainId: options.chainId ?? CHAIN_ID, timestamp: NOW });
  const name = options.name ?? "USD Coin";
  const token = await harness.deploy(loadArtifact("Eip3009Token"), [name, "USDC", OWNER.address], {
    from: OWNER.address,
  });
  const minted = await token.write("mint", [BUYER.address, 1_000_000_000n], { from: OWNER.address });
  if (!minted.success) throw new Error(`mint failed: ${minted.revertReason}`);
  const domain: TypedDataDomain = {
    name,
    version: "2",
    chainId: harness.chainId,
    verifyingContract: token.address,
  };
  return { harness, token, domain };
}

export function authorization(overrides: Partial<Authorization> = {}): Authorization {
  return {
    from: BUYER.address,
    to: MERCHANT.address,
    value: 25_000_000n,
    validAfter: NOW - 60n,
    validBefore: NOW + 3600n,
    nonce: nonceOf("order-1"),
    ...overrides,
  };
}

export async function signTransfer(
  signer: PrivateKeyAccount,
  domain: TypedDataDomain,
  auth: Authorization,
): Promise<SplitSig> {
  return split(
    await signer.signTypedData({
      domain,
      types: TRANSFER_TYPES,
      primaryType: "TransferWithAuthorization",
      message: auth,
    }),
  );
}

export async function signReceive(
  signer: PrivateKeyAccount,
  domain: TypedDataDomain,
  auth: Authorization,
): Promise<SplitSig> {
  return split(
    await signer.signTypedData({
      domain,
      types: RECEIVE_TYPES,
      primaryType: "ReceiveWithAuthorization",
      message: auth,
    }),
  );
}

export async function signCancel(
  signer: PrivateKeyAccount,
  domain: TypedDataDomain,
  authorizer: Address,
  nonce: Hex,
): Promise<SplitSig> {
  return split(
    await signer.signTypedData({
      domain,
      types: CANCEL_TYPES,
      primaryType: "CancelAuthorization",
      message: { authorizer, nonce },
    }),
  );
}

export function authArgs(auth: Authorization): readonly unknown[] {
  return [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce];
}

export function vrsArgs(sig: SplitSig): readonly unknown[] {
  return [sig.v, sig.r, sig.s];
}
