import { describe, expect, it } from "vitest";
import {
  OpFork,
  type RollupConfig,
  builtInChain,
  bigIntToWord,
  fromHex,
  ecotoneScalars,
  encodeEcotoneScalar,
} from "../../chain/index.js";
import { CriticalDeriveError } from "../errors.js";
import {
  CONFIG_UPDATE_TOPIC,
  ConfigUpdateType,
  type SystemConfig,
  applyConfigUpdateLog,
  applyConfigUpdates,
  eip1559ParamsOf,
  systemConfigFromGenesis,
  systemConfigFromL2Block,
} from "./system-config.js";

const chain = builtInChain(11155420n);
const rollup: RollupConfig = chain.rollupConfig;
const genesisConfig = systemConfigFromGenesis(rollup.genesis!.systemConfig);
const ecotoneTime = rollup.forkTimes[OpFork.Ecotone]!;

/** A ConfigUpdate log as SystemConfig.sol emits it: abi.encode(bytes payload). */
function updateLog(type: number, payload: Uint8Array, opts: { version?: bigint; address?: Uint8Array } = {}) {
  const padded = new Uint8Array(Math.ceil(payload.length / 32) * 32);
  padded.set(payload);
  const data = new Uint8Array(64 + padded.length);
  data.set(bigIntToWord(32n), 0);
  data.set(bigIntToWord(BigInt(payload.length)), 32);
  data.set(padded, 64);
  return {
    address: opts.address ?? rollup.l1SystemConfigAddress!,
    topics: [CONFIG_UPDATE_TOPIC, bigIntToWord(opts.version ?? 0n), bigIntToWord(BigInt(type))],
    data,
  };
}

const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};

