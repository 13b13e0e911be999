/**
 * The load generator against real processes: the devnet's L1 (anvil, 1 s blocks) with `--gas-limit`'s
 * SystemConfig change mined in the L2 genesis's anchor, a node in L1 mode, and `npm run load` as a process. The
 * node's blocks carry the gas limit (and a later change arrives through the L1 origin); every kind of load
 * transaction is included with success, and the chain shows it: the pool's reserves moved, the NFT supply and the
 * storage contract's slots grew by what was minted and filled, the transfers are on the token's log, the deployed
 * tokens have code.
 */
import { createPublicClient, http, parseAbiItem, type PublicClient } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadNftAbi, loadPoolAbi, loadStorageAbi } from "../../contracts/index.js";
import { requestGasLimit } from "../../src/devnet/gas-limit.js";
import { type LoadChain, type LoadReport, runLoadProcess, startLoadChain } from "./load-chain.js";

const GENESIS_GAS_LIMIT = 60_000_000n;
const LATER_GAS_LIMIT = 70_000_000n;

let chain: LoadChain;
let l2: PublicClient;

async function waitFor<T>(what: string, read: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  chain = await startLoadChain({
    gasLimit: GENESIS_GAS_LIMIT,
    l1BlockSeconds: 1,
    l2BlockSeconds: 1,
    node: { callWorkers: 0 },
  });
  expect(chain.previousGasLimit).toBe(30_000_000n);
  l2 = createPublicClient({ transport: http(chain.node.url, { timeout: 60_000 }) });
}, 180_000);

afterAll(async () => {
  await chain?.stop();
});

describe("the devnet's --gas-limit", () => {
  it("is every block's gas limit from the genesis on, and a later change reaches the blocks through L1", async () => {
    const head = await waitFor(
      "an L2 block",
      async () => {
        const b = await l2.getBlock({ blockTag: "latest" });
        return b.number > 0n ? b : undefined;
      },
      60_000,
    );
    expect(head.gasLimit).toBe(GENESIS_GAS_LIMIT);
    expect((await l2.getBlock({ blockNumber: 0n })).gasLimit).toBe(GENESIS_GAS_LIMIT);

    const later = await requestGasLimit(chain.l1, LATER_GAS_LIMIT);
    expect(later.previous).toBe(GENESIS_GAS_LIMIT);
    await later.included;
    const changed = await waitFor(
      "the new gas limit on L2",
      async () => {
        const b = await l2.getBlock({ blockTag: "latest" });
        return b.gasLimit === LATER_GAS_LIMIT ? b : undefined;
      },
      60_000,
    );
    expect(changed.number).toBeGreaterThan(head.number);
  }, 120_000);
});

describe("npm run load", () => {
  it("sends every kind of transaction, each included with success, and the contracts' state shows them", async () => {
    const run = await runLoadProcess([
      ...["--rpc", chain.node.url, "--gas-per-second", "4000000", "--duration", "4", "--senders", "8"],
      ...["--mix", "transfer=1,swap=1,mint=1,storage=1,deploy=1", "--drain", "60"],
    ]);
    expect(run.code, run.stderr).toBe(0);
    const report = run.lines.at(-1) as LoadReport;
    expect(report.msg).toBe("load report");
    expect(report.sent.transactions).toBeGreaterThan(10);
    expect(report.errors).toEqual({});
    for (const kind of ["transfer", "swap", "mint", "storage", "deploy"] as const) {
      const figures = report.byKind[kind];
      expect(figures.sent, kind).toBeGreaterThan(0);
      expect(figures.succeeded, kind).toBe(figures.sent);
    }
    expect(report.included.transactions).toBe(report.sent.transactions);
    expect(report.inclusionLatencyMs.p50).toBeGreaterThan(0);
    expect(report.chain.gasLimit).toBe(String(LATER_GAS_LIMIT));
    expect(run.lines.some((l) => (l as { msg?: string }).msg === "load second")).toBe(true);

    const { contracts } = report;
    const [reserve0, reserve1] = await l2.readContract({
      address: contracts.pool,
      abi: loadPoolAbi,
      functionName: "getReserves",
    });
    expect(reserve0 === 10n ** 27n && reserve1 === 10n ** 27n).toBe(false);
    expect(await l2.readContract({ address: contracts.pool, abi: loadPoolAbi, functionName: "swaps" })).toBe(
      BigInt(report.byKind.swap.succeeded),
    );
    expect(
      await l2.readContract({ address: contracts.nft, abi: loadNftAbi, functionName: "totalSupply" }),
    ).toBe(BigInt(report.byKind.mint.succeeded));
    expect(
      await l2.readContract({
        address: contracts.storage,
        abi: loadStorageAbi,
        functionName: "slotsWritten",
      }),
    ).toBe(16n * BigInt(report.byKind.storage.succeeded));
    // Transfers between senders: the token's Transfer logs with neither the pool nor the zero address.
    const logs = await l2.getLogs({
      address: contracts.tokenA,
      event: parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)"),
      fromBlock: 0n,
      toBlock: "latest",
    });
    const zero = "0x0000000000000000000000000000000000000000";
    const moves = logs.filter(
      (l) => l.args.from !== zero && l.args.from !== contracts.pool && l.args.to !== contracts.pool,
    );
    expect(moves.length).toBe(report.byKind.transfer.succeeded);
    expect(report.deployedContracts.length).toBe(Math.min(10, report.byKind.deploy.succeeded));
    for (const address of report.deployedContracts)
      expect((await l2.getCode({ address }))?.length ?? 0).toBeGreaterThan(1000);
  }, 150_000);
});
