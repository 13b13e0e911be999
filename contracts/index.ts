/**
 * Contracts (foundation; docs/contracts.md): the Solidity sources' committed solc artifacts, their typed ABIs and
 * deployment through viem.
 *
 * Public surface: the artifact format and solc settings (`ContractArtifact`, `SOLC_VERSION`, `SOLC_SETTINGS`,
 * `artifactPath`), `loadArtifact` and `CONTRACT_NAMES`, each contract's ABI (`aggregateVerifierAbi`,
 * `teeProverRegistryAbi`, `eip3009TokenAbi`, …), deployment (`deployArtifact`), and the errors
 * (`ContractsError` root).
 *
 * Concepts owned: the compiled artifacts and the ABIs every other package calls the contracts with. The compiler
 * (contracts/compile.ts, `npm run contracts:compile`) is a build tool and not part of the surface.
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
