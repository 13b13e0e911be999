/**
 * Prefunded development accounts: the first N accounts of the well-known test mnemonic
 * ("test test ... junk", BIP-44 m/44'/60'/0'/0/i), the same ones Hardhat, Anvil and Foundry use,
 * so wallets and scripts work out of the box. Never use these keys on a real network.
 */
import { pbkdf2Sync } from "node:crypto";
import { bytesToHex } from "viem";
import { HDKey, privateKeyToAddress } from "viem/accounts";

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

/** The first `count` dev accounts: children 0..count-1 of m/44'/60'/0'/0 (one derivation each, not five). */
export function devAccounts(count: number): DevAccount[] {
  accountsParent ??= HDKey.fromMasterSeed(mnemonicSeed(DEV_MNEMONIC)).derive("m/44'/60'/0'/0");
  const out: DevAccount[] = [];
  for (let i = 0; i < count; i++) {
    const key = accountsParent.deriveChild(i).privateKey;
    if (key === null) throw new Error(`no private key for dev account ${i}`);
    const privateKey = bytesToHex(key);
    out.push({ address: privateKeyToAddress(privateKey), privateKey });
  }
  return out;
}
