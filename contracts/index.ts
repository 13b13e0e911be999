/**
 * The contracts package's public surface: the committed artifacts, their typed ABIs and deployment through viem.
 * The compiler (contracts/compile.ts, `npm run contracts:compile`) is a build tool and not part of it.
 */
export {
  ARTIFACTS_DIR,
  artifactPath,
  type ContractArtifact,
  SOLC_SETTINGS,
  SOLC_VERSION,
} from "./artifact-format.js";
export {
  aggregateVerifierAbi,
  CONTRACT_NAMES,
  type ContractName,
  depositPortalAbi,
  eip3009TokenAbi,
  erc1271WalletAbi,
  loadArtifact,
  protocolVersionsAbi,
  scheduleIdAggregateVerifierAbi,
  systemConfigAbi,
  teeProverRegistryAbi,
  teeVerifierAbi,
} from "./artifacts.js";
export {
  LOAD_CONTRACT_NAMES,
  type LoadContractName,
  loadLoadArtifact,
  loadNftAbi,
  loadPoolAbi,
  loadStorageAbi,
  loadTokenAbi,
} from "./load-artifacts.js";
export { ContractDeploymentError, deployArtifact, type DeployClients, type Deployment } from "./deploy.js";
export { ContractsError, type ContractsErrorKind } from "./errors.js";
export {
  DEVNET_BATCH_INBOX,
  deployL1Contracts,
  deployProofVerifiers,
  L1_CONTRACTS,
  type L1ContractName,
  type L1DeployOptions,
  type L1Deployment,
  L1DeploymentConflictError,
  l1ContractAddresses,
  type ProofVerifiersDeployment,
  type ProofVerifiersOptions,
  type SystemConfigInit,
  type UpgradeScheduleOptions,
} from "./l1-deploy.js";
export {
  pinnedScheduleId,
  VERIFIER_VERSIONS,
  type VerifierVersion,
  verifierVersionOf,
} from "./verifier-version.js";
