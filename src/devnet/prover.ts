/**
 * The devnet's prover side on the L1 (docs/devnet.md "The prover"): TEEVerifier and AggregateVerifier deployed once
 * for the devnet's chain (its config hash, anchored at the L2 genesis), or with `--verifier-version schedule-id`
 * ProtocolVersions holding the chain's upgrade schedule and ScheduleIdAggregateVerifier, the proposer and challenger accounts on
 * TEEProverRegistry's proposer list, and the local enclave's signer registered through the registrar.
 */
import { type Address, createWalletClient, getAddress, type Hex, http, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import {
  deployProofVerifiers,
  teeProverRegistryAbi,
  type UpgradeScheduleOptions,
  type VerifierVersion,
} from "../../contracts/index.js";
import { genesisFactsOf, type RollupConfig } from "../chain/index.js";
import { computeConfigHash, ladderTimestamps } from "../proof/onchain/index.js";
import { devnetAccount } from "./accounts.js";
import { runRegistrarCli } from "../registrar/index.js";
import { jsonLine } from "./child.js";
import { DevnetProverSetupError, DevnetUsageError } from "./errors.js";
import type { DevnetL1 } from "./l1/bootstrap.js";
import { readRecord, updateRecord, type VerifiersRecord } from "./record.js";
import type { DevnetRollup } from "./rollup-config.js";

/** L2 blocks per AggregateVerifier proposal, and per intermediate root, unless `npm start` is told otherwise. */
export const DEFAULT_BLOCK_INTERVAL = 10;
export const DEFAULT_INTERMEDIATE_BLOCK_INTERVAL = 2;

const TIMEOUT_MS = 120_000;

export interface VerifierIntervals {
  /** Undefined: the default on a first deployment, the deployed value later. */
  readonly blockInterval: number | undefined;
  readonly intermediateBlockInterval: number | undefined;
}

/** What `npm start` asks of the verifiers: their intervals and their journal version (--verifier-version). */
export interface VerifierChoice extends VerifierIntervals {
  /** Undefined: the recorded verifiers' version, else the spec's. */
  readonly verifierVersion: VerifierVersion | undefined;
}

/**
 * The journal version this start runs with, known before the verifiers are checked (the enclaves and hosts start
 * meanwhile): the flag's, else the recorded verifiers', else the spec's.
 */
export function chosenVerifierVersion(wanted: VerifierVersion | undefined, dataDir: string): VerifierVersion {
  return wanted ?? readRecord(dataDir).verifiers?.verifierVersion ?? "spec";
}

/**
 * ProtocolVersions' schedule for the devnet's chain: the upgrade ladder the enclave image implements, with the
 * rollup config's activation times (forks active at genesis are 0, "not scheduled"; a schedule-id devnet's rollup
 * config schedules one upgrade after genesis, rollup-config.ts `SCHEDULED_UPGRADE`), and the L2 timestamp anchor of
 * the verifier (src/proof/onchain upgrade-schedule.ts, the enclave's own computation).
 */
export function devnetUpgradeSchedule(rollup: RollupConfig): UpgradeScheduleOptions {
  return {
    upgradeTimestamps: ladderTimestamps(rollup),
    l2GenesisBlock: rollup.genesis?.l2.number ?? 0n,
    l2GenesisTime: rollup.genesisL2Time,
    l2BlockTime: rollup.blockTime,
  };
}

/** The chain's config hash as the enclave computes it from the same rollup.json (docs/enclave.md). */
export function devnetConfigHash(rollup: RollupConfig): Hex {
  return toHex(computeConfigHash(genesisFactsOf(rollup)));
}

function deployerWallet(l1: DevnetL1) {
  return createWalletClient({
    account: privateKeyToAccount(devnetAccount("deployer").privateKey),
    chain: l1.anvil.chain,
    transport: http(l1.anvil.rpcUrl),
  });
}

async function hasCode(l1: DevnetL1, address: Address): Promise<boolean> {
  const code = await l1.anvil.client.getCode({ address });
  return code !== undefined && code !== "0x";
}

async function outputRootAt(nodeUrl: string, block: number): Promise<Hex> {
  const response = await fetch(nodeUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "optimism_outputAtBlock",
      params: [`0x${block.toString(16)}`],
    }),
  });
  const body = (await response.json()) as { result?: { outputRoot: Hex }; error?: { message: string } };
  if (body.result === undefined)
    throw new DevnetProverSetupError(`optimism_outputAtBlock(${block}) failed: ${body.error?.message}`, {
      step: "anchor",
      block,
    });
  return body.result.outputRoot;
}

/**
 * The recorded verifiers when they are still on this L1 for this chain, else a fresh deployment (recorded). The
 * intervals are fixed at the first deployment: a later start that names other ones is refused (DevnetUsageError).
 */
