/**
 * The SystemConfig's ConfigUpdate events, read by src/derive's applyConfigUpdateLog: the constructor's updates
 * give the initial config, and each of the eight setters changes exactly its own field of the derived config.
 */
import { type Address, bytesToHex, type Hash, hexToBytes, pad, parseEventLogs } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type L1Deployment, systemConfigAbi } from "../../contracts/index.js";
import {
  DEV_CHAIN_ID,
  devRollupConfig,
  DEV_GENESIS_TIME,
  encodeEcotoneScalar,
} from "../../src/chain/index.js";
import { applyConfigUpdateLog, applyConfigUpdates, type SystemConfig } from "../../src/derive/index.js";
import type { Anvil } from "../../src/devnet/l1/anvil.js";
import { chainLog, devAccount, revertName, startL1, testSystemConfig, walletOf } from "./support.js";

let anvil: Anvil;
let deployment: L1Deployment;
beforeAll(async () => {
  ({ anvil, deployment } = await startL1());
});
afterAll(async () => {
  await anvil?.stop();
});

const rollupConfig = {
  ...devRollupConfig(DEV_CHAIN_ID, DEV_GENESIS_TIME),
  l1SystemConfigAddress: undefined as Uint8Array | undefined,
};

const emptyConfig: SystemConfig = {
  batcherAddress: new Uint8Array(20),
  overhead: new Uint8Array(32),
  scalar: new Uint8Array(32),
  gasLimit: 0n,
  eip1559Denominator: 0,
  eip1559Elasticity: 0,
  operatorFeeScalar: 0,
  operatorFeeConstant: 0n,
  minBaseFee: 0n,
  daFootprintGasScalar: 0,
};

/** The fields of two configs that differ. */
function changedFields(before: SystemConfig, after: SystemConfig): string[] {
  return (Object.keys(before) as (keyof SystemConfig)[]).filter((key) => {
    const [a, b] = [before[key], after[key]];
    return a instanceof Uint8Array && b instanceof Uint8Array ? bytesToHex(a) !== bytesToHex(b) : a !== b;
  });
}

async function receiptOf(hash: Hash) {
  const receipt = await anvil.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  expect(receipt.status).toBe("success");
  return receipt;
}

