/**
 * The verifiers of both journal versions on the devnet's L1 (anvil from startDevnetL1, contracts compiled by solc and
 * deployed by deployProofVerifiers): ProtocolVersions (contracts/src/ProtocolVersions.sol) holding an upgrade
 * schedule and ScheduleIdAggregateVerifier on it, next to the spec's AggregateVerifier on the same registry.
 * Proposals are signed by the enclave's signer over journals built by our proof library (buildProofResult, with the
 * schedule id from src/proof/onchain's upgrade-schedule.ts, the enclave's computation) and encoded by
 * proposeArguments, as the proposer does:
 * - ProtocolVersions' schedule ids equal ours, and it keeps Base's ordering, notice and delay rules;
 * - the schedule-id verifier pins activatedScheduleId(claim time) and accepts the proposal signed over it;
 * - the same proposal signed over a schedule with one more upgrade is refused, and so is the proposal signed over
 *   the image's schedule once the chain's registry holds one more active upgrade (the fork horizon);
 * - the spec's verifier still accepts the 196 + 32·N proposal, and each verifier refuses the other version's;
 * - nullifications carry the proposal's pinned schedule id; a claim time in the L1's future is refused;
 * - the proposer and the challenger refuse a verifier of the other journal version than their --journal-version.
 */
import {
  type Account,
  type Address,
  BaseError,
  bytesToHex,
  ContractFunctionRevertedError,
  createWalletClient,
  getAddress,
  type Hex,
  http,
  keccak256,
  zeroHash,
} from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import {
  aggregateVerifierAbi,
  deployProofVerifiers,
  pinnedScheduleId,
  type ProofVerifiersOptions,
  protocolVersionsAbi,
  scheduleIdAggregateVerifierAbi,
  teeProverRegistryAbi,
  teeVerifierAbi,
  verifierVersionOf,
} from "../../contracts/index.js";
import { EnclaveSigner } from "../../enclave/signer.js";
import type { ProofResult } from "../../generated/protocol/index.js";
import { devnetSystemConfig } from "../../src/devnet/accounts.js";
import { devAccounts } from "../../src/chain/index.js";
import { DEVNET_L1_MNEMONIC } from "../../src/devnet/l1/anvil.js";
import { createMemoryLogger, type LogLine } from "../../src/log/index.js";
import { startChallenger } from "../../src/challenger/index.js";
import { startProposer } from "../../src/proposer/index.js";
import { type DevnetL1, startDevnetL1 } from "../../src/devnet/l1/bootstrap.js";
import { revertToSnapshotEachTest } from "./l1-snapshots.js";
import {
  activatedScheduleId,
  buildProofResult,
  configHashFor,
  nullifyArguments,
  type OnchainProposal,
  proposeArguments,
  scheduleIdOf,
  supportedChainIds,
} from "../../src/proof/onchain/index.js";

const deployer = mnemonicToAccount(DEVNET_L1_MNEMONIC, { addressIndex: 0 });
const proposer = mnemonicToAccount(DEVNET_L1_MNEMONIC, { addressIndex: 5 });
const challenger = mnemonicToAccount(DEVNET_L1_MNEMONIC, { addressIndex: 6 });
const responder = mnemonicToAccount(DEVNET_L1_MNEMONIC, { addressIndex: 7 });

const intervals = { blockInterval: 4n, intermediateBlockInterval: 2n };
const ANCHOR_BLOCK = 10n;
const L2_BLOCK_TIME = 2n;
const chainId = supportedChainIds()[0] as bigint;
const configHash = configHashFor(chainId);

const bytes = (hex: Hex): Uint8Array => Uint8Array.from(Buffer.from(hex.slice(2), "hex"));
const trueRoot = (block: bigint): Uint8Array => bytes(keccak256(new TextEncoder().encode(`output ${block}`)));
const wrongRoot = (block: bigint): Uint8Array => bytes(keccak256(new TextEncoder().encode(`wrong ${block}`)));

const enclave = EnclaveSigner.generate((length) => new Uint8Array(length).fill(9));

/** The verifier's and ProtocolVersions' ABIs, with TEEVerifier's errors (its reverts reach the caller unchanged). */
const abi = [
  ...scheduleIdAggregateVerifierAbi,
  ...protocolVersionsAbi.filter((item) => item.type !== "constructor"),
  ...teeVerifierAbi.filter((item) => item.type === "error"),
];