export async function ensureProofVerifiers(
  l1: DevnetL1,
  nodeUrl: string,
  rollup: DevnetRollup["config"],
  dataDir: string,
  intervals: VerifierChoice,
): Promise<{ verifiers: VerifiersRecord; deployed: boolean }> {
  const verifierVersion = chosenVerifierVersion(intervals.verifierVersion, dataDir);
  const configHash = devnetConfigHash(rollup);
  const registry = l1.deployment.teeProverRegistry;
  const recorded = readRecord(dataDir).verifiers;
  if (
    recorded !== undefined &&
    recorded.l1ChainId === l1.anvil.chainId &&
    recorded.configHash === configHash &&
    recorded.teeProverRegistry === registry &&
    (await hasCode(l1, recorded.teeVerifier)) &&
    (await hasCode(l1, recorded.aggregateVerifier))
  ) {
    for (const [flag, wanted, deployed] of [
      ["--block-interval", intervals.blockInterval, recorded.blockInterval],
      [
        "--intermediate-block-interval",
        intervals.intermediateBlockInterval,
        recorded.intermediateBlockInterval,
      ],
      ["--verifier-version", intervals.verifierVersion, recorded.verifierVersion],
    ] as const) {
      if (wanted !== undefined && wanted !== deployed)
        throw new DevnetUsageError(
          `${flag} ${wanted} differs from the deployed verifier's ${deployed} (fixed on the first start; ` +
            "remove the data directory to start afresh)",
        );
    }
    return { verifiers: recorded, deployed: false };
  }
  const blockInterval = intervals.blockInterval ?? DEFAULT_BLOCK_INTERVAL;
  const intermediateBlockInterval =
    intervals.intermediateBlockInterval ?? DEFAULT_INTERMEDIATE_BLOCK_INTERVAL;
  // docs/contracts.md "Known divergences" 1: with an interval of 1 a proposal or a challenge cannot verify.
  if (blockInterval < 2 || intermediateBlockInterval < 2 || blockInterval % intermediateBlockInterval !== 0)
    throw new DevnetUsageError(
      `--block-interval (${blockInterval}) and --intermediate-block-interval (${intermediateBlockInterval}) must ` +
        "be at least 2 and the second must divide the first",
    );
  const anchorBlock = Number(rollup.genesis.l2.number);
  const anchorRoot = await outputRootAt(nodeUrl, anchorBlock);
  const deployment = await deployProofVerifiers(
    { publicClient: l1.anvil.client, walletClient: deployerWallet(l1) },
    {
      teeProverRegistry: registry,
      teeImageHash: `0x${"00".repeat(32)}`,
      configHash,
      blockInterval: BigInt(blockInterval),
      intermediateBlockInterval: BigInt(intermediateBlockInterval),
      anchorBlock: BigInt(anchorBlock),
      anchorRoot,
      pollingIntervalMs: 100,
      timeoutMs: TIMEOUT_MS,
      ...(verifierVersion === "schedule-id" ? { schedule: devnetUpgradeSchedule(rollup) } : {}),
    },
  );
  const verifiers: VerifiersRecord = {
    l1ChainId: l1.anvil.chainId,
    verifierVersion,
    ...(deployment.protocolVersions === undefined
      ? {}
      : { protocolVersions: getAddress(deployment.protocolVersions) }),
    teeVerifier: getAddress(deployment.teeVerifier),
    aggregateVerifier: getAddress(deployment.aggregateVerifier),
    teeProverRegistry: registry,
    configHash,
    blockInterval,
    intermediateBlockInterval,
    anchorBlock,
    anchorRoot,
  };
  updateRecord(dataDir, { verifiers });
  return { verifiers, deployed: true };
}

/** Puts `accounts` on TEEProverRegistry's proposer list (the deployer owns it); returns those it added. */
export async function ensureProposers(l1: DevnetL1, accounts: readonly Address[]): Promise<Address[]> {
  const registry = l1.deployment.teeProverRegistry;
  const wallet = deployerWallet(l1);
  const added: Address[] = [];
  for (const account of accounts) {
    const listed = await l1.anvil.client.readContract({
      address: registry,
      abi: teeProverRegistryAbi,
      functionName: "isValidProposer",
      args: [account],
    });
    if (listed) continue;
    const hash = await wallet.writeContract({
      address: registry,
      abi: teeProverRegistryAbi,
      functionName: "setProposer",
      args: [account, true],
    });
    const receipt = await l1.anvil.client.waitForTransactionReceipt({
      hash,
      pollingInterval: 100,
      timeout: TIMEOUT_MS,
    });
    if (receipt.status !== "success")
      throw new DevnetProverSetupError(`setProposer(${account}) reverted`, {
        step: "proposer",
        account,
        transactionHash: hash,
      });
    added.push(account);
  }
  return added;
}

/** One line of `registrar register`: what it did for one enclave signer. */
export interface RegisteredSigner {
  readonly signer: Address;
  readonly action: string;
  readonly valid: boolean;
}

/**
 * The registrar's `register --allow-local` (src/registrar's runRegistrarCli, run in this process) against the
 * devnet's host, the registry owner's key in the registrar's environment: every enclave behind the host gets its
 * signer registered (local mode: image hash zero). DevnetProverSetupError unless every signer ends up valid.
 */
export async function registerEnclaveSigners(
  proverUrl: string,
  l1RpcUrl: string,
  registry: Address,
): Promise<RegisteredSigner[]> {
  let output = "";
  let errors = "";
  const code = await runRegistrarCli(
    [
      "register",
      ...["--host", proverUrl, "--l1-rpc-url", l1RpcUrl, "--registry", registry],
      ...["--allow-local", "--confirmations", "1"],
    ],
    {
      out: (text) => (output += text),
      err: (text) => (errors += text),
      env: { REGISTRAR_PRIVATE_KEY: devnetAccount("deployer").privateKey },
    },
  );
  const signers = output.split("\n").flatMap((line) => {
    const value = jsonLine(line);
    return typeof value?.signer === "string" && typeof value.action === "string"
      ? [{ signer: getAddress(value.signer), action: value.action, valid: value.valid === true }]
      : [];
  });
  if (code !== 0 || signers.length === 0 || signers.some((s) => !s.valid))
    throw new DevnetProverSetupError("the registrar did not leave every enclave signer valid", {
      step: "register",
      exitCode: code,
      output,
      errors,
    });
  return signers;
}
