/**
 * Deploying the devnet's L1 contracts: the TEEProverRegistry, the DepositPortal and the SystemConfig, created by
 * one deployer account at three consecutive nonces (default 0, 1, 2 on a fresh L1), so their addresses follow from
 * the deployer and the first nonce alone (`l1ContractAddresses`). Idempotent: a contract already at its address
 * (with the committed runtime code) is kept, so a restarted devnet calls this again and gets the same addresses.
 * The prover's verifiers (TEEVerifier, AggregateVerifier) come after them (`deployProofVerifiers`, docs/contracts.md).
 */
import {
  type Address,
  type Hash,
  type Hex,
  getContractAddress,
  pad,
  type PublicClient,
  zeroAddress,
  zeroHash,
} from "viem";
import { type ContractName, loadArtifact, systemConfigAbi, teeProverRegistryAbi } from "./artifacts.js";
import { ContractDeploymentError, deployArtifact, type DeployClients } from "./deploy.js";
import { ContractsError } from "./errors.js";

/** The devnet's batch inbox: an address without code (op-stack convention: 0xff00…00 ‖ chain id). */
export const DEVNET_BATCH_INBOX: Address = "0xFf00000000000000000000000000000000000901";

/** The L1 contracts in deployment order (nonce offsets 0, 1, 2). */
export const L1_CONTRACTS = ["TEEProverRegistry", "DepositPortal", "SystemConfig"] as const;
export type L1ContractName = (typeof L1_CONTRACTS)[number];

/** The SystemConfig's initial values (its constructor's `InitialConfig`). */
export interface SystemConfigInit {
  readonly owner: Address;
  /** The batcher account (the contract stores it left-padded to 32 bytes as `batcherHash`). */
  readonly batcher: Address;
  readonly basefeeScalar: number;
  readonly blobbasefeeScalar: number;
  /** L2 gas limit, between 21,000,000 and 500,000,000. */
  readonly gasLimit: bigint;
  readonly unsafeBlockSigner: Address;
  /** 0 and 0: unset (the chain's defaults); otherwise both at least 1. */
  readonly eip1559Denominator: number;
  readonly eip1559Elasticity: number;
  readonly operatorFeeScalar: number;
  readonly operatorFeeConstant: bigint;
  readonly minBaseFee: bigint;
  readonly daFootprintGasScalar: number;
  readonly batchInbox: Address;
}

export interface L1DeployOptions {
  readonly systemConfig: SystemConfigInit;
  /** TEEProverRegistry owner (default: the deployer) and initial active image hash (default: zero, local mode). */
  readonly proverRegistry?: { readonly owner?: Address; readonly activeImageHash?: Hex };
  /** Nonce of the first creation (default 0). */
  readonly firstNonce?: number;
  /**
   * Called once after the creation transactions are sent and before their receipts are awaited: an L1 that does
   * not mine by itself (manual mining) mines here, e.g. one block at a chosen timestamp.
   */
  readonly mine?: () => Promise<void>;
  readonly pollingIntervalMs?: number;
  readonly timeoutMs?: number;
}

export interface L1Deployment {
  readonly deployer: Address;
  readonly teeProverRegistry: Address;
  readonly depositPortal: Address;
  readonly systemConfig: Address;
  readonly batchInbox: Address;
  /** The contracts created by this call (empty when all were already deployed). */
  readonly created: readonly { contractName: L1ContractName; transactionHash: Hash; blockNumber: bigint }[];
  /** The L1 block the SystemConfig was deployed in (its `startBlock()`). */
  readonly systemConfigStartBlock: bigint;
}

/** An address of the L1 contracts holds other code, or the deployer's nonce has moved past an undeployed one. */
export class L1DeploymentConflictError extends ContractsError {
  constructor(
    readonly contractName: L1ContractName,
    readonly address: Address,
    reason: string,
  ) {
    super(`cannot deploy ${contractName} at ${address}: ${reason}`, "deployment-conflict", {
      contractName,
      address,
      reason,
    });
  }
}

/** The addresses the L1 contracts get when `deployer` creates them from `firstNonce` on. */
export function l1ContractAddresses(
  deployer: Address,
  firstNonce = 0,
): { teeProverRegistry: Address; depositPortal: Address; systemConfig: Address } {
  const at = (offset: number): Address =>
    getContractAddress({ from: deployer, nonce: BigInt(firstNonce + offset) });
  return { teeProverRegistry: at(0), depositPortal: at(1), systemConfig: at(2) };
}

