/**
 * The proof program as the enclave runs it for one Prove request (docs/protocol.md "Proof pipeline", steps
 * 3-7): verify every hash-keyed preimage, read the boot information, look up the config hash (refusing
 * unknown chains), derive and execute the range, check the claim, then sign the journals.
 */
import type { Preimage } from "../generated/protocol/index.js";
import type { ProofResult } from "../generated/rpc/index.js";
import {
  decodeHeader,
  DEV_CHAIN_ID,
  DEV_GENESIS_TIME,
  devRollupConfig,
  findBuiltInChain,
  genesisFactsOf,
  initKeccak,
  keccak256Key,
  type PreimageSource,
  type RollupConfig,
  SUPERCHAIN_CHAIN_DATA,
} from "../src/chain/index.js";
import {
  buildProofResult,
  claimScheduleId,
  computeConfigHash,
  configHashFor,
  type ExecutedRange,
  type JournalSigner,
  l2BlockTimestamp,
  refusePastHorizon,
  refuseUnknownForks,
  supportedChainIds,
  UnsupportedChainError,
} from "../src/proof/onchain/index.js";
import { type BootInfo, PreimageTable, readBootInfo } from "../src/proof/preimages/index.js";
import {
  type BlobsChecked,
  type BlockPool,
  type ChainConfigLookup,
  checkBlobsOnPool,
  type ExecutionReport,
  programExecutor,
  refuseUnacceptedKeys,
} from "../src/proof/program/index.js";

/** Derives the range from L1 data and re-executes it against the verified preimages. */
export interface RangeExecutor {
  /** `signal` aborted (the host hung up): stops between blocks with the signal's reason. */
  execute(boot: BootInfo, preimages: PreimageSource, signal?: AbortSignal): Promise<ExecutedRange>;
}

export interface ProofProgram {
  readonly signer: JournalSigner;
  readonly teeImageHash: Uint8Array;
  readonly executor: RangeExecutor;
  /** The config hash of a chain id (default: the hardcoded table, `configHashFor`). */
  readonly configHash?: (chainId: bigint) => Uint8Array;
  /**
   * For the schedule-id journal version only: the upgrade schedule id of a claim, computed from the schedule
   * built into the image (EnclaveChains.scheduleId), never from the request. Absent: the spec's journal.
   */
  readonly scheduleId?: (chainId: bigint, claimedBlock: bigint) => Uint8Array;
  /** Refuses a request past the image's fork horizon (EnclaveChains.checkHorizon), before the program runs. */
  readonly checkHorizon?: (boot: BootInfo, preimages: PreimageSource) => void;
  /**
   * Checks every hash-keyed preimage against its key, resolving only when all of them were checked and match
   * (EnclaveChains.verifyPreimages: on the block workers, which then check the request's blobs ahead of
   * derivation). Absent: on this thread, `PreimageTable.verifyContent`.
   */
  readonly verifyPreimages?: VerifyPreimages;
}

/** A rollup config given to a local-mode enclave at start (docs/decisions.md "Development rollup config"). */
export interface DevelopmentChain {
  readonly rollupConfig: RollupConfig;
  /** Its config hash, computed at start from the config's genesis facts. */
  readonly configHash: Uint8Array;
}

/** The enclave's chains: the hardcoded config-hash table plus, in local mode only, one development config. */
export interface EnclaveChains {
  readonly configHash: (chainId: bigint) => Uint8Array;
  /** Refuses a request whose L1 head or claimed block lies past the image's fork horizon. */
  readonly checkHorizon: (boot: BootInfo, preimages: PreimageSource) => void;
  /** The schedule id a schedule-id verifier pins for a claim on a chain (its built-in upgrade schedule). */
  readonly scheduleId: (chainId: bigint, claimedBlock: bigint) => Uint8Array;
  readonly lookup: ChainConfigLookup;
  readonly executor: RangeExecutor;
  /**
   * With block workers (a pool of two or more): the preimages checked on them, in shares (BlockPool.verifyAll),
   * then the request's blobs, one per worker job (checkBlobsOnPool).
   */
  readonly verifyPreimages?: VerifyPreimages;
}

/** The rollup config of a built-in chain: the registry's, or the standalone dev chain's (fixed genesis). */
function builtInRollupConfig(chainId: bigint): RollupConfig | undefined {
  if (!supportedChainIds().includes(chainId)) return undefined;
  if (chainId === DEV_CHAIN_ID) return devRollupConfig(DEV_CHAIN_ID, DEV_GENESIS_TIME);
  return findBuiltInChain(chainId)?.rollupConfig;
}

