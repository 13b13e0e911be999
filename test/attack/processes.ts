/**
 * The real processes the attack harness runs against: an enclave proving the recorded devnet chain (local mode,
 * the fixture's rollup config), a host in front of it whose L2 endpoint stalls (so prover_prove calls hold their
 * slots), and, for the HTTP classes, a chain node and a merchant service on it (SQLite store). Each `start*`
 * returns a `stop` that ends only what it started.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FIXTURE_ROLLUP_PATH } from "../../conformance/fixture.js";
import { type RunningEnclave, startEnclave } from "../../enclave/test/enclave-process.js";
import { formatListenAddress } from "../../src/proof/transport/index.js";
import { hostArgs, type RunningHost, startHost } from "../host/spawn-host.js";
import { startMerchantProcess, type MerchantProcess } from "../merchant/support/merchant-process.js";
import { nodeTestChain } from "../merchant/support/test-chain.js";
import { type NodeProcess, startNodeProcess } from "../node/spawn-node.js";
import { createWorld } from "../merchant/support/world.js";
import type { HttpTarget } from "./http-attack.js";
import { type StalledEndpoint, startStalledEndpoint } from "./host-flood.js";

export function startRecordedChainEnclave(): Promise<RunningEnclave> {
  return startEnclave(["--rollup-config", FIXTURE_ROLLUP_PATH]);
}

export interface AttackedHost {
  readonly host: RunningHost;
  readonly stalled: StalledEndpoint;
  readonly target: HttpTarget;
  stop(): Promise<void>;
}

/** A host in front of `enclave` for the recorded chain (901), its L2 endpoint stalled, `slots` proofs at once. */
export async function startAttackedHost(enclave: RunningEnclave, slots: number): Promise<AttackedHost> {
  const stalled = await startStalledEndpoint();
  const args = hostArgs({
    enclaves: [formatListenAddress(enclave.address)],
    chainId: "901",
    extra: ["--rollup-config", FIXTURE_ROLLUP_PATH, "--max-concurrent-proofs", String(slots)],
  });
  args[args.indexOf("--l2-rpc-url") + 1] = stalled.url;
  const host = await startHost(args);
  return {
    host,
    stalled,
    target: { name: "host", port: host.port, child: host.child, kind: "json-rpc", health: "healthz" },
    async stop() {
      await host.stop();
      await stalled.close();
    },
  };
}

export interface AttackedServices {
  readonly node: HttpTarget;
  readonly merchant: HttpTarget;
  /** The chain node process (the node's abuse bursts run against it too). */
  readonly nodeProcess: NodeProcess;
  stop(): Promise<void>;
}

/** A chain node and a merchant service on it (a dev token deployed, a SQLite store in a temporary folder). */
export async function startNodeAndMerchant(): Promise<AttackedServices> {
  const dir = mkdtempSync(join(tmpdir(), "attack-merchant-"));
  // 2 s blocks with 200 ms flashblocks, the cadence the node's abuse bursts measure against.
  const node = await startNodeProcess({ blockTimeMs: 2000, flashblockIntervalMs: 200, logLevel: "warn" });
  const chain = nodeTestChain(node);
  let merchant: MerchantProcess | undefined;
  try {
    const world = await createWorld(chain);
    merchant = await startMerchantProcess({
      rpcUrl: chain.rpcUrl,
      token: world.token,
      relayerKey: world.relayerKey,
      store: { sqlite: join(dir, "orders.db") },
    });
  } catch (error) {
    await chain.close();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const started = merchant;
  return {
    nodeProcess: node,
    node: {
      name: "node",
      port: Number(new URL(node.url).port),
      child: node.process,
      kind: "json-rpc",
      health: "eth_chainId",
    },
    merchant: {
      name: "merchant",
      port: Number(new URL(started.url).port),
      child: started.child,
      kind: "rest",
      health: "healthz",
      headers: [`Authorization: Bearer ${started.apiKey}`],
      paramRoute: "/orders/{}",
    },
    async stop() {
      await started.stop();
      await chain.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
