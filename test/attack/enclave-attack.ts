/**
 * Sends mutated Prove frames (./mutations.ts) to a running enclave and classifies every answer:
 * - refused: an Error response (bucketed by the error's name) or the connection closed without a response;
 * - no-op: a Prove response byte-for-byte equal to the honest request's (the mutation did not change what is
 *   proved, e.g. reordered preimages);
 * - honest claim: a signed result that is not the honest one but whose every root is the recorded chain's root at
 *   its block (a different proposer or interval signs another journal over the same true roots);
 * - violation: any other signed result (a signature over a root the recorded chain does not have);
 * - answered: a response to another request (the mutation turned the frame into a well-formed other request);
 * - hang: no answer within the timeout.
 * The signer's public key is read before and after: the enclave must keep it.
 */
import { recordedWitness } from "../../conformance/fixture.js";
import { type EnclaveTarget, RawEnclaveConnection } from "../../conformance/enclave-connection.js";
import { decodeResponsePayload, type Response } from "../../generated/protocol/index.js";
import type { FrameLengthPrefix } from "../../src/proof/transport/index.js";
import { type Mutation, mutationAt, Rng } from "./mutations.js";
import { formOf, frameOf, honestProve } from "./prove-frame.js";

export type Outcome = "refused" | "closed" | "answered" | "no-op" | "honest claim" | "violation" | "hang";

