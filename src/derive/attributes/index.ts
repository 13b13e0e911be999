/** The attributes stage: system config, L1 info and user deposits, upgrade transactions, payload attributes. */
export {
  CONFIG_UPDATE_TOPIC,
  ConfigUpdateType,
  DEFAULT_DA_FOOTPRINT_GAS_SCALAR,
  type ReceiptLogs,
  type SystemConfig,
  applyConfigUpdateLog,
  applyConfigUpdates,
  ecotoneScalars,
  eip1559ParamsOf,
  encodeEcotoneScalar,
  isValidEcotoneScalar,
  systemConfigFromGenesis,
  systemConfigFromL2Block,
} from "./system-config.js";
export { l1InfoSourceHash, upgradeDepositSourceHash, userDepositSourceHash } from "./source-hash.js";
