/**
 * Prefunded development accounts: the first N accounts of the well-known test mnemonic
 * ("test test ... junk", BIP-44 m/44'/60'/0'/0/i), the same ones Hardhat, Anvil and Foundry use,
 * so wallets and scripts work out of the box. Never use these keys on a real network.
 */
import { pbkdf2 } from "@noble/hashes/pbkdf2.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "viem";
import { HDKey, hdKeyToAccount } from "viem/accounts";

export const DEV_MNEMONIC = "test test test test test test test test test test test junk";
/** 10 000 ETH each, as Hardhat and Anvil. */
export const DEV_ACCOUNT_BALANCE = 10_000n * 10n ** 18n;

export interface DevAccount {
  address: `0x${string}`;
  privateKey: `0x${string}`;
}

/** BIP-39 seed (PBKDF2-HMAC-SHA512, 2048 rounds, empty passphrase), computed once for all accounts. */
function mnemonicSeed(mnemonic: string): Uint8Array {
  const enc = new TextEncoder();
  return pbkdf2(sha512, enc.encode(mnemonic.normalize("NFKD")), enc.encode("mnemonic"), {
    c: 2048,
    dkLen: 64,
  });
}

export function devAccounts(count: number): DevAccount[] {
  const out: DevAccount[] = [];
  const root = HDKey.fromMasterSeed(mnemonicSeed(DEV_MNEMONIC));
  for (let i = 0; i < count; i++) {
    const account = hdKeyToAccount(root, { addressIndex: i });
    const key = account.getHdKey().privateKey;
    if (key === null) throw new Error(`no private key for dev account ${i}`);
    out.push({ address: account.address, privateKey: bytesToHex(key) });
  }
  return out;
}
