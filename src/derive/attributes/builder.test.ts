import { describe, expect, it } from "vitest";
import {
  OpFork,
  type RollupConfig,
  builtInChain,
  decodeDepositTransaction,
  headerHash,
  loadFixture,
  fromHex,
  l1InfoSourceHash,
  encodeEcotoneScalar,
} from "../../chain/index.js";
import { fixtureFiles } from "../../chain/fixture-paths.test-support.js";
import { CriticalDeriveError, DroppedInputError } from "../errors.js";
import { SEQUENCER_FEE_VAULT, buildPayloadAttributes, depositOnlyAttributes } from "./builder.js";
import { decodeL1InfoDeposit } from "./l1-info.js";
import { systemConfigFromGenesis } from "./system-config.js";
import { isthmusUpgradeTransactions, jovianUpgradeTransactions } from "./upgrades.js";

describe("payload attributes of the OP Sepolia fixture blocks", () => {
  it("equal the fixtures' attributes and transaction lists, rebuilt from their L1 values and batch transactions", async () => {
    for (const file of fixtureFiles()) {
      const fixture = await loadFixture(file);
      const stated = decodeL1InfoDeposit(fixture.transactions[0]!);
      const isDeposit = (tx: Uint8Array) => tx[0] === 0x7e;
      const firstNonDeposit = fixture.transactions.findIndex((tx) => !isDeposit(tx));
      const deposits = fixture.transactions.slice(1, firstNonDeposit);
      const batchTransactions = fixture.transactions.slice(firstNonDeposit);
      expect(batchTransactions.some(isDeposit)).toBe(false);
      const newEpoch = stated.sequenceNumber === 0n;
      const eip = fixture.attributes.eip1559Params!;
      const view = new DataView(eip.buffer, eip.byteOffset, 8);
      const built = buildPayloadAttributes({
        rollupConfig: fixture.config,
        systemConfig: {
          ...systemConfigFromGenesis(fixture.config.genesis!.systemConfig),
          batcherAddress: stated.batcherAddress,
          scalar: encodeEcotoneScalar(stated.baseFeeScalar, stated.blobBaseFeeScalar),
          gasLimit: fixture.attributes.gasLimit,
          eip1559Denominator: view.getUint32(0),
          eip1559Elasticity: view.getUint32(4),
        },
        l2Parent: {
          hash: headerHash(fixture.parent),
          number: fixture.parent.number,
          timestamp: fixture.parent.timestamp,
          // The parent's L1 origin: the same epoch, or the L1 block before (its hash is not in the fixture).
          l1OriginNumber: newEpoch ? stated.number - 1n : stated.number,
          l1OriginHash: newEpoch ? new Uint8Array(32) : stated.blockHash,
          sequenceNumber: newEpoch ? 0n : stated.sequenceNumber - 1n,
        },
        l1Origin: {
          number: stated.number,
          hash: stated.blockHash,
          timestamp: stated.timestamp,
          baseFee: stated.baseFee,
          blobBaseFee: stated.blobBaseFee,
          mixHash: fixture.attributes.prevRandao,
          parentBeaconBlockRoot: fixture.attributes.parentBeaconBlockRoot,
        },
        userDeposits: newEpoch ? deposits : undefined,
        batchTransactions,
      });
      if (!newEpoch) expect(deposits).toEqual([]);
      expect(built.transactions).toEqual(fixture.transactions);
      expect(built.depositCount).toBe(firstNonDeposit);
      expect(built.number).toBe(fixture.parent.number + 1n);
      expect(built.sequenceNumber).toBe(stated.sequenceNumber);
      const {
        timestamp,
        prevRandao,
        suggestedFeeRecipient,
        parentBeaconBlockRoot,
        gasLimit,
        eip1559Params,
        minBaseFee,
      } = built;
      expect({
        timestamp,
        prevRandao,
        suggestedFeeRecipient,
        parentBeaconBlockRoot,
        gasLimit,
        eip1559Params,
        minBaseFee,
      }).toEqual({
        ...fixture.attributes,
        minBaseFee: undefined,
      });
    }
  });
});