function constructorArgs(
  contractName: L1ContractName,
  deployer: Address,
  addresses: ReturnType<typeof l1ContractAddresses>,
  options: L1DeployOptions,
): readonly unknown[] {
  switch (contractName) {
    case "TEEProverRegistry":
      return [options.proverRegistry?.owner ?? deployer, options.proverRegistry?.activeImageHash ?? zeroHash];
    case "DepositPortal":
      return [];
    case "SystemConfig": {
      const c = options.systemConfig;
      return [
        {
          owner: c.owner,
          batcherHash: pad(c.batcher, { size: 32 }),
          basefeeScalar: c.basefeeScalar,
          blobbasefeeScalar: c.blobbasefeeScalar,
          gasLimit: c.gasLimit,
          unsafeBlockSigner: c.unsafeBlockSigner,
          eip1559Denominator: c.eip1559Denominator,
          eip1559Elasticity: c.eip1559Elasticity,
          operatorFeeScalar: c.operatorFeeScalar,
          operatorFeeConstant: c.operatorFeeConstant,
          minBaseFee: c.minBaseFee,
          daFootprintGasScalar: c.daFootprintGasScalar,
          batchInbox: c.batchInbox,
          optimismPortal: addresses.depositPortal,
        },
      ];
    }
  }
}

type L1Clients = {
  publicClient: Pick<
    PublicClient,
    "waitForTransactionReceipt" | "getCode" | "getTransactionCount" | "readContract"
  >;
  walletClient: DeployClients["walletClient"];
};

/**
 * Deploys the L1 contracts that are not deployed yet, from `clients.walletClient.account` at nonces
 * `firstNonce`, `firstNonce + 1`, `firstNonce + 2`; returns their addresses. L1DeploymentConflictError when an
 * address holds other code or its nonce is spent; ContractDeploymentError when a creation fails.
 */
export async function deployL1Contracts(clients: L1Clients, options: L1DeployOptions): Promise<L1Deployment> {
  const { publicClient, walletClient } = clients;
  const deployer = walletClient.account.address;
  const firstNonce = options.firstNonce ?? 0;
  const addresses = l1ContractAddresses(deployer, firstNonce);
  const addressOf: Record<L1ContractName, Address> = {
    TEEProverRegistry: addresses.teeProverRegistry,
    DepositPortal: addresses.depositPortal,
    SystemConfig: addresses.systemConfig,
  };
  const nonce = await publicClient.getTransactionCount({ address: deployer, blockTag: "pending" });
  const sent: { contractName: L1ContractName; transactionHash: Hash }[] = [];
  for (const [offset, contractName] of L1_CONTRACTS.entries()) {
    const address = addressOf[contractName];
    const { bytecode, deployedBytecode, abi } = loadArtifact(contractName as ContractName);
    const code = await publicClient.getCode({ address, blockTag: "pending" });
    if (code !== undefined && code !== "0x") {
      if (code.toLowerCase() !== deployedBytecode.toLowerCase())
        throw new L1DeploymentConflictError(contractName, address, "the address holds other code");
      continue;
    }
    const wanted = firstNonce + offset;
    if (nonce + sent.length !== wanted) {
      throw new L1DeploymentConflictError(
        contractName,
        address,
        `the deployer's next nonce is ${nonce + sent.length}, its creation nonce is ${wanted}`,
      );
    }
    const transactionHash = await walletClient.deployContract({
      abi,
      bytecode,
      args: constructorArgs(contractName, deployer, addresses, options),
      account: walletClient.account,
      chain: walletClient.chain,
      nonce: wanted,
    } as Parameters<DeployClients["walletClient"]["deployContract"]>[0]);
    sent.push({ contractName, transactionHash });
  }
  if (sent.length > 0 && options.mine !== undefined) await options.mine();
  const created: { contractName: L1ContractName; transactionHash: Hash; blockNumber: bigint }[] = [];
  for (const { contractName, transactionHash } of sent) {
    const receipt = await publicClient.waitForTransactionReceipt({
      hash: transactionHash,
      ...(options.pollingIntervalMs === undefined ? {} : { pollingInterval: options.pollingIntervalMs }),
      ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    });
    if (
      receipt.status !== "success" ||
      receipt.contractAddress?.toLowerCase() !== addressOf[contractName].toLowerCase()
    ) {
      throw new ContractDeploymentError(contractName, transactionHash, `receipt status ${receipt.status}`);
    }
    created.push({ contractName, transactionHash, blockNumber: receipt.blockNumber });
  }
  const systemConfigStartBlock = await publicClient.readContract({
    address: addresses.systemConfig,
    abi: systemConfigAbi,
    functionName: "startBlock",
  });
  return {
    deployer,
    ...addresses,
    batchInbox: options.systemConfig.batchInbox,
    created,
    systemConfigStartBlock,
  };
}

/** The upgrade schedule of a schedule-id verifier (docs/contracts.md "ScheduleIdAggregateVerifier"). */
export interface UpgradeScheduleOptions {
  /** Activation time of each upgrade in ProtocolVersions id order (0: not scheduled, e.g. active from genesis). */
  readonly upgradeTimestamps: readonly bigint[];
  /** The L2 timestamp anchor: genesis block number and time, and the block time. */
  readonly l2GenesisBlock: bigint;
  readonly l2GenesisTime: bigint;
  readonly l2BlockTime: bigint;
  /** May delay scheduled upgrades (default: none). */
  readonly incidentResponder?: Address;
}

