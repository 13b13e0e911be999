/**
 * Loads the committed contract artifacts (`contracts/artifacts/<ContractName>.json`), as written by
 * `npm run contracts:compile`. Use these to deploy the token, the registry, the test wallet or the L1 contracts.
 */
import { readFileSync } from "node:fs";
import { artifactPath, type ContractArtifact } from "./artifact-format.js";

export type { ContractArtifact } from "./artifact-format.js";

export const CONTRACT_NAMES = [
  "AggregateVerifier",
  "DepositPortal",
  "Eip3009Token",
  "Erc1271Wallet",
  "ProtocolVersions",
  "ScheduleIdAggregateVerifier",
  "SystemConfig",
  "TEEProverRegistry",
  "TEEVerifier",
] as const;
export type ContractName = (typeof CONTRACT_NAMES)[number];

export function loadArtifact(contractName: ContractName): ContractArtifact {
  return JSON.parse(readFileSync(artifactPath(contractName), "utf8")) as ContractArtifact;
}

/** The ABIs `as const`, for viem's type inference (generated with the artifacts). */
export {
  aggregateVerifierAbi,
  depositPortalAbi,
  eip3009TokenAbi,
  erc1271WalletAbi,
  protocolVersionsAbi,
  scheduleIdAggregateVerifierAbi,
  systemConfigAbi,
  teeProverRegistryAbi,
  teeVerifierAbi,
} from "./artifacts/abis.js";
