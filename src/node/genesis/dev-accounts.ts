/**
 * Prefunded development accounts: the first N accounts of the well-known test mnemonic
 * ("test test ... junk", BIP-44 m/44'/60'/0'/0/i), the same ones Hardhat, Anvil and Foundry use,
 * so wallets and scripts work out of the box. Never use these keys on a real network.
 */
import { bytesToHex } from "viem";
import { mnemonicToAccount } from "viem/accounts";

export const DEV_MNEMONIC = "test test test test test test test test test test test junk";
/** 10 000 ETH each, as Hardhat and Anvil. */
export const DEV_ACCOUNT_BALANCE = 10_000n * 10n ** 18n;

export interface DevAccount {
  address: `0x${string}`;
  privateKey: `0x${string}`;
}

export function devAccounts(count: number): DevAccount[] {
  const out: DevAccount[] = [];
  for (let i = 0; i < count; i++) {
    const account = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: i });
    const key = account.getHdKey().privateKey;
    if (key === null) throw new Error(`no private key for dev account ${i}`);
    out.push({ address: account.address, privateKey: bytesToHex(key) });
  }
  return out;
}
