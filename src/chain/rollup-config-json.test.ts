import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { builtInChains } from "./chains/chains.js";
import { DEV_GENESIS_TIME, devRollupConfig } from "./dev-chain/config.js";
import { InvalidRollupConfigError, OpFork, type RollupConfig, parseRollupConfig } from "./rollup-config.js";
import { rollupConfigToJson } from "./rollup-config-json.js";

/** The JSON as a file holds it: written and read back as text. */
const throughText = (config: RollupConfig): unknown => JSON.parse(JSON.stringify(rollupConfigToJson(config)));

const u = (max: bigint) => fc.bigInt({ min: 0n, max });
const maxJson = BigInt(Number.MAX_SAFE_INTEGER);
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const bytes = (n: number) => fc.uint8Array({ minLength: n, maxLength: n });

/** Rollup configs the parser can produce: Bedrock and Regolith always stated, genesis time consistent. */
const configs: fc.Arbitrary<RollupConfig> = fc
  .record({
    l2ChainId: u(maxJson),
    blockTime: u(60n),
    genesisL2Time: u(maxJson),
    later: fc.array(opt(u(maxJson)), { minLength: 8, maxLength: 8 }),
    eip1559Elasticity: u(0xffffffffn),
    eip1559Denominator: u(0xffffffffn),
    eip1559DenominatorCanyon: u(0xffffffffn),
    depositContractAddress: opt(bytes(20)),
    l1SystemConfigAddress: opt(bytes(20)),
    l1ChainId: opt(u(maxJson)),
    batchInboxAddress: opt(bytes(20)),
    seqWindowSize: opt(u(maxJson)),
    maxSequencerDrift: opt(u(maxJson)),
    channelTimeout: opt(u(maxJson)),
    pectraBlobScheduleTime: opt(u(maxJson)),
    genesis: opt(
      fc.record({
        l1: fc.record({ hash: bytes(32), number: u(maxJson) }),
        l2: fc.record({ hash: bytes(32), number: u(maxJson) }),
        systemConfig: fc.record(
          {
            batcherAddress: bytes(20),
            overhead: bytes(32),
            scalar: bytes(32),
            gasLimit: u(maxJson),
            eip1559Denominator: u(0xffffffffn),
            eip1559Elasticity: u(0xffffffffn),
            operatorFeeScalar: u(0xffffffffn),
            operatorFeeConstant: u(maxJson),
            minBaseFee: u(maxJson),
            daFootprintGasScalar: u(0xffffn),
          },
          { requiredKeys: ["batcherAddress", "overhead", "scalar", "gasLimit"] },
        ),
      }),
    ),
  })
  .map(({ later, genesis, genesisL2Time, ...rest }) => {
    const forkTimes: RollupConfig["forkTimes"] = { [OpFork.Bedrock]: 0n, [OpFork.Regolith]: 0n };
    later.forEach((t, i) => {
      if (t !== undefined) forkTimes[(OpFork.Canyon + i) as OpFork] = t;
    });
    return {
      ...rest,
      genesisL2Time,
      forkTimes,
      ...(genesis === undefined ? {} : { genesis: { ...genesis, l2Time: genesisL2Time } }),
    };
  });

describe("rollupConfigToJson", () => {
  it("round-trips every built-in chain through parseRollupConfig", () => {
    expect(builtInChains().length).toBeGreaterThan(0);
    for (const chain of builtInChains()) {
      expect(parseRollupConfig(throughText(chain.rollupConfig)), chain.name).toEqual(chain.rollupConfig);
    }
  });

  it("round-trips the standalone dev chain's config (no genesis anchors, only the L2 genesis time)", () => {
    const config = devRollupConfig(901n, DEV_GENESIS_TIME);
    const json = rollupConfigToJson(config);
    expect(json.genesis).toEqual({ l2_time: Number(DEV_GENESIS_TIME) });
    expect(parseRollupConfig(throughText(config))).toEqual(config);
  });

  it("round-trips any config the parser can produce", () => {
    fc.assert(
      fc.property(configs, (config) => {
        expect(parseRollupConfig(throughText(config))).toEqual(config);
      }),
      { numRuns: 300 },
    );
  });

  it("writes op-node's field names and JSON forms", () => {
    const chain = builtInChains().find((c) => c.l2ChainId === 11155420n)!;
    const json = rollupConfigToJson(chain.rollupConfig);
    expect(json.l2_chain_id).toBe(11155420);
    expect(json.l1_chain_id).toBe(11155111);
    expect(json.block_time).toBe(2);
    expect(json.granite_channel_timeout).toBe(50);
    expect(json.deposit_contract_address).toMatch(/^0x[0-9a-f]{40}$/);
    const genesis = json.genesis as Record<string, Record<string, unknown>>;
    expect(Object.keys(genesis)).toEqual(["l1", "l2", "l2_time", "system_config"]);
    expect(genesis.system_config!.batcherAddr).toMatch(/^0x[0-9a-f]{40}$/);
    expect(genesis.system_config!.scalar).toMatch(/^0x[0-9a-f]{64}$/);
    expect(json).not.toHaveProperty("bedrock_time");
  });

  it("refuses what rollup.json cannot state", () => {
    const base = devRollupConfig(901n, 10n);
    const refused = (config: RollupConfig): unknown => {
      try {
        rollupConfigToJson(config);
      } catch (e) {
        return e;
      }
      return undefined;
    };
    const cases: RollupConfig[] = [
      { ...base, forkTimes: { ...base.forkTimes, [OpFork.Bedrock]: 5n } },
      { ...base, l2ChainId: maxJson + 1n },
      { ...base, batchInboxAddress: new Uint8Array(19) },
      {
        ...base,
        genesis: {
          l1: { hash: new Uint8Array(32), number: 0n },
          l2: { hash: new Uint8Array(32), number: 0n },
          l2Time: 11n,
          systemConfig: {
            batcherAddress: new Uint8Array(20),
            overhead: new Uint8Array(32),
            scalar: new Uint8Array(32),
            gasLimit: 1n,
          },
        },
      },
    ];
    for (const config of cases) {
      const e = refused(config);
      expect(e).toBeInstanceOf(InvalidRollupConfigError);
      expect((e as InvalidRollupConfigError).kind).toBe("invalid-rollup-config");
    }
  });
});