describe("system config", () => {
  it("starts from the rollup config's genesis", () => {
    expect(genesisConfig.batcherAddress).toEqual(fromHex("0x8f23bb38f531600e5d8fddaaec41f13fab46e98c"));
    expect(genesisConfig.gasLimit).toBe(30_000_000n);
    expect(ecotoneScalars(genesisConfig.scalar)).toEqual({ baseFeeScalar: 0xa6fe0, blobBaseFeeScalar: 0 });
    expect(genesisConfig.eip1559Denominator).toBe(0);
  });

  it("applies every update type 0-7 with its ABI encoding", () => {
    const batcher = fromHex("0x1111111111111111111111111111111111111111");
    let c: SystemConfig = genesisConfig;
    c = applyConfigUpdateLog(
      c,
      updateLog(0, bigIntToWord(BigInt(`0x${"11".repeat(20)}`))),
      rollup,
      ecotoneTime,
    );
    expect(c.batcherAddress).toEqual(batcher);
    const scalar = encodeEcotoneScalar(2000, 800000);
    c = applyConfigUpdateLog(c, updateLog(1, concat(bigIntToWord(188n), scalar)), rollup, ecotoneTime);
    expect(c.scalar).toEqual(scalar);
    expect(c.overhead).toEqual(new Uint8Array(32)); // zeroed from Ecotone on
    c = applyConfigUpdateLog(c, updateLog(2, bigIntToWord(60_000_000n)), rollup);
    expect(c.gasLimit).toBe(60_000_000n);
    const before = c;
    c = applyConfigUpdateLog(c, updateLog(3, bigIntToWord(7n)), rollup);
    expect(c).toBe(before); // unsafe block signer: not derivation's
    c = applyConfigUpdateLog(c, updateLog(4, bigIntToWord((250n << 32n) | 6n)), rollup);
    expect([c.eip1559Denominator, c.eip1559Elasticity]).toEqual([250, 6]);
    expect(eip1559ParamsOf(c)).toEqual(fromHex("000000fa00000006"));
    c = applyConfigUpdateLog(c, updateLog(5, bigIntToWord((1234n << 64n) | 0xabcdn)), rollup);
    expect([c.operatorFeeScalar, c.operatorFeeConstant]).toEqual([1234, 0xabcdn]);
    c = applyConfigUpdateLog(c, updateLog(6, bigIntToWord(1_000_000n)), rollup);
    expect(c.minBaseFee).toBe(1_000_000n);
    c = applyConfigUpdateLog(c, updateLog(7, bigIntToWord(321n)), rollup);
    expect(c.daFootprintGasScalar).toBe(321);
    expect(genesisConfig.gasLimit).toBe(30_000_000n); // the input is never changed
  });

  it("keeps overhead and any scalar before Ecotone, ignores an unknown scalar format after it", () => {
    const odd = new Uint8Array(32);
    odd[0] = 2;
    odd[31] = 1;
    const pre = applyConfigUpdateLog(
      genesisConfig,
      updateLog(1, concat(bigIntToWord(5n), odd)),
      rollup,
      ecotoneTime - 1n,
    );
    expect(pre.overhead).toEqual(bigIntToWord(5n));
    expect(pre.scalar).toEqual(odd);
    const post = applyConfigUpdateLog(
      genesisConfig,
      updateLog(1, concat(bigIntToWord(5n), odd)),
      rollup,
      ecotoneTime,
    );
    expect(post).toBe(genesisConfig);
    const badPadding = encodeEcotoneScalar(1, 1);
    badPadding[5] = 1;
    expect(
      applyConfigUpdateLog(genesisConfig, updateLog(1, concat(bigIntToWord(0n), badPadding)), rollup),
    ).toBe(genesisConfig);
  });

  it("refuses malformed updates as critical (op-node: the contract never emits them)", () => {
    const cases: [string, ReturnType<typeof updateLog>][] = [
      ["version 1", updateLog(2, bigIntToWord(1n), { version: 1n })],
      ["type 8", updateLog(8, bigIntToWord(1n))],
      ["gas limit over 64 bits", updateLog(2, bigIntToWord(1n << 64n))],
      ["batcher not padded", updateLog(0, bigIntToWord((1n << 160n) | 1n))],
      ["EIP-1559 over 64 bits", updateLog(4, bigIntToWord(1n << 64n))],
      ["min base fee over 64 bits", updateLog(6, bigIntToWord(1n << 70n))],
      ["DA scalar over 16 bits", updateLog(7, bigIntToWord(1n << 16n))],
      ["fee scalars with one word", updateLog(1, bigIntToWord(1n))],
    ];
    for (const [name, log] of cases) {
      const attempt = () => applyConfigUpdateLog(genesisConfig, log, rollup);
      expect(attempt, name).toThrow(CriticalDeriveError);
    }
    const badOffset = updateLog(2, bigIntToWord(1n));
    badOffset.data[31] = 64;
    expect(() => applyConfigUpdateLog(genesisConfig, badOffset, rollup)).toThrow(/offset/);
    const badLength = updateLog(2, bigIntToWord(1n));
    badLength.data[63] = 31;
    expect(() => applyConfigUpdateLog(genesisConfig, badLength, rollup)).toThrow(/length/);
    const fourTopics = {
      ...updateLog(2, bigIntToWord(1n)),
      topics: [...updateLog(2, bigIntToWord(1n)).topics, bigIntToWord(0n)],
    };
    expect(() => applyConfigUpdateLog(genesisConfig, fourTopics, rollup)).toThrow(/3 topics/);
    const error = (() => {
      try {
        applyConfigUpdateLog(genesisConfig, updateLog(9, bigIntToWord(1n)), rollup);
      } catch (e) {
        return e as CriticalDeriveError;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(CriticalDeriveError);
    expect(error?.stage).toBe("attributes");
    expect(error?.kind).toBe("critical");
  });

  it("reads only successful receipts' logs from the SystemConfig address", () => {
    const other = fromHex("0x000000000000000000000000000000000000dead");
    const receipts = [
      { status: 0, logs: [updateLog(2, bigIntToWord(1n))] },
      {
        status: 1,
        logs: [updateLog(2, bigIntToWord(2n), { address: other }), updateLog(2, bigIntToWord(3n))],
      },
      {
        status: 1,
        logs: [
          { address: rollup.l1SystemConfigAddress!, topics: [bigIntToWord(9n)], data: new Uint8Array(0) },
        ],
      },
    ];
    expect(applyConfigUpdates(genesisConfig, receipts, rollup, ecotoneTime).gasLimit).toBe(3n);
    expect(applyConfigUpdates(genesisConfig, [], rollup, ecotoneTime)).toBe(genesisConfig);
  });

  it("reads the config back from an L2 block (L1 info deposit, header gas limit and extraData)", () => {
    const header = {
      timestamp: rollup.forkTimes[OpFork.Jovian]! + 2n,
      gasLimit: 60_000_000n,
      extraData: fromHex("01000000fa0000000600000000000f4240"),
      number: 1n,
    } as Parameters<typeof systemConfigFromL2Block>[0];
    const c = systemConfigFromL2Block(
      header,
      {
        batcherAddress: genesisConfig.batcherAddress,
        baseFeeScalar: 2000,
        blobBaseFeeScalar: 800000,
        operatorFeeScalar: 7,
        operatorFeeConstant: 8n,
        daFootprintGasScalar: 400,
      },
      rollup,
    );
    expect(c.gasLimit).toBe(60_000_000n);
    expect([c.eip1559Denominator, c.eip1559Elasticity, c.minBaseFee]).toEqual([250, 6, 1_000_000n]);
    expect(ecotoneScalars(c.scalar)).toEqual({ baseFeeScalar: 2000, blobBaseFeeScalar: 800000 });
    expect([c.operatorFeeScalar, c.operatorFeeConstant, c.daFootprintGasScalar]).toEqual([7, 8n, 400]);
    const bad = { ...header, extraData: new Uint8Array(0) };
    expect(() =>
      systemConfigFromL2Block(bad, { ...c, baseFeeScalar: 1, blobBaseFeeScalar: 1 }, rollup),
    ).toThrow(CriticalDeriveError);
  });
});

describe("config update types", () => {
  it("are numbered as SystemConfig.sol's UpdateType", () => {
    expect(Object.values(ConfigUpdateType)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});
