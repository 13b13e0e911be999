/**
 * The proposer and challenger PROCESSES against one prover chain (test/support/prover-chain.ts: anvil, our node in
 * L1 mode, the batcher, a local-mode enclave and the host, AggregateVerifier anchored on the L2 genesis with
 * BLOCK_INTERVAL 4 and INTERMEDIATE_BLOCK_INTERVAL 2):
 * - consecutive proposals land, Proven, with the node's output roots, and the challenger leaves them alone;
 * - the proposer survives the host being stopped and restarted, and stops cleanly on SIGTERM;
 * - a wrong proposal, signed by a second signer the test registers (so the contract accepts it), is nullified by
 *   the challenger and the proposal built on it invalidated.
 */
import { type Hex, bytesToHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  aggregateVerifierAbi,
  intermediateBlocks,
  type OnchainProposal,
  ProposalStatus,
} from "../../src/proof/onchain/index.js";
import { l1Account, l1PrivateKey, type ProverChain, startProverChain } from "../support/prover-chain.js";
import { rogueProposer } from "./rogue.js";
import { type LogLine, type ServiceProcess, spawnService } from "./spawn-service.js";

const PROPOSER = 5;
const ROGUE = 6;
const CHALLENGER = 7;

let pc: ProverChain;
let proposer: ServiceProcess | undefined;
let challenger: ServiceProcess | undefined;

const serviceArgs = () => [
  "--l1-rpc-url",
  pc.l1RpcUrl,
  "--rollup-rpc-url",
  pc.l2RpcUrl,
  "--prover-url",
  pc.hostUrl,
  "--verifier",
  pc.addresses.aggregateVerifier,
  "--poll-interval-ms",
  "250",
  "--max-backoff-ms",
  "2000",
];

const read = <T>(functionName: string, args: readonly unknown[] = []): Promise<T> =>
  pc.l1.readContract({
    address: pc.addresses.aggregateVerifier,
    abi: aggregateVerifierAbi,
    functionName,
    args,
  } as never) as Promise<T>;
const proposal = (id: bigint) => read<OnchainProposal>("getProposal", [id]);
const rootAt = async (block: bigint): Promise<Hex> => bytesToHex((await pc.outputAt(block)).outputRoot);
const landed = (line: LogLine) => line.msg === "proposal landed";

beforeAll(async () => {
  pc = await startProverChain({
    calldata: true,
    proposers: [PROPOSER, ROGUE, CHALLENGER].map((i) => l1Account(i).address),
  });
  challenger = spawnService("challenger", serviceArgs(), {
    CHALLENGER_PRIVATE_KEY: l1PrivateKey(CHALLENGER),
    // Two blocks per eth_getLogs: the scan is chunked, and still finds every Proposed event.
    CHALLENGER_L1_LOG_RANGE: "2",
  });
  proposer = spawnService("proposer", serviceArgs(), { PROPOSER_PRIVATE_KEY: l1PrivateKey(PROPOSER) });
}, 600_000);

afterAll(async () => {
  await proposer?.stop();
  await challenger?.stop();
  await pc?.stop();
});

