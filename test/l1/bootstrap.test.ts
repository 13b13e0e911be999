/**
 * The devnet L1 with its contracts (src/devnet/l1/bootstrap.ts, contracts/l1-deploy.ts): deterministic addresses,
 * a deployment block with the same hash on every fresh start, idempotent on restart, and a refusal when the
 * deployer's nonces were spent on something else.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEther } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import {
  deployL1Contracts,
  L1DeploymentConflictError,
  l1ContractAddresses,
  loadArtifact,
  systemConfigAbi,
} from "../../contracts/index.js";
import {
  type Anvil,
  DEVNET_L1_BLOCK_TIME,
  DEVNET_L1_GENESIS_TIME,
  startAnvil,
} from "../../src/devnet/l1/anvil.js";
import { startDevnetL1 } from "../../src/devnet/l1/bootstrap.js";
import { devAccount, testSystemConfig, walletOf } from "./support.js";

const stateDir = mkdtempSync(join(tmpdir(), "devnet-l1-"));
const running: Anvil[] = [];
afterAll(async () => {
  await Promise.all(running.map((a) => a.stop()));
  rmSync(stateDir, { recursive: true, force: true });
});

async function stopAll(): Promise<void> {
  await Promise.all(running.splice(0).map((a) => a.stop()));
}

describe("the devnet L1 with its contracts", () => {
  it("deploys at account 0's nonces 0-2 in block 1 at genesis + 12 s, with the same block hash on every fresh start", async () => {
    const expected = l1ContractAddresses(devAccount(0).address, 0);
    const first = await startDevnetL1({
      systemConfig: testSystemConfig(),
      mining: { mode: "manual" },
      stateDir,
    });
    running.push(first.anvil);
    expect(first.anvil.resumed).toBe(false);
    expect(first.deployment).toMatchObject(expected);
    expect(first.deployment.created.map((c) => c.contractName)).toEqual([
      "TEEProverRegistry",
      "DepositPortal",
      "SystemConfig",
    ]);
    expect(first.deployBlock.number).toBe(1n);
    expect(first.deployBlock.timestamp).toBe(DEVNET_L1_GENESIS_TIME + BigInt(DEVNET_L1_BLOCK_TIME));
    for (const [name, address] of [
      ["TEEProverRegistry", expected.teeProverRegistry],
      ["DepositPortal", expected.depositPortal],
      ["SystemConfig", expected.systemConfig],
    ] as const) {
      expect(await first.anvil.client.getCode({ address })).toBe(loadArtifact(name).deployedBytecode);
    }
    // After the bootstrap the clock is the wall clock.
    const before = BigInt(Math.floor(Date.now() / 1000));
    await first.anvil.mine();
    expect((await first.anvil.client.getBlock({ blockNumber: 2n })).timestamp).toBeGreaterThanOrEqual(before);
    await stopAll();

    // Another fresh L1 (no state directory): the same deployment block.
    const second = await startDevnetL1({ systemConfig: testSystemConfig(), mining: { mode: "manual" } });
    running.push(second.anvil);
    expect(second.deployBlock).toEqual(first.deployBlock);
    expect(second.deployment.created.map((c) => c.transactionHash)).toEqual(
      first.deployment.created.map((c) => c.transactionHash),
    );
    await stopAll();

    // A restart resumes the L1: nothing is created again, the addresses and the deployment block are the same.
    const resumed = await startDevnetL1({
      systemConfig: testSystemConfig(),
      mining: { mode: "manual" },
      stateDir,
    });
    running.push(resumed.anvil);
    expect(resumed.anvil.resumed).toBe(true);
    expect(resumed.deployment.created).toEqual([]);
    expect(resumed.deployment).toMatchObject(expected);
    expect(resumed.deployBlock).toEqual(first.deployBlock);
    expect(
      await resumed.anvil.client.readContract({
        address: expected.systemConfig,
        abi: systemConfigAbi,
        functionName: "startBlock",
      }),
    ).toBe(1n);
    await stopAll();
  });

  it("refuses when the deployer's creation nonce was spent on another transaction", async () => {
    const anvil = await startAnvil({ mining: { mode: "auto" } });
    running.push(anvil);
    const wallet = walletOf(anvil, 0);
    const spent = await wallet.sendTransaction({ to: devAccount(1).address, value: parseEther("1") });
    await anvil.client.waitForTransactionReceipt({ hash: spent, pollingInterval: 50 });
    const attempt = deployL1Contracts(
      { publicClient: anvil.client, walletClient: wallet },
      { systemConfig: testSystemConfig(), pollingIntervalMs: 50 },
    );
    await expect(attempt).rejects.toBeInstanceOf(L1DeploymentConflictError);
    await expect(attempt).rejects.toMatchObject({
      kind: "deployment-conflict",
      contractName: "TEEProverRegistry",
    });
    // From nonce 1 on it works, at the addresses of nonces 1-3.
    const deployment = await deployL1Contracts(
      { publicClient: anvil.client, walletClient: wallet },
      { systemConfig: testSystemConfig(), firstNonce: 1, pollingIntervalMs: 50 },
    );
    expect(deployment).toMatchObject(l1ContractAddresses(devAccount(0).address, 1));
  });
});