/** The config hash of a rollup config that carries its genesis and contract addresses. */
export function developmentChain(rollupConfig: RollupConfig): DevelopmentChain {
  return { rollupConfig, configHash: computeConfigHash(genesisFactsOf(rollupConfig)) };
}

/** A check of a request's preimages off this thread; resolves with how many of its blobs were checked ahead. */
export type VerifyPreimages = (preimages: PreimageTable, signal?: AbortSignal) => Promise<BlobsChecked>;

/**
 * The preimages' check on a block pool (its workers read the table in place), then the blobs' (derivation accepts
 * those on their sha256 and checks any other in full).
 */
function verifiedOn(pool: BlockPool): VerifyPreimages {
  return async (preimages, signal) => {
    await pool.verifyAll(preimages.toShared(), signal);
    return checkBlobsOnPool(pool, preimages, signal);
  };
}

/**
 * The chains this enclave proves: the built-in ones, and a development chain (local mode) that replaces the
 * built-in row of its chain id, config hash included.
 */
export function enclaveChains(
  development?: DevelopmentChain,
  execution: {
    /** Block worker threads (docs/enclave.md "Parallel execution"); none: sequential. */
    readonly pool?: BlockPool;
    /** Told how each range was executed (the enclave logs it). */
    readonly onExecuted?: (report: ExecutionReport) => void;
  } = {},
): EnclaveChains {
  for (const entry of SUPERCHAIN_CHAIN_DATA)
    refuseUnknownForks(entry.hardforks, `the built-in registry entry of ${entry.name}`);
  const devId = development?.rollupConfig.l2ChainId;
  const lookup: ChainConfigLookup = (chainId) => {
    if (development !== undefined && chainId === devId) return { rollupConfig: development.rollupConfig };
    const rollupConfig = builtInRollupConfig(chainId);
    return rollupConfig === undefined ? undefined : { rollupConfig };
  };
  const rollupConfigOf = (chainId: bigint): RollupConfig => {
    const chain = lookup(chainId);
    if (chain === undefined) throw new UnsupportedChainError(chainId);
    return chain.rollupConfig;
  };
  return {
    configHash: (chainId) =>
      development !== undefined && chainId === devId
        ? development.configHash.slice()
        : configHashFor(chainId),
    scheduleId: (chainId, claimedBlock) => claimScheduleId(rollupConfigOf(chainId), claimedBlock),
    checkHorizon: (boot, preimages) => {
      // Without its L1 head header the request is refused by derivation, which reads it first.
      const l1Header = preimages.tryGet(keccak256Key(boot.l1Head));
      refusePastHorizon({
        l1HeadTimestamp: l1Header === undefined ? 0n : decodeHeader(l1Header).timestamp,
        claimTimestamp: l2BlockTimestamp(rollupConfigOf(boot.chainId), boot.claimedL2BlockNumber),
        claimedBlock: boot.claimedL2BlockNumber,
      });
    },
    lookup,
    executor: programExecutor(lookup, execution),
    ...(execution.pool !== undefined && execution.pool.workers > 1
      ? { verifyPreimages: verifiedOn(execution.pool) }
      : {}),
  };
}

/**
 * One proof over a request's preimages: keys the enclave never takes refused, hash-keyed values verified, then
 * the program. `signal` (the connection's hang-up) is checked between the stages and the program's blocks;
 * nothing is signed once it is aborted.
 */
export async function runProof(
  program: ProofProgram,
  request: PreimageTable | readonly Preimage[],
  signal?: AbortSignal,
): Promise<ProofResult> {
  const preimages = request instanceof PreimageTable ? request : PreimageTable.fromPreimages(request);
  refuseUnacceptedKeys(preimages.keys());
  // The WebAssembly keccak (once per process): ~40x the pure-JS one over a whole witness, identical digests.
  await initKeccak();
  if (program.verifyPreimages === undefined) preimages.verifyContent(() => signal?.throwIfAborted());
  else await program.verifyPreimages(preimages, signal);
  signal?.throwIfAborted();
  const boot = readBootInfo(preimages);
  const configHash = (program.configHash ?? configHashFor)(boot.chainId);
  program.checkHorizon?.(boot, preimages);
  const scheduleId = program.scheduleId?.(
    boot.chainId,
    boot.scheduleL2BlockNumber ?? boot.claimedL2BlockNumber,
  );
  const range = await program.executor.execute(boot, preimages, signal);
  signal?.throwIfAborted();
  const context = { boot, configHash, teeImageHash: program.teeImageHash };
  return buildProofResult(
    scheduleId === undefined ? context : { ...context, scheduleId },
    range,
    program.signer,
  );
}
