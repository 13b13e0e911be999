/**
 * What the sequencer builds next in L1 mode (docs/node/l1.md "L1 mode"): the timestamp (exactly parent + block
 * time), the L1 origin chosen as op-node's sequencer chooses it, and the block's payload attributes and deposits
 * from src/derive's attributes builder, so that a block derived back from L1 is the block sealed here.
 *
 * Origin rule: keep the parent's origin unless its successor is confirmed on L1, extends it by hash and is not
 * newer than the new block; past the sequencer drift (the block would be more than 1800 s after its origin) the
 * successor is required: without it nothing is built (the plan waits for L1), and a block that still carries
 * the old origin past the drift carries no pool transactions.
 */
import { type PayloadAttributes, type RollupConfig, bytesEqual, toHex } from "../../chain/index.js";
import {
  type L1OriginInfo,
  MAX_SEQUENCER_DRIFT_FJORD,
  type SystemConfig,
  applyConfigUpdates,
  buildPayloadAttributes,
  decodeL1InfoDeposit,
  deriveUserDeposits,
  systemConfigFromGenesis,
  systemConfigFromL2Block,
} from "../../derive/index.js";
import type { Logger } from "../../log/index.js";
import type { StoredBlock } from "../store/block-store.js";
import { L1OriginUnavailableError } from "./errors.js";
import type { L1Follower } from "./follower.js";

/** One block to build: its attributes, the deposits that open it, whether pool transactions may follow. */
export interface BlockPlan {
  readonly timestamp: bigint;
  readonly attributes: PayloadAttributes;
  /** EIP-2718 deposits, in order: the L1 info deposit, user deposits (new epoch), upgrade deposits. */
  readonly deposits: readonly Uint8Array[];
  readonly noTxPool: boolean;
  /** Wall-clock time (ms since the epoch) the block is sealed at: its timestamp. */
  readonly sealAtMs: number;
  /** Time spent planning (origin choice, attributes), ms; includes any wait for L1 data. */
  readonly planMs?: number;
  readonly l1Origin: { readonly number: bigint; readonly hash: Uint8Array };
  readonly sequenceNumber: bigint;
}

export interface L1PlannerOptions {
  readonly rollupConfig: RollupConfig;
  readonly follower: L1Follower;
  readonly logger: Logger;
}

/** What a parent block says about its epoch. */
interface ParentEpoch {
  readonly origin: L1OriginInfo;
  readonly sequenceNumber: bigint;
  readonly systemConfig: SystemConfig;
}

function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

export class L1BlockPlanner {
  private genesisOrigin: L1OriginInfo | undefined;
  private waitingLogged = false;
  private reorgLoggedFor: string | undefined;
  private readonly depositContract: Uint8Array;

  constructor(private readonly opts: L1PlannerOptions) {
    const address = opts.rollupConfig.depositContractAddress;
    if (address === undefined || opts.rollupConfig.genesis === undefined)
      throw new L1OriginUnavailableError("the rollup config lacks the deposit contract or the genesis", {});
    this.depositContract = address;
  }

  /** Reads the L2 genesis' L1 origin from L1 (once; the node calls this before it starts sequencing). */
  async init(): Promise<void> {
    if (this.genesisOrigin !== undefined) return;
    const l1 = this.opts.rollupConfig.genesis!.l1;
    const header = await this.opts.follower.headerByHash(l1.hash);
    if (header === undefined || header.number !== l1.number)
      throw new L1OriginUnavailableError("the L1 does not have the rollup config's genesis L1 block", {
        number: l1.number,
        hash: toHex(l1.hash),
      });
    this.genesisOrigin = this.opts.follower.originOf(header);
  }

  private parentEpoch(parent: StoredBlock): ParentEpoch {
    const rollup = this.opts.rollupConfig;
    if (parent.header.number === 0n) {
      if (this.genesisOrigin === undefined)
        throw new L1OriginUnavailableError("the genesis L1 origin was not read (init)", {});
      return {
        origin: this.genesisOrigin,
        sequenceNumber: 0n,
        systemConfig: systemConfigFromGenesis(rollup.genesis!.systemConfig),
      };
    }
    const first = parent.transactions[0];
    if (first === undefined)
      throw new L1OriginUnavailableError("the parent block has no L1 info deposit", {
        number: parent.header.number,
      });
    const info = decodeL1InfoDeposit(first);
    return {
      // Everything an epoch's blocks need of their origin is in the parent: the L1 info deposit, and the
      // header's prevRandao (the origin's mixHash) and parent beacon root (the origin's).
      origin: {
        number: info.number,
        hash: info.blockHash,
        timestamp: info.timestamp,
        baseFee: info.baseFee,
        blobBaseFee: info.blobBaseFee,
        mixHash: parent.header.mixHash,
        parentBeaconBlockRoot: parent.header.parentBeaconBlockRoot ?? new Uint8Array(32),
      },
      sequenceNumber: info.sequenceNumber,
      systemConfig: systemConfigFromL2Block(parent.header, info, rollup),
    };
  }

