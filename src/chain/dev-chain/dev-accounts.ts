/**
 * Prefunded development accounts: the first N accounts of the well-known test mnemonic
 * ("test test ... junk", BIP-44 m/44'/60'/0'/0/i), the same ones Hardhat, Anvil and Foundry use,
 * so wallets and scripts work out of the box. Never use these keys on a real network.
 */
import { pbkdf2Sync } from "node:crypto";
import { bytesToHex } from "viem";
import { HDKey, privateKeyToAddress } from "viem/accounts";
import { DEV_ACCOUNT_TABLE } from "./dev-account-table.js";

export const DEV_MNEMONIC = "test test test test test test test test test test test junk";
/** 10 000 ETH each, as Hardhat and Anvil. */
export const DEV_ACCOUNT_BALANCE = 10_000n * 10n ** 18n;

export interface DevAccount {
  address: `0x${string}`;
  privateKey: `0x${string}`;
}

/**
 * BIP-39 seed (PBKDF2-HMAC-SHA512, 2048 rounds, empty passphrase): node:crypto's, ~1 ms where the pure-JS one took
 * ~100 ms of every node, host and test process that starts on the dev chain.
 */
function mnemonicSeed(mnemonic: string): Uint8Array {
  return pbkdf2Sync(mnemonic.normalize("NFKD"), "mnemonic", 2048, 64, "sha512");
}

/** BIP-44 m/44'/60'/0'/0, the parent of every dev account, derived once per process. */
let accountsParent: HDKey | undefined;

/** The first `count` dev accounts: from the written-out table where it reaches, derived beyond it. */
export function devAccounts(count: number): DevAccount[] {
  const out: DevAccount[] = [];
  for (let i = 0; i < count && i < DEV_ACCOUNT_TABLE.length; i++) {
    const [privateKey, address] = DEV_ACCOUNT_TABLE[i]!;
    out.push({ address, privateKey });
  }
  for (let i = out.length; i < count; i++) out.push(deriveDevAccount(i));
  return out;
}

/** Dev account `index` derived from the mnemonic: child `index` of m/44'/60'/0'/0 (one derivation, not five). */
export function deriveDevAccount(index: number): DevAccount {
  accountsParent ??= HDKey.fromMasterSeed(mnemonicSeed(DEV_MNEMONIC)).derive("m/44'/60'/0'/0");
  const key = accountsParent.deriveChild(index).privateKey;
  if (key === null) throw new Error(`no private key for dev account ${index}`);
  const privateKey = bytesToHex(key);
  return { address: privateKeyToAddress(privateKey), privateKey };
}