describe("SystemConfig ConfigUpdate events", () => {
  let config: SystemConfig;

  it("the constructor announces the batcher, fee scalars, gas limit, unsafe block signer and (given) EIP-1559 params", async () => {
    const created = await anvil.client.getContractEvents({
      address: deployment.systemConfig,
      abi: systemConfigAbi,
      eventName: "ConfigUpdate",
      fromBlock: 0n,
    });
    expect(created.map((e) => e.args.updateType)).toEqual([0, 1, 2, 3, 4]);
    const init = testSystemConfig();
    const derived = created.reduce(
      (c, log) => applyConfigUpdateLog(c, chainLog(log), rollupConfig),
      emptyConfig,
    );
    expect(bytesToHex(derived.batcherAddress)).toBe(init.batcher.toLowerCase());
    expect(bytesToHex(derived.scalar)).toBe(
      bytesToHex(encodeEcotoneScalar(init.basefeeScalar, init.blobbasefeeScalar)),
    );
    expect(derived.gasLimit).toBe(init.gasLimit);
    expect(changedFields(emptyConfig, derived).sort()).toEqual([
      "batcherAddress",
      "eip1559Denominator",
      "eip1559Elasticity",
      "gasLimit",
      "scalar",
    ]);
    // The L1 block of the deployment: applyConfigUpdates over its receipts (filtering by the SystemConfig address)
    // gives the same config.
    const block = await anvil.client.getBlock({ blockNumber: deployment.systemConfigStartBlock });
    const receipts = await Promise.all(
      block.transactions.map((hash) => anvil.client.getTransactionReceipt({ hash })),
    );
    const viaBlock = applyConfigUpdates(
      emptyConfig,
      receipts.map((r) => ({ status: r.status === "success" ? 1 : 0, logs: r.logs.map(chainLog) })),
      { ...rollupConfig, l1SystemConfigAddress: hexToBytes(deployment.systemConfig) },
      block.timestamp,
    );
    expect(changedFields(derived, viaBlock)).toEqual([]);
    config = derived;
  });

  const owner = () => walletOf(anvil, 0);
  const write = (functionName: string, args: readonly unknown[]) =>
    owner().writeContract({
      address: deployment.systemConfig,
      abi: systemConfigAbi,
      functionName,
      args,
    } as never);

  const cases: {
    name: string;
    call: () => [string, readonly unknown[]];
    updateType: number;
    fields: (keyof SystemConfig)[];
    check: (c: SystemConfig) => void;
  }[] = [
    {
      name: "setBatcherHash",
      call: () => ["setBatcherHash", [pad(devAccount(9).address, { size: 32 })]],
      updateType: 0,
      fields: ["batcherAddress"],
      check: (c) => expect(bytesToHex(c.batcherAddress)).toBe(devAccount(9).address.toLowerCase()),
    },
    {
      name: "setGasConfigEcotone",
      call: () => ["setGasConfigEcotone", [2000, 700_000]],
      updateType: 1,
      fields: ["scalar"],
      check: (c) => expect(bytesToHex(c.scalar)).toBe(bytesToHex(encodeEcotoneScalar(2000, 700_000))),
    },
    {
      name: "setGasLimit",
      call: () => ["setGasLimit", [45_000_000n]],
      updateType: 2,
      fields: ["gasLimit"],
      check: (c) => expect(c.gasLimit).toBe(45_000_000n),
    },
    {
      // Not part of derivation: accepted and ignored.
      name: "setUnsafeBlockSigner",
      call: () => ["setUnsafeBlockSigner", [devAccount(2).address]],
      updateType: 3,
      fields: [],
      check: () => undefined,
    },
    {
      name: "setEIP1559Params",
      call: () => ["setEIP1559Params", [100, 8]],
      updateType: 4,
      fields: ["eip1559Denominator", "eip1559Elasticity"],
      check: (c) => expect([c.eip1559Denominator, c.eip1559Elasticity]).toEqual([100, 8]),
    },
    {
      name: "setOperatorFeeScalars",
      call: () => ["setOperatorFeeScalars", [4_000_000, 123_456_789_012n]],
      updateType: 5,
      fields: ["operatorFeeScalar", "operatorFeeConstant"],
      check: (c) =>
        expect([c.operatorFeeScalar, c.operatorFeeConstant]).toEqual([4_000_000, 123_456_789_012n]),
    },
    {
      name: "setMinBaseFee",
      call: () => ["setMinBaseFee", [1_000_000_007n]],
      updateType: 6,
      fields: ["minBaseFee"],
      check: (c) => expect(c.minBaseFee).toBe(1_000_000_007n),
    },
    {
      name: "setDAFootprintGasScalar",
      call: () => ["setDAFootprintGasScalar", [65_535]],
      updateType: 7,
      fields: ["daFootprintGasScalar"],
      check: (c) => expect(c.daFootprintGasScalar).toBe(65_535),
    },
  ];

  for (const c of cases) {
    it(`${c.name} emits update type ${c.updateType}; derivation changes exactly ${c.fields.join(", ") || "nothing"}`, async () => {
      const [functionName, args] = c.call();
      const receipt = await receiptOf(await write(functionName, args));
      const events = parseEventLogs({ abi: systemConfigAbi, logs: receipt.logs, eventName: "ConfigUpdate" });
      expect(events).toHaveLength(1);
      expect(events[0]!.args.version).toBe(0n);
      expect(events[0]!.args.updateType).toBe(c.updateType);
      const next = applyConfigUpdateLog(config, chainLog(receipt.logs[0]!), rollupConfig);
      expect(changedFields(config, next).sort()).toEqual([...c.fields].sort());
      c.check(next);
      config = next;
    });
  }

  it("the getters hold what the setters set; only the owner may set, and the gas limit has bounds", async () => {
    const read = (functionName: string) =>
      anvil.client.readContract({
        address: deployment.systemConfig,
        abi: systemConfigAbi,
        functionName,
      } as never);
    expect(await read("batcher")).toBe(devAccount(9).address);
    expect(await read("scalar")).toBe(BigInt(bytesToHex(encodeEcotoneScalar(2000, 700_000))));
    expect(await read("gasLimit")).toBe(45_000_000n);
    expect(await read("unsafeBlockSigner")).toBe(devAccount(2).address);
    expect(await read("eip1559Denominator")).toBe(100);
    expect(await read("operatorFeeConstant")).toBe(123_456_789_012n);
    expect(await read("minBaseFee")).toBe(1_000_000_007n);
    expect(await read("daFootprintGasScalar")).toBe(65_535);
    expect(await read("batchInbox")).toBe(deployment.batchInbox);
    expect(await read("optimismPortal")).toBe(deployment.depositPortal);

    const refusal = (from: Address, functionName: string, args: readonly unknown[]) =>
      revertName(
        anvil.client.simulateContract({
          account: from,
          address: deployment.systemConfig,
          abi: systemConfigAbi,
          functionName,
          args,
        } as never),
      );
    expect(await refusal(devAccount(1).address, "setGasLimit", [40_000_000n])).toBe("NotOwner");
    expect(await refusal(devAccount(0).address, "setGasLimit", [20_999_999n])).toBe("GasLimitOutOfRange");
    expect(await refusal(devAccount(0).address, "setGasLimit", [500_000_001n])).toBe("GasLimitOutOfRange");
    expect(await refusal(devAccount(0).address, "setEIP1559Params", [0, 6])).toBe("InvalidEip1559Params");
    expect(await refusal(devAccount(0).address, "setGasLimit", [21_000_000n])).toBeUndefined();
  });
});