describe("payload attributes rules", () => {
  const base = builtInChain(8453n).rollupConfig;
  const holocene = 1_000_000n;
  const isthmus = 1_000_100n;
  const jovian = 1_000_200n;
  const rollupConfig: RollupConfig = {
    ...base,
    genesisL2Time: 0n,
    forkTimes: {
      ...base.forkTimes,
      [OpFork.Holocene]: holocene,
      [OpFork.Isthmus]: isthmus,
      [OpFork.Jovian]: jovian,
    },
  };
  const systemConfig = {
    ...systemConfigFromGenesis(base.genesis!.systemConfig),
    eip1559Denominator: 250,
    eip1559Elasticity: 6,
    minBaseFee: 5n,
  };
  const originHash = new Uint8Array(32).fill(0xaa);
  const nextHash = new Uint8Array(32).fill(0xbb);
  const parent = (timestamp: bigint) => ({
    hash: new Uint8Array(32).fill(1),
    number: 500n,
    timestamp,
    l1OriginNumber: 70n,
    l1OriginHash: originHash,
    sequenceNumber: 3n,
  });
  const sameOrigin = {
    number: 70n,
    hash: originHash,
    timestamp: holocene - 100n,
    baseFee: 9n,
    blobBaseFee: 1n,
    mixHash: new Uint8Array(32).fill(7),
    parentBeaconBlockRoot: new Uint8Array(32).fill(8),
  };
  const nextOrigin = {
    ...sameOrigin,
    number: 71n,
    hash: nextHash,
    parentHash: originHash,
    timestamp: holocene - 50n,
  };
  const userTx = fromHex("02c0");
  const userDeposit = fromHex("7ec0");

  it("continue an epoch: sequence number + 1, no user deposits, batch transactions after the L1 info deposit", () => {
    const a = buildPayloadAttributes({
      rollupConfig,
      systemConfig,
      l2Parent: parent(holocene + 10n),
      l1Origin: sameOrigin,
      batchTransactions: [userTx],
    });
    expect(a.sequenceNumber).toBe(4n);
    expect(a.timestamp).toBe(holocene + 12n);
    expect(a.transactions).toHaveLength(2);
    expect(a.transactions[1]).toEqual(userTx);
    expect(a.depositCount).toBe(1);
    expect(a.suggestedFeeRecipient).toEqual(SEQUENCER_FEE_VAULT);
    expect(a.prevRandao).toEqual(sameOrigin.mixHash);
    expect(a.parentBeaconBlockRoot).toEqual(sameOrigin.parentBeaconBlockRoot);
    expect(a.eip1559Params).toEqual(fromHex("000000fa00000006"));
    expect(a.minBaseFee).toBeUndefined();
    expect(a.noTxPool).toBe(true);
    expect(a.withdrawals).toEqual([]);
    expect(decodeDepositTransaction(a.transactions[0]!).sourceHash).toEqual(l1InfoSourceHash(originHash, 4n));
    expect(a.l1Info.sequenceNumber).toBe(4n);
    expect(decodeL1InfoDeposit(a.transactions[0]!)).toEqual(a.l1Info);
  });

  it("start an epoch: sequence number 0 and the origin's user deposits after the L1 info deposit", () => {
    const a = buildPayloadAttributes({
      rollupConfig,
      systemConfig,
      l2Parent: parent(holocene + 10n),
      l1Origin: nextOrigin,
      userDeposits: [userDeposit],
      batchTransactions: [userTx],
    });
    expect(a.sequenceNumber).toBe(0n);
    expect(a.transactions.slice(1)).toEqual([userDeposit, userTx]);
    expect(a.depositCount).toBe(2);
    expect(a.l1Origin).toEqual({ number: 71n, hash: nextHash });
  });

  it("put 8 zero bytes of EIP-1559 parameters on the first Holocene block", () => {
    const first = buildPayloadAttributes({
      rollupConfig,
      systemConfig,
      l2Parent: parent(holocene - 2n),
      l1Origin: sameOrigin,
      batchTransactions: [],
    });
    expect(first.timestamp).toBe(holocene);
    expect(first.eip1559Params).toEqual(new Uint8Array(8));
  });

  it("append the upgrade deposits on activation blocks, set the min base fee from Jovian", () => {
    const atIsthmus = buildPayloadAttributes({
      rollupConfig,
      systemConfig,
      l2Parent: parent(isthmus - 2n),
      l1Origin: nextOrigin,
      userDeposits: [userDeposit],
      batchTransactions: [],
    });
    expect(atIsthmus.transactions.slice(1)).toEqual([userDeposit, ...isthmusUpgradeTransactions()]);
    expect(atIsthmus.depositCount).toBe(10);
    expect(atIsthmus.l1Info.format).toBe("ecotone");
    const atJovian = buildPayloadAttributes({
      rollupConfig,
      systemConfig,
      l2Parent: parent(jovian - 2n),
      l1Origin: sameOrigin,
      batchTransactions: [],
    });
    expect(atJovian.transactions.slice(1)).toEqual([...jovianUpgradeTransactions()]);
    expect(atJovian.l1Info.format).toBe("isthmus");
    expect(atJovian.minBaseFee).toBe(5n);
    const afterJovian = buildPayloadAttributes({
      rollupConfig,
      systemConfig,
      l2Parent: parent(jovian),
      l1Origin: sameOrigin,
      batchTransactions: [],
    });
    expect(afterJovian.transactions).toHaveLength(1);
    expect(afterJovian.l1Info.format).toBe("jovian");
  });

  it("give a deposit-only replacement that keeps every deposit and drops the batch", () => {
    const a = buildPayloadAttributes({
      rollupConfig,
      systemConfig,
      l2Parent: parent(holocene + 10n),
      l1Origin: nextOrigin,
      userDeposits: [userDeposit],
      batchTransactions: [userTx, userTx],
    });
    const replacement = depositOnlyAttributes(a);
    expect(replacement.transactions).toEqual(a.transactions.slice(0, 2));
    expect({ ...replacement, transactions: a.transactions }).toEqual(a);
  });

  it("refuse inconsistent inputs as critical and deposits in a batch as dropped", () => {
    const build = (over: Partial<Parameters<typeof buildPayloadAttributes>[0]>) => () =>
      buildPayloadAttributes({
        rollupConfig,
        systemConfig,
        l2Parent: parent(holocene + 10n),
        l1Origin: sameOrigin,
        batchTransactions: [],
        ...over,
      });
    expect(build({ l1Origin: nextOrigin })).toThrow(/user deposits/); // new epoch without its deposits
    expect(build({ userDeposits: [userDeposit] })).toThrow(/first block of an epoch/);
    expect(build({ l1Origin: { ...sameOrigin, hash: nextHash } })).toThrow(/not the parent's L1 origin/);
    expect(build({ l1Origin: { ...nextOrigin, parentHash: nextHash }, userDeposits: [] })).toThrow(
      /does not extend/,
    );
    expect(build({ l1Origin: { ...nextOrigin, number: 72n }, userDeposits: [] })).toThrow(/neither/);
    expect(build({ l1Origin: { ...sameOrigin, timestamp: holocene + 13n } })).toThrow(
      /older than its L1 origin/,
    );
    expect(build({ l2Parent: parent(holocene - 4n) })).toThrow(/before Holocene/);
    for (const over of [{ l1Origin: nextOrigin }, { l2Parent: parent(holocene - 4n) }])
      expect(build(over)).toThrow(CriticalDeriveError);
    expect(build({ batchTransactions: [userTx, userDeposit] })).toThrow(DroppedInputError);
    expect(build({ batchTransactions: [new Uint8Array(0)] })).toThrow(DroppedInputError);
    const noBeacon = buildPayloadAttributes({
      rollupConfig,
      systemConfig,
      l2Parent: parent(holocene + 10n),
      l1Origin: { ...sameOrigin, parentBeaconBlockRoot: undefined },
      batchTransactions: [],
    });
    expect(noBeacon.parentBeaconBlockRoot).toEqual(new Uint8Array(32));
  });
});
