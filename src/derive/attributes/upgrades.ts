/**
 * Network upgrade deposits of the Isthmus and Jovian activation blocks (specs/protocol/isthmus/derivation.md,
 * jovian/derivation.md; the Jovian values are op-node's and kona's as activated on mainnet, which differ from
 * the spec page's draft intents and gas limits). They follow the L1 info deposit and the user deposits of the
 * activation block. Holocene has none; forks before Holocene are out of scope.
 */
import { RLP } from "@ethereumjs/rlp";
import {
  type DepositTransaction,
  OpFork,
  type RollupConfig,
  encodeDepositTransaction,
  isForkActivationBlock,
  fromHex,
  keccak256,
  L1_BLOCK_ADDRESS,
  L1_INFO_DEPOSITOR,
  upgradeDepositSourceHash,
} from "../../chain/index.js";
import {
  ISTHMUS_EIP2935_CREATION,
  ISTHMUS_GAS_PRICE_ORACLE_DEPLOYMENT,
  ISTHMUS_L1_BLOCK_DEPLOYMENT,
  ISTHMUS_OPERATOR_FEE_VAULT_DEPLOYMENT,
  JOVIAN_GAS_PRICE_ORACLE_DEPLOYMENT,
  JOVIAN_L1_BLOCK_DEPLOYMENT,
} from "./upgrade-bytecode.js";

/** Predeploy proxies the upgrades point at new implementations. */
export const GAS_PRICE_ORACLE_ADDRESS = fromHex("0x420000000000000000000000000000000000000f");
export const OPERATOR_FEE_VAULT_ADDRESS = fromHex("0x420000000000000000000000000000000000001b");
/** The EIP-2935 history contract's deployer (its presigned-transaction sender). */
export const EIP2935_DEPLOYER = fromHex("0x3462413af4609098e1e27a490f554f260213d685");

const ZERO_ADDRESS = new Uint8Array(20);
/** `upgradeTo(address)`. */
const UPGRADE_TO_SELECTOR = fromHex("3659cfe6");

/** The address a contract created by `deployer` with nonce 0 gets (`keccak256(rlp([deployer, 0]))[12:]`). */
export function createAddress(deployer: Uint8Array): Uint8Array {
  return keccak256(RLP.encode([deployer, new Uint8Array(0)])).slice(12);
}

/** Calldata of `upgradeTo(implementation)`. */
export function upgradeToCalldata(implementation: Uint8Array): Uint8Array {
  const out = new Uint8Array(36);
  out.set(UPGRADE_TO_SELECTOR, 0);
  out.set(implementation, 16);
  return out;
}

/** The first four bytes of keccak256 of a function signature. */
function selector(signature: string): Uint8Array {
  return keccak256(new TextEncoder().encode(signature)).slice(0, 4);
}

function upgrade(
  intent: string,
  from: Uint8Array,
  to: Uint8Array | undefined,
  gasLimit: bigint,
  data: Uint8Array,
) {
  const tx: DepositTransaction = {
    kind: "deposit",
    sourceHash: upgradeDepositSourceHash(intent),
    from,
    to,
    mint: 0n,
    value: 0n,
    gasLimit,
    isSystemTx: false,
    data,
  };
  return tx;
}

/** The eight Isthmus upgrade deposits, in block order. */
export function isthmusUpgradeDeposits(): DepositTransaction[] {
  const l1BlockDeployer = fromHex("0x4210000000000000000000000000000000000003");
  const gpoDeployer = fromHex("0x4210000000000000000000000000000000000004");
  const vaultDeployer = fromHex("0x4210000000000000000000000000000000000005");
  return [
    upgrade(
      "Isthmus: L1 Block Deployment",
      l1BlockDeployer,
      undefined,
      425_000n,
      fromHex(ISTHMUS_L1_BLOCK_DEPLOYMENT),
    ),
    upgrade(
      "Isthmus: Gas Price Oracle Deployment",
      gpoDeployer,
      undefined,
      1_625_000n,
      fromHex(ISTHMUS_GAS_PRICE_ORACLE_DEPLOYMENT),
    ),
    upgrade(
      "Isthmus: Operator Fee Vault Deployment",
      vaultDeployer,
      undefined,
      500_000n,
      fromHex(ISTHMUS_OPERATOR_FEE_VAULT_DEPLOYMENT),
    ),
    upgrade(
      "Isthmus: L1 Block Proxy Update",
      ZERO_ADDRESS,
      L1_BLOCK_ADDRESS,
      50_000n,
      upgradeToCalldata(createAddress(l1BlockDeployer)),
    ),
    upgrade(
      "Isthmus: Gas Price Oracle Proxy Update",
      ZERO_ADDRESS,
      GAS_PRICE_ORACLE_ADDRESS,
      50_000n,
      upgradeToCalldata(createAddress(gpoDeployer)),
    ),
    upgrade(
      "Isthmus: Operator Fee Vault Proxy Update",
      ZERO_ADDRESS,
      OPERATOR_FEE_VAULT_ADDRESS,
      50_000n,
      upgradeToCalldata(createAddress(vaultDeployer)),
    ),
    upgrade(
      "Isthmus: Gas Price Oracle Set Isthmus",
      L1_INFO_DEPOSITOR,
      GAS_PRICE_ORACLE_ADDRESS,
      90_000n,
      selector("setIsthmus()"),
    ),
    upgrade(
      "Isthmus: EIP-2935 Contract Deployment",
      EIP2935_DEPLOYER,
      undefined,
      250_000n,
      fromHex(ISTHMUS_EIP2935_CREATION),
    ),
  ];
}