describe("the schedule-id verifier and ProtocolVersions on the devnet's L1", () => {
  let l1: DevnetL1;
  const takeSnapshot = revertToSnapshotEachTest(() => l1);
  let genesisTime: bigint;
  /** ids 0..8 active from genesis (0), id 9 at genesis + 20 s: before every claim below. */
  let schedule: bigint[];
  let specVerifier: Address;
  let scheduleVerifier: Address;
  let protocolVersions: Address;

  const wallet = (account: Account) =>
    createWalletClient({ account, chain: l1.anvil.chain, transport: http(l1.anvil.rpcUrl) });
  const claimTime = (block: bigint) => genesisTime + block * L2_BLOCK_TIME;

  /** The decoded revert of a call as `account`, e.g. `InvalidSigner(0x…)`. */
  async function revertOf(
    account: Account,
    address: Address,
    functionName: string,
    args: readonly unknown[],
  ): Promise<string> {
    try {
      await l1.anvil.client.simulateContract({ address, abi, functionName, args, account } as never);
    } catch (e) {
      const reverted =
        e instanceof BaseError ? e.walk((x) => x instanceof ContractFunctionRevertedError) : null;
      if (reverted instanceof ContractFunctionRevertedError && reverted.data !== undefined)
        return `${reverted.data.errorName}(${(reverted.data.args ?? []).map(String).join(",")})`;
      throw e;
    }
    throw new Error(`${functionName} did not revert`);
  }

  async function send(account: Account, address: Address, functionName: string, args: readonly unknown[]) {
    const { request } = await l1.anvil.client.simulateContract({
      address,
      abi: [...abi, ...teeProverRegistryAbi],
      functionName,
      args,
      account,
    } as never);
    const hash = await wallet(account).writeContract(request as never);
    const receipt = await l1.anvil.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    expect(receipt.status).toBe("success");
    return receipt;
  }

  const read = <T>(address: Address, functionName: string, args: readonly unknown[] = []): Promise<T> =>
    l1.anvil.client.readContract({ address, abi, functionName, args } as never) as Promise<T>;

  /** The current L1 head, one block in the past. */
  async function l1Head() {
    const head = await l1.anvil.client.getBlock();
    await l1.anvil.mine();
    return { hash: head.hash, number: head.number };
  }

  /** The enclave's proof of (start, start + 4] for `by`, signed over `scheduleId` (none: the spec's journal). */
  async function prove(options: {
    start: bigint;
    by: Account;
    scheduleId?: Uint8Array;
    rootAt?: (block: bigint) => Uint8Array;
    agreedRoot?: Uint8Array;
    end?: bigint;
    l1?: { hash: Hex; number: bigint };
  }): Promise<ProofResult> {
    const end = options.end ?? options.start + intervals.blockInterval;
    const rootAt = options.rootAt ?? trueRoot;
    const l1Ref = options.l1 ?? (await l1Head());
    const outputRoots: Uint8Array[] = [];
    for (let b = options.start + 1n; b <= end; b++) outputRoots.push(rootAt(b));
    return buildProofResult(
      {
        boot: {
          l1Head: bytes(l1Ref.hash),
          l1HeadNumber: l1Ref.number,
          agreedOutputRoot: options.agreedRoot ?? trueRoot(options.start),
          claimedOutputRoot: outputRoots.at(-1)!,
          claimedL2BlockNumber: end,
          chainId,
          proposer: bytes(options.by.address),
          intermediateBlockInterval: intervals.intermediateBlockInterval,
        },
        configHash,
        teeImageHash: new Uint8Array(32),
        ...(options.scheduleId === undefined ? {} : { scheduleId: options.scheduleId }),
      },
      { startBlock: options.start, outputRoots },
      enclave,
    );
  }

  const proposeArgs = (result: ProofResult, start: bigint) => {
    const a = proposeArguments(result, start, intervals);
    return [a.endingBlock, a.rootClaim, [...a.intermediateRoots], a.proof] as const;
  };

  beforeAll(async () => {
    l1 = await startDevnetL1({ systemConfig: devnetSystemConfig(), mining: { mode: "auto" } });
    const now = (await l1.anvil.client.getBlock()).timestamp;
    genesisTime = now - 10_000n;
    schedule = [...Array<bigint>(9).fill(0n), genesisTime + 20n];
    const registry = l1.deployment.teeProverRegistry;
    const common: ProofVerifiersOptions = {
      teeProverRegistry: registry,
      teeImageHash: zeroHash,
      configHash: bytesToHex(configHash),
      ...intervals,
      anchorBlock: ANCHOR_BLOCK,
      anchorRoot: bytesToHex(trueRoot(ANCHOR_BLOCK)),
      proposers: [proposer.address, challenger.address],
      pollingIntervalMs: 50,
    };
    const clients = { publicClient: l1.anvil.client, walletClient: wallet(deployer) };
    specVerifier = (await deployProofVerifiers(clients, common)).aggregateVerifier;
    const scheduled = await deployProofVerifiers(clients, {
      ...common,
      schedule: {
        upgradeTimestamps: schedule,
        l2GenesisBlock: 0n,
        l2GenesisTime: genesisTime,
        l2BlockTime: L2_BLOCK_TIME,
        incidentResponder: responder.address,
      },
    });
    scheduleVerifier = scheduled.aggregateVerifier;
    protocolVersions = scheduled.protocolVersions!;
    await send(deployer, registry, "registerSigner", [getAddress(bytesToHex(enclave.address)), zeroHash]);
    await takeSnapshot();
  });

  it("ProtocolVersions holds the schedule, and its schedule ids are the enclave's", async () => {
    expect(await read(protocolVersions, "getSchedule")).toEqual(schedule);
    expect(await read(protocolVersions, "scheduleId")).toBe(bytesToHex(scheduleIdOf(schedule)));
    expect(await read(protocolVersions, "scheduleId", [3n])).toBe(bytesToHex(scheduleIdOf(schedule, 4)));
    for (const t of [0n, genesisTime + 19n, genesisTime + 20n, claimTime(14n)])
      expect(await read(protocolVersions, "activatedScheduleId", [t]), String(t)).toBe(
        bytesToHex(activatedScheduleId(schedule, t)),
      );
    expect(await read(protocolVersions, "activatedScheduleId", [genesisTime])).toBe(zeroHash);
    expect(await read(scheduleVerifier, "PROTOCOL_VERSIONS")).toBe(getAddress(protocolVersions));
    expect(await read(scheduleVerifier, "l2Timestamp", [14n])).toBe(claimTime(14n));
    // What the services read: each verifier's version, and the id a proposal would pin.
    expect(await verifierVersionOf(l1.anvil.client, scheduleVerifier)).toBe("schedule-id");
    expect(await verifierVersionOf(l1.anvil.client, specVerifier)).toBe("spec");
    expect(await pinnedScheduleId(l1.anvil.client, scheduleVerifier, 14n)).toBe(
      bytesToHex(activatedScheduleId(schedule, claimTime(14n))),
    );
  });

  it("ProtocolVersions keeps Base's rules: ordered timestamps, notice for changes, a responder that only delays", async () => {
    const last = schedule.at(-1)!;
    expect(await revertOf(deployer, protocolVersions, "registerUpgrade", [last, 0n])).toBe(
      `TimestampNotAfterPrevious(10,9,${last},${last})`,
    );
    expect(await revertOf(proposer, protocolVersions, "registerUpgrade", [last + 1n, 0n])).toBe(
      `NotOwner(${proposer.address})`,
    );
    // An active upgrade's time cannot change; a future one needs an hour's notice.
    expect(await revertOf(deployer, protocolVersions, "setTimestamp", [9n, last + 1n])).toBe(
      `ActivationAlreadyPassed(9,${last})`,
    );
    await send(deployer, protocolVersions, "registerUpgrade", [0n, 0n]);
    const now = (await l1.anvil.client.getBlock()).timestamp;
    expect(await revertOf(deployer, protocolVersions, "setTimestamp", [10n, now + 60n])).toBe(
      `InsufficientNotice(${now + 60n})`,
    );
    const future = now + 7_200n;
    await send(deployer, protocolVersions, "setTimestamp", [10n, future]);
    expect(await read(protocolVersions, "scheduleId")).toBe(bytesToHex(scheduleIdOf([...schedule, future])));
    expect(await revertOf(responder, protocolVersions, "delayTimestamp", [10n, future - 1n])).toBe(
      `DelayMustBeLater(${future},${future - 1n})`,
    );
    await send(responder, protocolVersions, "delayTimestamp", [10n, future + 60n]);
    expect(await read(protocolVersions, "getSchedule")).toEqual([...schedule, future + 60n]);
  });

  it("accepts a proposal signed over the schedule id of its claim time, and pins that id", async () => {
    const scheduleId = activatedScheduleId(schedule, claimTime(14n));
    expect(bytesToHex(scheduleId)).not.toBe(zeroHash);
    const result = await prove({ start: ANCHOR_BLOCK, by: proposer, scheduleId });
    await send(proposer, scheduleVerifier, "propose", proposeArgs(result, ANCHOR_BLOCK));
    expect(await read(scheduleVerifier, "proposalAt", [10n, 14n])).toBe(1n);
    expect(await read(scheduleVerifier, "scheduleIdOf", [1n])).toBe(bytesToHex(scheduleId));
    expect((await read<OnchainProposal>(scheduleVerifier, "getProposal", [1n])).status).toBe(1);
  });

  it("refuses the same proposal signed over a schedule with one more upgrade, and the image's once the chain has one more", async () => {
    const oneMore = [...schedule, genesisTime + 24n];
    const refused = await prove({
      start: ANCHOR_BLOCK,
      by: proposer,
      scheduleId: activatedScheduleId(oneMore, claimTime(14n)),
    });
    expect(await revertOf(proposer, scheduleVerifier, "propose", proposeArgs(refused, ANCHOR_BLOCK))).toMatch(
      /^InvalidSigner\(0x[0-9a-fA-F]{40}\)$/,
    );
    // The image's schedule id was right until the chain registers an upgrade active at the claim time.
    const image = await prove({
      start: ANCHOR_BLOCK,
      by: proposer,
      scheduleId: activatedScheduleId(schedule, claimTime(14n)),
    });
    await send(deployer, protocolVersions, "registerUpgrade", [genesisTime + 24n, 0n]);
    expect(await revertOf(proposer, scheduleVerifier, "propose", proposeArgs(image, ANCHOR_BLOCK))).toMatch(
      /^InvalidSigner\(0x[0-9a-fA-F]{40}\)$/,
    );
    // …and the image that implements it proves again.
    await send(proposer, scheduleVerifier, "propose", proposeArgs(refused, ANCHOR_BLOCK));
  });

  it("the spec's verifier still accepts the 196 + 32·N proposal; neither verifier takes the other version's", async () => {
    const l1Ref = await l1Head();
    const spec = await prove({ start: ANCHOR_BLOCK, by: proposer, l1: l1Ref });
    const scheduled = await prove({
      start: ANCHOR_BLOCK,
      by: proposer,
      l1: l1Ref,
      scheduleId: activatedScheduleId(schedule, claimTime(14n)),
    });
    expect(await revertOf(proposer, specVerifier, "propose", proposeArgs(scheduled, ANCHOR_BLOCK))).toMatch(
      /^InvalidSigner\(/,
    );
    expect(await revertOf(proposer, scheduleVerifier, "propose", proposeArgs(spec, ANCHOR_BLOCK))).toMatch(
      /^InvalidSigner\(/,
    );
    await send(proposer, specVerifier, "propose", proposeArgs(spec, ANCHOR_BLOCK));
    expect(
      await l1.anvil.client.readContract({
        address: specVerifier,
        abi: aggregateVerifierAbi,
        functionName: "proposalAt",
        args: [10n, 14n],
      }),
    ).toBe(1n);
  });

  it("nullifies with a proof over the proposal's pinned schedule id, not the spec's journal", async () => {
    const scheduleId = activatedScheduleId(schedule, claimTime(14n));
    // A wrong second interval, signed (the registered signer signs what it is given).
    const wrong = await prove({
      start: ANCHOR_BLOCK,
      by: proposer,
      scheduleId,
      rootAt: (b) => (b > 12n ? wrongRoot(b) : trueRoot(b)),
    });
    await send(proposer, scheduleVerifier, "propose", proposeArgs(wrong, ANCHOR_BLOCK));
    const stored = await read<OnchainProposal>(scheduleVerifier, "getProposal", [1n]);
    const counter = (id?: Uint8Array) =>
      prove({
        start: 12n,
        end: 14n,
        by: challenger,
        agreedRoot: trueRoot(12n),
        l1: { hash: stored.l1Head, number: stored.l1HeadNumber },
        ...(id === undefined ? {} : { scheduleId: id }),
      });
    const args = async (id?: Uint8Array) => {
      const a = nullifyArguments(1n, stored, 1, intervals, await counter(id));
      return [a.id, a.proofBytes, a.index, a.root] as const;
    };
    expect(await revertOf(challenger, scheduleVerifier, "nullify", await args())).toMatch(/^InvalidSigner\(/);
    await send(challenger, scheduleVerifier, "nullify", await args(scheduleId));
    expect((await read<OnchainProposal>(scheduleVerifier, "getProposal", [1n])).status).toBe(2);
  });

  it("refuses a claim whose L2 time is still in the L1's future", async () => {
    const now = (await l1.anvil.client.getBlock()).timestamp;
    const ahead = await deployProofVerifiers(
      { publicClient: l1.anvil.client, walletClient: wallet(deployer) },
      {
        teeProverRegistry: l1.deployment.teeProverRegistry,
        teeImageHash: zeroHash,
        configHash: bytesToHex(configHash),
        ...intervals,
        anchorBlock: ANCHOR_BLOCK,
        anchorRoot: bytesToHex(trueRoot(ANCHOR_BLOCK)),
        pollingIntervalMs: 50,
        schedule: {
          upgradeTimestamps: [],
          l2GenesisBlock: 0n,
          l2GenesisTime: now,
          l2BlockTime: L2_BLOCK_TIME,
        },
      },
    );
    const result = await prove({ start: ANCHOR_BLOCK, by: proposer, scheduleId: new Uint8Array(32) });
    expect(
      await revertOf(proposer, ahead.aggregateVerifier, "propose", proposeArgs(result, ANCHOR_BLOCK)),
    ).toMatch(new RegExp(`^L2TimestampInFuture\\(${now + 28n},\\d+\\)$`));
  });

  it("the proposer and the challenger read the verifier's version first and refuse the other one's", async () => {
    const { logger, lines } = createMemoryLogger("service");
    const unreachable = "http://127.0.0.1:9";
    const serviceConfig = (verifier: Address) => ({
      l1RpcUrl: l1.anvil.rpcUrl,
      rollupRpcUrl: unreachable,
      proverUrl: unreachable,
      verifier,
      privateKey: devAccounts(6)[5]!.privateKey,
      pollIntervalMs: 20,
      l1Confirmations: 1,
      proveTimeoutMs: 1_000,
      maxBackoffMs: 50,
      logLevel: "info" as const,
    });
    const failedKind = async (journalVersion: "spec" | "schedule-id", verifier: Address) => {
      const before = lines.length;
      const failure = () => lines.slice(before).find((l: LogLine) => l.msg === "proposal attempt failed");
      const running = startProposer(
        { ...serviceConfig(verifier), journalVersion, queue: undefined },
        { logger },
      );
      const deadline = Date.now() + 60_000;
      while (failure() === undefined && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      await running.stop(1_000);
      return (failure()?.err as { kind?: string } | undefined)?.kind;
    };
    expect(await failedKind("schedule-id", specVerifier)).toBe("journal-version-mismatch");
    expect(await failedKind("spec", scheduleVerifier)).toBe("journal-version-mismatch");
    // The matching version passes the check and fails later, at the unreachable node.
    const matching = await failedKind("spec", specVerifier);
    expect(matching).toBeDefined();
    expect(matching).not.toBe("journal-version-mismatch");
    expect(await failedKind("schedule-id", scheduleVerifier)).not.toBe("journal-version-mismatch");

    // The challenger the same way, before it scans anything.
    const challengerFailure = async (journalVersion: "spec" | "schedule-id", verifier: Address) => {
      const before = lines.length;
      const failure = () => lines.slice(before).find((l: LogLine) => l.msg === "challenge attempt failed");
      const running = startChallenger(
        { ...serviceConfig(verifier), journalVersion, startBlock: 0n, l1LogRange: 2_000n, queue: undefined },
        { logger },
      );
      const deadline = Date.now() + 60_000;
      while (failure() === undefined && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      await running.stop(1_000);
      return failure();
    };
    const refused = await challengerFailure("schedule-id", specVerifier);
    expect(refused?.err).toMatchObject({
      name: "ChallengerJournalVersionError",
      kind: "journal-version-mismatch",
    });
    // With the matching version it scans the verifier's events and fails later, reading the unreachable node
    // about the proposal it found.
    const result = await prove({
      start: ANCHOR_BLOCK,
      by: proposer,
      scheduleId: activatedScheduleId(schedule, claimTime(14n)),
    });
    await send(proposer, scheduleVerifier, "propose", proposeArgs(result, ANCHOR_BLOCK));
    await l1.anvil.mine();
    const later = await challengerFailure("schedule-id", scheduleVerifier);
    expect(later).toBeDefined();
    expect((later?.err as { kind?: string }).kind).not.toBe("journal-version-mismatch");
  });
});
