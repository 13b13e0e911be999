/**
 * A fast slice of bench:attack (bench/attack.ts) against real processes, so the harness cannot rot: one enclave
 * process proving the recorded devnet chain takes 40 mutated Prove frames (every mutation kind, the provable ones
 * included), a claimed block past the largest block number a request may name, and every codec cap frame but the
 * 69 MB one; a host in front of it takes one request
 * of each malformed HTTP class and a small prover_prove flood while its one proof slot is held. Nothing may sign
 * other roots, leave a frame unanswered, change the enclave's key, or stop a process answering.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEnclave } from "../../enclave/test/enclave-process.js";
import { recordedWitness } from "../../conformance/fixture.js";
import { decodeResponsePayload, encodeRequest, type Preimage } from "../../generated/protocol/index.js";
import { BootKey, isBootPreimageKey, u64be } from "../../src/proof/preimages/index.js";
import { capFrames, runCapFrames } from "./codec-caps.js";
import { honestAnswers, runMutations, sendFrame } from "./enclave-attack.js";
import { floodProve } from "./host-flood.js";
import { answersHealth, HTTP_CLASSES, runHttpClasses } from "./http-attack.js";
import { type AttackedHost, startAttackedHost, startRecordedChainEnclave } from "./processes.js";
import { formOf, frameOf } from "./prove-frame.js";
import { capTable, floodTable, httpTable, mutationTable, verdictOf } from "./report.js";

const TIMEOUT_MS = 120_000;

let enclave: RunningEnclave;
let host: AttackedHost;

beforeAll(async () => {
  enclave = await startRecordedChainEnclave();
  host = await startAttackedHost(enclave, 1);
}, 180_000);

afterAll(async () => {
  await host?.stop();
  await enclave?.stop();
});

describe("the attack harness against real processes", () => {
  it("40 mutated Prove frames: refused or the honest result, the signer's key unchanged", async () => {
    const run = await runMutations(enclave.address, {
      mutations: 40,
      seed: 7,
      concurrency: 2,
      timeoutMs: TIMEOUT_MS,
    });
    expect(run.sent).toBe(40);
    expect(verdictOf({ mutations: run }).failures).toEqual([]);
    const outcomes = new Map<string, number>();
    for (const counts of run.byKind.values())
      for (const [outcome, n] of counts) outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + n);
    expect(outcomes.get("refused")).toBeGreaterThan(20);
    // Reordered and duplicated preimages prove the same claim: the exact honest answer.
    expect(run.byKind.get("reorder preimages")?.get("no-op")).toBe(1);
    expect(run.signerAfter).toBe(run.signerBefore);
    expect(mutationTable(run)).toMatch(/\| \*\*all\*\* \| \*\*40\*\* \|/);
  }, 300_000);

  it("a claimed block past 2^53 - 1 is refused by name: BootValueOutOfRangeError, never a bare RangeError", async () => {
    const { preimages } = recordedWitness();
    const answers: string[] = [];
    for (const claimed of [(1n << 64n) - 1n, 1n << 53n, (1n << 53n) - 1n]) {
      const edited = preimages.map(([key, value]): Preimage => [
        key,
        isBootPreimageKey(key, BootKey.ClaimedL2BlockNumber) ? u64be(claimed) : value,
      ]);
      const answer = await sendFrame(
        { address: enclave.address, frameLengthPrefix: 4, messageForm: formOf(4) },
        frameOf(encodeRequest({ kind: "Prove", preimages: edited }), 4),
        { endInput: false, timeoutMs: TIMEOUT_MS },
      );
      if (answer.kind !== "frame") throw new Error(`no answer: ${answer.kind}`);
      const response = decodeResponsePayload(answer.payload, formOf(4));
      answers.push(response.kind === "Error" ? response.message.split(":")[0]! : response.kind);
    }
    // 2^53 - 1 itself is a block number the request may name; at 1 s blocks its time lies past the fork horizon.
    expect(answers).toEqual(["BootValueOutOfRangeError", "BootValueOutOfRangeError", "ForkHorizonError"]);
  }, 300_000);

  it("every codec cap frame is refused, the attestation at its caps answered", async () => {
    const honest = await honestAnswers(enclave.address, TIMEOUT_MS);
    const results = await runCapFrames(enclave.address, capFrames({ huge: false }), honest, TIMEOUT_MS);
    expect(results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.result.outcome}`)).toEqual([]);
    expect(results.filter((r) => r.expect === "answer")).toHaveLength(2);
    expect(capTable(results)).not.toContain("**NO**");
  }, 300_000);

  it("one request of each malformed HTTP class: answered with errors, the host alive after each", async () => {
    const results = await runHttpClasses(host.target, HTTP_CLASSES, TIMEOUT_MS);
    expect(results.map((r) => r.name)).toEqual(HTTP_CLASSES.map((c) => c.name));
    expect(verdictOf({ http: results }).failures).toEqual([]);
    const answers = (name: string) => [...results.find((r) => r.name === name)!.answers.keys()];
    expect(answers("bad JSON")).toEqual(["200 -32700"]);
    expect(answers("unknown methods")).toContain("200 -32601");
    expect(httpTable(results)).not.toContain("**NO**");
  }, 300_000);

  it("a prover_prove flood while the proof slot is held: -32005 at once, refused in batches, the host alive", async () => {
    const result = await floodProve(host.host.url, host.stalled, {
      slots: 1,
      singles: 40,
      batches: 2,
      connections: 8,
    });
    const hostAlive = await answersHealth(host.target, TIMEOUT_MS);
    expect(verdictOf({ flood: { result, hostAlive, slots: 1 } }).failures).toEqual([]);
    expect(result.singleCodes).toEqual(new Map([["-32005", 40]]));
    expect(floodTable(result, hostAlive)).toContain("| 40 | -32005 ×40 |");
  }, 300_000);
});
