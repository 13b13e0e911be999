/** The attributes stage: system config, L1 info and user deposits, upgrade transactions, payload attributes. */
export {
  CONFIG_UPDATE_TOPIC,
  ConfigUpdateType,
  DEFAULT_DA_FOOTPRINT_GAS_SCALAR,
  type ReceiptLogs,
  type SystemConfig,
  applyConfigUpdateLog,
  applyConfigUpdates,
  eip1559ParamsOf,
  systemConfigFromGenesis,
  systemConfigFromL2Block,
} from "./system-config.js";
export { TRANSACTION_DEPOSITED_TOPIC, decodeDepositLog, deriveUserDeposits } from "./deposits.js";
export {
  type DerivedL1InfoFormat,
  type L1OriginInfo,
  buildL1BlockInfo,
  decodeL1InfoCalldata,
  decodeL1InfoDeposit,
  l1InfoFormatAt,
  l1OriginFromHeader,
} from "./l1-info.js";
export {
  createAddress,
  isUpgradeActivationBlock,
  isthmusUpgradeDeposits,
  isthmusUpgradeTransactions,
  jovianUpgradeDeposits,
  jovianUpgradeTransactions,
  upgradeToCalldata,
  upgradeTransactionsAt,
} from "./upgrades.js";
export {
  type BuildPayloadAttributesInput,
  type DerivedPayloadAttributes,
  type L2ParentInfo,
  SEQUENCER_FEE_VAULT,
  buildPayloadAttributes,
  depositOnlyAttributes,
} from "./builder.js";