describe("the proposer and challenger processes on a prover chain", () => {
  it("lands consecutive proposals, Proven, with the node's output roots; the challenger leaves them alone", async () => {
    const second = await proposer!.waitFor(landed, 2, 300_000);
    const first = proposer!.lines.filter(landed)[0]!;
    expect([first.startingBlock, first.endingBlock, second.startingBlock, second.endingBlock]).toEqual([
      0, 4, 4, 8,
    ]);
    for (const line of [first, second]) {
      const id = BigInt(line.id as number);
      const stored = await proposal(id);
      expect(stored.status).toBe(ProposalStatus.Proven);
      expect(stored.proposer).toBe(l1Account(PROPOSER).address);
      const blocks = intermediateBlocks(stored.startingBlock, pc);
      expect(stored.intermediateRoots).toEqual(await Promise.all(blocks.map(rootAt)));
      expect(stored.rootClaim).toBe(await rootAt(stored.endingBlock));
      expect(line.rootClaim).toBe(stored.rootClaim);
      expect(line.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    }
    expect((await proposal(BigInt(second.id as number))).parentId).toBe(BigInt(first.id as number));
    // The challenger checks both and nullifies neither.
    for (const line of [first, second]) {
      await challenger!.waitFor((l) => l.msg === "proposal checked: correct" && l.id === line.id, 1, 120_000);
    }
    expect(challenger!.lines.filter((l) => l.msg === "proposal nullified")).toEqual([]);
  }, 400_000);

  it("survives the host being stopped and restarted", async () => {
    const failed = (l: LogLine) => l.msg === "proposal attempt failed";
    await pc.stopHost();
    // The next range becomes safe with no host: the proposer fails, backs off and keeps trying.
    const failures = proposer!.lines.filter(failed).length;
    const failure = await proposer!.waitFor(failed, failures + 2, 120_000);
    expect(failure.err).toMatchObject({ name: "RpcTransportError", kind: "transport-failed" });
    expect(proposer!.process.exitCode).toBeNull();
    // Fall behind by three ranges, then the proposer catches up one range after the other.
    const latest = await read<bigint>("latestBlock");
    const behind = latest + 3n * pc.blockInterval;
    await pc.waitForSafe(behind);
    await pc.startHost();
    const landedBefore = proposer!.lines.filter(landed).length;
    const caughtUp = await proposer!.waitFor(
      (l) => landed(l) && BigInt(l.endingBlock as number) >= behind,
      1,
      180_000,
    );
    const after = proposer!.lines.filter(landed).slice(landedBefore);
    expect(after.map((l) => l.endingBlock)).toEqual(
      [1n, 2n, 3n].map((k) => Number(latest + k * pc.blockInterval)).slice(0, after.length),
    );
    expect(after.length).toBeGreaterThanOrEqual(3);
    expect((await proposal(BigInt(caughtUp.id as number))).status).toBe(ProposalStatus.Proven);
  }, 400_000);

  it("stops cleanly on SIGTERM", async () => {
    const exit = await proposer!.stop();
    expect(exit).toEqual({ code: 0, signal: null });
    expect(proposer!.lines.at(-1)?.msg).toBe("shutdown complete");
  }, 60_000);

  it("a wrong proposal accepted onchain is nullified by the challenger and its child invalidated", async () => {
    // A second signer, registered by the test (the registry's owner), signs whatever it is given.
    const rogue = await rogueProposer(pc, ROGUE);
    const latest = await read<bigint>("latestBlock");
    const bi = pc.blockInterval;
    // Both ranges safe first: the nullification proof derives them from L1 up to the wrong proposal's l1Head.
    await pc.waitForSafe(latest + 2n * bi);
    // Wrong from the second interval on (the first interval is right); a child builds on its wrong claim.
    const wrongFrom = latest + pc.intermediateBlockInterval;
    const wrong = await rogue.propose(latest, (b) => b > wrongFrom, await rootAt(latest));
    const child = await rogue.propose(latest + bi, () => true, wrong.rootClaim);
    expect(await read<bigint>("latestBlock")).toBe(latest + 2n * bi);

    const nullified = await challenger!.waitFor(
      (l) => l.msg === "proposal nullified" && l.id === Number(wrong.id),
      1,
      180_000,
    );
    expect(nullified.index).toBe(1);
    expect(nullified.root).toBe(await rootAt(latest + 2n * pc.intermediateBlockInterval));
    expect(nullified.invalidated).toEqual([Number(child.id)]);
    expect((await proposal(wrong.id)).status).toBe(ProposalStatus.Nullified);
    expect((await proposal(child.id)).status).toBe(ProposalStatus.ParentNullified);
    expect(await read<bigint>("latestBlock")).toBe(latest);
    // Only the wrong proposal was nullified: every proposal of the proposer is still Proven.
    expect(challenger!.lines.filter((l) => l.msg === "proposal nullified")).toHaveLength(1);
    for (const line of proposer!.lines.filter(landed))
      expect((await proposal(BigInt(line.id as number))).status).toBe(ProposalStatus.Proven);
  }, 400_000);
});