/** Constructor parameters of the proof verifiers (docs/contracts.md "Deployment"). */
export interface ProofVerifiersOptions {
  /** The TEEProverRegistry TEEVerifier reads proposers and signers from. */
  readonly teeProverRegistry: Address;
  /** The enclave image proposals must be signed by (keccak256(PCR0); zero for local-mode enclaves). */
  readonly teeImageHash: Hex;
  /** The chain's config hash (the journal's configHash). */
  readonly configHash: Hex;
  /** L2 blocks per proposal. */
  readonly blockInterval: bigint;
  /** L2 blocks per intermediate root; must divide `blockInterval`. */
  readonly intermediateBlockInterval: bigint;
  /** The L2 block the first proposal starts from, and its output root. */
  readonly anchorBlock: bigint;
  readonly anchorRoot: Hex;
  /** Accounts added to the registry's proposer list (then the deployer must own the registry). */
  readonly proposers?: readonly Address[];
  /**
   * Set: the verifier of the schedule-id journal version (ScheduleIdAggregateVerifier) on a new ProtocolVersions
   * holding this schedule; unset: the spec's AggregateVerifier.
   */
  readonly schedule?: UpgradeScheduleOptions;
  readonly pollingIntervalMs?: number;
  readonly timeoutMs?: number;
}

export interface ProofVerifiersDeployment {
  readonly teeVerifier: Address;
  /** AggregateVerifier, or ScheduleIdAggregateVerifier with `schedule`. */
  readonly aggregateVerifier: Address;
  /** The ProtocolVersions the schedule-id verifier reads (with `schedule` only). */
  readonly protocolVersions?: Address;
}

/**
 * Deploys a TEEVerifier on `teeProverRegistry` and an AggregateVerifier using it (two creations at the deployer's
 * next nonces, after the L1 contracts: their addresses do not move), then adds `proposers` to the registry. With
 * `schedule`, a ProtocolVersions holding it comes before the TEEVerifier and the verifier is a
 * ScheduleIdAggregateVerifier on it. Not idempotent: each call creates new contracts. ContractDeploymentError when
 * a creation or a proposer transaction fails.
 */
export async function deployProofVerifiers(
  clients: DeployClients,
  options: ProofVerifiersOptions,
): Promise<ProofVerifiersDeployment> {
  const waitOptions = {
    ...(options.pollingIntervalMs === undefined ? {} : { pollingIntervalMs: options.pollingIntervalMs }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  };
  const { schedule } = options;
  const protocolVersions =
    schedule === undefined
      ? undefined
      : await deployArtifact(
          clients,
          "ProtocolVersions",
          [
            clients.walletClient.account.address,
            schedule.incidentResponder ?? zeroAddress,
            schedule.upgradeTimestamps,
          ],
          waitOptions,
        );
  const teeVerifier = await deployArtifact(clients, "TEEVerifier", [options.teeProverRegistry], waitOptions);
  const verifierArgs = [
    teeVerifier.address,
    options.teeImageHash,
    options.configHash,
    options.blockInterval,
    options.intermediateBlockInterval,
    options.anchorBlock,
    options.anchorRoot,
  ];
  const aggregateVerifier =
    schedule === undefined || protocolVersions === undefined
      ? await deployArtifact(clients, "AggregateVerifier", verifierArgs, waitOptions)
      : await deployArtifact(
          clients,
          "ScheduleIdAggregateVerifier",
          [
            ...verifierArgs,
            {
              protocolVersions: protocolVersions.address,
              genesisBlockNumber: schedule.l2GenesisBlock,
              genesisTimestamp: schedule.l2GenesisTime,
              blockTime: schedule.l2BlockTime,
            },
          ],
          waitOptions,
        );
  for (const proposer of options.proposers ?? []) {
    const { walletClient, publicClient } = clients;
    const transactionHash = await walletClient.writeContract({
      address: options.teeProverRegistry,
      abi: teeProverRegistryAbi,
      functionName: "setProposer",
      args: [proposer, true],
      account: walletClient.account,
      chain: walletClient.chain,
    });
    const receipt = await publicClient.waitForTransactionReceipt({
      hash: transactionHash,
      ...(options.pollingIntervalMs === undefined ? {} : { pollingInterval: options.pollingIntervalMs }),
      ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    });
    if (receipt.status !== "success") {
      throw new ContractDeploymentError(
        "TEEProverRegistry",
        transactionHash,
        `setProposer(${proposer}) reverted`,
      );
    }
  }
  return {
    teeVerifier: teeVerifier.address,
    aggregateVerifier: aggregateVerifier.address,
    ...(protocolVersions === undefined ? {} : { protocolVersions: protocolVersions.address }),
  };
}