/** The five Jovian upgrade deposits, in block order. */
export function jovianUpgradeDeposits(): DepositTransaction[] {
  const l1BlockDeployer = fromHex("0x4210000000000000000000000000000000000006");
  const gpoDeployer = fromHex("0x4210000000000000000000000000000000000007");
  return [
    upgrade(
      "Jovian: L1 Block Deployment",
      l1BlockDeployer,
      undefined,
      447_315n,
      fromHex(JOVIAN_L1_BLOCK_DEPLOYMENT),
    ),
    upgrade(
      "Jovian: L1 Block Proxy Update",
      ZERO_ADDRESS,
      L1_BLOCK_ADDRESS,
      50_000n,
      upgradeToCalldata(createAddress(l1BlockDeployer)),
    ),
    upgrade(
      "Jovian: Gas Price Oracle Deployment",
      gpoDeployer,
      undefined,
      1_750_714n,
      fromHex(JOVIAN_GAS_PRICE_ORACLE_DEPLOYMENT),
    ),
    upgrade(
      "Jovian: Gas Price Oracle Proxy Update",
      ZERO_ADDRESS,
      GAS_PRICE_ORACLE_ADDRESS,
      50_000n,
      upgradeToCalldata(createAddress(gpoDeployer)),
    ),
    upgrade(
      "Jovian: Gas Price Oracle Set Jovian",
      L1_INFO_DEPOSITOR,
      GAS_PRICE_ORACLE_ADDRESS,
      90_000n,
      selector("setJovian()"),
    ),
  ];
}

let isthmusEncoded: readonly Uint8Array[] | undefined;
let jovianEncoded: readonly Uint8Array[] | undefined;

/** EIP-2718 encodings of the Isthmus upgrade deposits (computed once). */
export function isthmusUpgradeTransactions(): readonly Uint8Array[] {
  isthmusEncoded ??= isthmusUpgradeDeposits().map(encodeDepositTransaction);
  return isthmusEncoded;
}

/** EIP-2718 encodings of the Jovian upgrade deposits (computed once). */
export function jovianUpgradeTransactions(): readonly Uint8Array[] {
  jovianEncoded ??= jovianUpgradeDeposits().map(encodeDepositTransaction);
  return jovianEncoded;
}

/** Whether the L2 block at `l2Timestamp` is the activation block of a fork with upgrade deposits (Isthmus, Jovian). */
export function isUpgradeActivationBlock(rollupConfig: RollupConfig, l2Timestamp: bigint): boolean {
  return (
    isForkActivationBlock(rollupConfig, OpFork.Isthmus, l2Timestamp) ||
    isForkActivationBlock(rollupConfig, OpFork.Jovian, l2Timestamp)
  );
}

/** The upgrade deposits of the L2 block at `l2Timestamp` (Isthmus's, then Jovian's, when both activate). */
export function upgradeTransactionsAt(rollupConfig: RollupConfig, l2Timestamp: bigint): Uint8Array[] {
  const out: Uint8Array[] = [];
  if (isForkActivationBlock(rollupConfig, OpFork.Isthmus, l2Timestamp))
    out.push(...isthmusUpgradeTransactions());
  if (isForkActivationBlock(rollupConfig, OpFork.Jovian, l2Timestamp))
    out.push(...jovianUpgradeTransactions());
  return out;
}