export interface SentFrame {
  readonly outcome: Outcome;
  /** The Error response's name (text before the first colon), or the outcome. */
  readonly detail: string;
  readonly raw?: Uint8Array;
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;

const hex = (b: Uint8Array): string => `0x${Buffer.from(b).toString("hex")}`;

/** Whether every root of a signed result is the recorded chain's root at its block. */
export function signsOnlyHonestRoots(response: Response): boolean {
  if (response.kind !== "Prove") return false;
  const { manifest } = recordedWitness();
  const rootAt = (block: bigint): string | undefined =>
    block === BigInt(manifest.startBlock)
      ? manifest.boot.agreedOutputRoot
      : manifest.outputRoots[Number(block) - manifest.startBlock - 1];
  const { aggregate_proposal: aggregate, proposals } = response.result.Tee;
  const rootsHonest = [aggregate, ...proposals].every(
    (p) => rootAt(p.l2_block_number) === hex(p.output_root),
  );
  const chained = proposals.every(
    (p, i) =>
      hex(p.prev_output_root) ===
      (i === 0 ? manifest.boot.agreedOutputRoot : hex(proposals[i - 1]!.output_root)),
  );
  return (
    rootsHonest &&
    chained &&
    proposals.length > 0 &&
    hex(aggregate.prev_output_root) === manifest.boot.agreedOutputRoot
  );
}

/** Writes `frame`, optionally half-closes, and reads one response frame (raw payload) or the close. */
export async function sendFrame(
  target: EnclaveTarget,
  frame: Uint8Array,
  options: { readonly endInput: boolean; readonly timeoutMs: number },
): Promise<{ kind: "frame"; payload: Uint8Array } | { kind: "closed" } | { kind: "timeout" }> {
  const connection = await RawEnclaveConnection.open(target);
  try {
    connection.write(frame);
    if (options.endInput) connection.endInput();
    const outcome = await connection.readFrame(options.timeoutMs);
    return outcome.kind === "frame" ? outcome : { kind: outcome.kind };
  } finally {
    connection.destroy();
  }
}

/** The signer's public key, through a SignerPublicKey request. */
export async function signerPublicKey(address: EnclaveTarget["address"], timeoutMs: number): Promise<string> {
  const target = { address, frameLengthPrefix: 4 as const, messageForm: formOf(4) };
  const connection = await RawEnclaveConnection.open(target);
  try {
    connection.sendRequest({ kind: "SignerPublicKey" });
    const response = await connection.readResponse(timeoutMs);
    if (response.kind !== "SignerPublicKey") throw new Error(`SignerPublicKey answered ${response.kind}`);
    return hex(response.public_key);
  } finally {
    connection.destroy();
  }
}

/** The honest request's answer in each frame form (its raw payload): what a no-op mutation must return. */
export async function honestAnswers(
  address: EnclaveTarget["address"],
  timeoutMs: number,
): Promise<Record<FrameLengthPrefix, Uint8Array>> {
  const answers: Partial<Record<FrameLengthPrefix, Uint8Array>> = {};
  for (const prefix of [4, 8] as const) {
    const answer = await sendFrame(
      { address, frameLengthPrefix: prefix, messageForm: formOf(prefix) },
      frameOf(honestProve().payload, prefix),
      { endInput: false, timeoutMs },
    );
    if (answer.kind !== "frame") throw new Error(`the honest Prove request was answered: ${answer.kind}`);
    const response = decodeResponsePayload(answer.payload, formOf(prefix));
    if (response.kind !== "Prove" || !signsOnlyHonestRoots(response))
      throw new Error(`the honest Prove request was not proved: ${JSON.stringify(response.kind)}`);
    answers[prefix] = answer.payload;
  }
  return answers as Record<FrameLengthPrefix, Uint8Array>;
}

/** Sends one mutation and classifies the answer against the honest one of its frame form. */
export async function classify(
  address: EnclaveTarget["address"],
  mutation: Mutation,
  honest: Record<FrameLengthPrefix, Uint8Array>,
  timeoutMs: number,
): Promise<SentFrame> {
  // The enclave tells the forms apart as it reads: four zero bytes open an 8-byte prefix; it answers in that form.
  const prefix: FrameLengthPrefix = mutation.frame.subarray(0, 4).every((b) => b === 0) ? 8 : 4;
  const target = { address, frameLengthPrefix: prefix, messageForm: formOf(prefix) };
  let answer: Awaited<ReturnType<typeof sendFrame>>;
  try {
    answer = await sendFrame(target, mutation.frame, { endInput: mutation.endInput, timeoutMs });
  } catch (error) {
    return { outcome: "violation", detail: `unreadable answer: ${(error as Error).message}` };
  }
  if (answer.kind === "closed") return { outcome: "closed", detail: "connection closed" };
  if (answer.kind === "timeout") return { outcome: "hang", detail: "no answer" };
  if (sameBytes(answer.payload, honest[mutation.prefix]))
    return { outcome: "no-op", detail: "honest result" };
  let response: Response;
  try {
    response = decodeResponsePayload(answer.payload, formOf(prefix));
  } catch {
    return { outcome: "violation", detail: "undecodable response", raw: answer.payload };
  }
  if (response.kind === "Error") {
    const colon = response.message.indexOf(":");
    return { outcome: "refused", detail: colon > 0 ? response.message.slice(0, colon) : response.message };
  }
  if (response.kind !== "Prove") return { outcome: "answered", detail: response.kind };
  if (signsOnlyHonestRoots(response))
    return { outcome: "honest claim", detail: "honest roots, other journal" };
  return { outcome: "violation", detail: `signed ${response.kind}`, raw: answer.payload };
}

export interface MutationRun {
  readonly sent: number;
  readonly seconds: number;
  readonly signerBefore: string;
  readonly signerAfter: string;
  /** kind family (text before ":") → outcome → count. */
  readonly byKind: Map<string, Map<Outcome, number>>;
  /** Error names of the refusals → count. */
  readonly errors: Map<string, number>;
  /** kind family → milliseconds spent on its frames (send to answer). */
  readonly millis: Map<string, number>;
  readonly violations: { readonly kind: string; readonly detail: string }[];
}

export interface MutationRunOptions {
  readonly mutations: number;
  readonly seed: number;
  /** Frames in flight at once (each on its own connection). */
  readonly concurrency: number;
  /** Per-frame answer timeout. */
  readonly timeoutMs: number;
  /** Stop sending new frames after this wall-clock time (ms since the epoch). */
  readonly deadline?: number;
  readonly onProgress?: (sent: number) => void;
}

const bump = <K>(map: Map<K, number>, key: K): void => {
  map.set(key, (map.get(key) ?? 0) + 1);
};

/** Mutations of the honest Prove request against the enclave at `address`. */
export async function runMutations(
  address: EnclaveTarget["address"],
  options: MutationRunOptions,
): Promise<MutationRun> {
  const started = Date.now();
  const signerBefore = await signerPublicKey(address, options.timeoutMs);
  const honest = await honestAnswers(address, options.timeoutMs);
  const rng = new Rng(options.seed);
  const byKind = new Map<string, Map<Outcome, number>>();
  const errors = new Map<string, number>();
  const millis = new Map<string, number>();
  const violations: { kind: string; detail: string }[] = [];
  let next = 0;
  let sent = 0;
  const worker = async (): Promise<void> => {
    while (next < options.mutations && (options.deadline === undefined || Date.now() < options.deadline)) {
      const mutation = mutationAt(next++, rng);
      const sentAt = Date.now();
      let result = await classify(address, mutation, honest, options.timeoutMs);
      // A busy refusal says nothing about the mutation: send it again once the enclave has room.
      for (
        let retry = 0;
        result.outcome === "refused" && /busy/i.test(result.detail) && retry < 20;
        retry++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        result = await classify(address, mutation, honest, options.timeoutMs);
      }
      const family = mutation.kind.split(":")[0]!;
      millis.set(family, (millis.get(family) ?? 0) + Date.now() - sentAt);
      if (!byKind.has(family)) byKind.set(family, new Map());
      bump(byKind.get(family)!, result.outcome);
      if (result.outcome === "refused" || result.outcome === "closed") bump(errors, result.detail);
      if (result.outcome === "violation" || result.outcome === "hang")
        violations.push({ kind: mutation.kind, detail: result.detail });
      sent++;
      options.onProgress?.(sent);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const signerAfter = await signerPublicKey(address, options.timeoutMs);
  return {
    sent,
    seconds: (Date.now() - started) / 1000,
    signerBefore,
    signerAfter,
    byKind,
    errors,
    millis,
    violations,
  };
}