  /**
   * The plan of the child of `parent`. Waits (through `sleepUntil`, which the sequencer's stop interrupts) for
   * the wall clock to reach the parent's timestamp, and past the drift for L1; undefined when `stopped()`.
   */
  async plan(
    parent: StoredBlock,
    sleepUntil: (ms: number) => Promise<void>,
    stopped: () => boolean,
    interrupted: () => Promise<void>,
  ): Promise<BlockPlan | undefined> {
    const rollup = this.opts.rollupConfig;
    const { follower, logger } = this.opts;
    const timestamp = parent.header.timestamp + rollup.blockTime;
    // The block is built during the block time before its timestamp, and sealed at it.
    await sleepUntil(Number(parent.header.timestamp) * 1000);
    if (stopped()) return undefined;
    const planStart = nowMs();
    const epoch = this.parentEpoch(parent);
    this.checkOrigin(epoch.origin);
    let adopted: { origin: L1OriginInfo; deposits: Uint8Array[]; systemConfig: SystemConfig } | undefined;
    // Catching up, an origin L1 already has but the follower is still fetching is worth one poll's wait (so a
    // chain behind the clock adopts the origins L1 has); past the drift the next origin is required.
    let waitedForFetch = false;
    for (;;) {
      const pastDrift = timestamp > epoch.origin.timestamp + MAX_SEQUENCER_DRIFT_FJORD;
      const catchingUp = Number(timestamp) * 1000 <= nowMs();
      const next = follower.next(epoch.origin);
      if (next.kind === "ready") {
        const block = next.block;
        if (block.origin.timestamp <= timestamp) {
          adopted = {
            origin: block.origin,
            deposits: deriveUserDeposits(block.receipts, this.depositContract, block.hash),
            systemConfig: applyConfigUpdates(
              epoch.systemConfig,
              block.receipts,
              rollup,
              block.header.timestamp,
            ),
          };
        }
        break;
      }
      if (!pastDrift) {
        if (next.kind === "unavailable" || !catchingUp || waitedForFetch) break;
        waitedForFetch = true;
      } else if (!this.waitingLogged) {
        this.waitingLogged = true;
        logger.warn(
          {
            l2Timestamp: timestamp,
            origin: epoch.origin.number,
            originTimestamp: epoch.origin.timestamp,
            l1Head: follower.headNumber,
            reorged: next.kind === "unavailable" && next.reorged,
          },
          "the next L2 block needs the next L1 origin (sequencer drift): waiting for L1",
        );
      }
      await Promise.race([follower.changed(), interrupted()]);
      if (stopped()) return undefined;
    }
    if (this.waitingLogged) {
      this.waitingLogged = false;
      logger.info({ l2Timestamp: timestamp, l1Head: follower.headNumber }, "L1 origin available again");
    }
    const origin = adopted?.origin ?? epoch.origin;
    const attributes = buildPayloadAttributes({
      rollupConfig: rollup,
      systemConfig: adopted?.systemConfig ?? epoch.systemConfig,
      l2Parent: {
        hash: parent.hash,
        number: parent.header.number,
        timestamp: parent.header.timestamp,
        l1OriginNumber: epoch.origin.number,
        l1OriginHash: epoch.origin.hash,
        sequenceNumber: epoch.sequenceNumber,
      },
      l1Origin: origin,
      ...(adopted === undefined ? {} : { userDeposits: adopted.deposits }),
      batchTransactions: [],
    });
    return {
      timestamp,
      attributes: {
        timestamp: attributes.timestamp,
        prevRandao: attributes.prevRandao,
        suggestedFeeRecipient: attributes.suggestedFeeRecipient,
        gasLimit: attributes.gasLimit,
        ...(attributes.parentBeaconBlockRoot === undefined
          ? {}
          : { parentBeaconBlockRoot: attributes.parentBeaconBlockRoot }),
        ...(attributes.eip1559Params === undefined ? {} : { eip1559Params: attributes.eip1559Params }),
        ...(attributes.minBaseFee === undefined ? {} : { minBaseFee: attributes.minBaseFee }),
      },
      deposits: attributes.transactions.slice(0, attributes.depositCount),
      noTxPool: timestamp > origin.timestamp + MAX_SEQUENCER_DRIFT_FJORD,
      sealAtMs: Number(timestamp) * 1000,
      planMs: nowMs() - planStart,
      l1Origin: attributes.l1Origin,
      sequenceNumber: attributes.sequenceNumber,
    };
  }

  /** Logs loudly (once per origin) when L1 no longer holds the head's L1 origin (not handled: docs/node/l1.md "L1 mode"). */
  private checkOrigin(origin: L1OriginInfo): void {
    const seen = this.opts.follower.canonicalHash(origin.number);
    if (seen === undefined || bytesEqual(seen, origin.hash)) return;
    const key = toHex(origin.hash);
    if (this.reorgLoggedFor === key) return;
    this.reorgLoggedFor = key;
    this.opts.logger.error(
      { origin: origin.number, hash: key, l1Now: toHex(seen) },
      "L1 reorg: the L1 origin of the head is no longer on L1; blocks built on it will not derive (not handled yet, docs/node/l1.md)",
    );
  }
}
