/**
 * Who is who in the devnet: the development accounts of the public test mnemonic (the same keys on L1 and L2; never
 * use them on a real network) and the SystemConfig the devnet deploys on its L1 (docs/devnet.md "Accounts").
 */
import { getAddress } from "viem";
import { DEVNET_BATCH_INBOX, type SystemConfigInit } from "../../contracts/index.js";
import { DEV_FEE_SCALARS, DEV_GAS_LIMIT, type DevAccount, devAccounts } from "../chain/index.js";

/** Index of each role among the development accounts. */
export const DEVNET_ROLES = {
  /** Deploys the L1 contracts (nonces 0-2) and owns SystemConfig and TEEProverRegistry; deploys the L2 token. */
  deployer: 0,
  /** The merchant service's relayer and payee. */
  relayer: 1,
  /** Holds the minted Dev USD. */
  buyer: 2,
  /** Signs the batcher's L1 transactions (SystemConfig's batcher). */
  batcher: 3,
  /** SystemConfig's unsafe block signer (no p2p here: recorded only). */
  unsafeBlockSigner: 4,
  /** Submits TEE proposals to the AggregateVerifier (on TEEProverRegistry's proposer list). */
  proposer: 5,
  /** Nullifies wrong proposals (also on the proposer list: AggregateVerifier.nullify requires it). */
  challenger: 6,
} as const;

/** The development account playing `role`. */
export function devnetAccount(role: keyof typeof DEVNET_ROLES): DevAccount {
  return devAccounts(DEVNET_ROLES[role] + 1)[DEVNET_ROLES[role]]!;
}

/**
 * The SystemConfig the devnet deploys: the dev chain's fee scalars and gas limit (as the standalone node's L1 info
 * deposits carry), OP's EIP-1559 parameters (250, 6), no operator fee, no minimum base fee, no DA footprint.
 */
export function devnetSystemConfig(): SystemConfigInit {
  return {
    owner: getAddress(devnetAccount("deployer").address),
    batcher: getAddress(devnetAccount("batcher").address),
    basefeeScalar: Number(DEV_FEE_SCALARS.baseFeeScalar),
    blobbasefeeScalar: Number(DEV_FEE_SCALARS.blobBaseFeeScalar),
    gasLimit: DEV_GAS_LIMIT,
    unsafeBlockSigner: getAddress(devnetAccount("unsafeBlockSigner").address),
    eip1559Denominator: 250,
    eip1559Elasticity: 6,
    operatorFeeScalar: 0,
    operatorFeeConstant: 0n,
    minBaseFee: 0n,
    daFootprintGasScalar: 0,
    batchInbox: DEVNET_BATCH_INBOX,
  };
}
