/**
 * Enclave checks: the framed bincode protocol spoken directly to an enclave address (a Unix socket or a
 * 127.0.0.1 port; never vsock). Each check names the requirement of docs/protocol.md "B. Enclave prover" (mostly "Safety requirements") it
 * covers.
 */
import { randomBytes } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { DEFAULT_PROTOCOL_FORM, type Preimage, type Response } from "../../generated/protocol/index.js";
import type { ProofResult } from "../../generated/rpc/index.js";
import { signerAddressOf } from "../../src/proof/onchain/index.js";
import { decodeAnswer, pairedMessageForm } from "../../src/proof/transport/index.js";
import { BootKey, preimageKeyOf, u64be } from "../../src/proof/preimages/index.js";
import { readAttestation } from "../attestation.js";
import { type Check, CheckFailed, CheckSkipped, expectThat } from "../check.js";
import { type EnclaveTarget, exchange, RawEnclaveConnection } from "../enclave-connection.js";
import { imageHashFromPcrs, journalProblems } from "../journal-check.js";
import {
  agreedStateRootKey,
  bootValue,
  firstBlobElement,
  l1HeadHeaderKey,
  UNKNOWN_CHAIN_ID,
  withBootValue,
  withoutBootKey,
  withoutKey,
  withTamperedPreimage,
  withValue,
} from "../witness.js";

export interface EnclaveContext extends EnclaveTarget {
  /** The control witness: a file the implementation can prove, or the synthetic one. */
  readonly witness: readonly Preimage[];
  /** Where the control comes from ("recorded devnet", "synthetic", "given"): named in SKIP details. */
  readonly witnessSource: string;
  /** How long to wait for one response (a Prove may take a while with a real witness). */
  readonly responseTimeoutMs: number;
  /** What a correct prover produces for the control, when known (the recorded witness's manifest). */
  readonly expectedRange?: { readonly startBlock: bigint; readonly outputRoots: readonly Uint8Array[] };
  publicKey?: Uint8Array;
  teeImageHash?: Uint8Array;
  /** The schedule-id journal version: the schedule id a verifier pins for a claim at a block. */
  readonly scheduleIdAt?: (claimedBlock: bigint) => Uint8Array;
  control?: Response;
  /** Every proof any check obtained, with the witness it answers. */
  readonly proofs: { label: string; witness: readonly Preimage[]; result: ProofResult }[];
}

const hex = (bytes: Uint8Array): string => `0x${Buffer.from(bytes).toString("hex")}`;
const equalBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

function readU64(bytes: Uint8Array | undefined): bigint | undefined {
  if (bytes?.length !== 8) return undefined;
  return new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, false);
}

function describe(response: Response): string {
  return response.kind === "Error" ? `Error "${response.message}"` : `Response::${response.kind}`;
}

async function fetchPublicKey(context: EnclaveContext): Promise<Uint8Array> {
  const response = await exchange(context, { kind: "SignerPublicKey" }, context.responseTimeoutMs);
  if (response.kind !== "SignerPublicKey")
    throw new CheckFailed(`SignerPublicKey answered with ${describe(response)}`);
  return response.public_key;
}

async function knownPublicKey(context: EnclaveContext): Promise<Uint8Array> {
  context.publicKey ??= await fetchPublicKey(context);
  return context.publicKey;
}

async function prove(
  context: EnclaveContext,
  label: string,
  witness: readonly Preimage[],
): Promise<Response> {
  const response = await exchange(context, { kind: "Prove", preimages: witness }, context.responseTimeoutMs);
  if (response.kind === "Prove") context.proofs.push({ label, witness, result: response.result });
  return response;
}

/** keccak256(PCR0) from an attestation document (zero in local mode), fetched once. */
async function knownTeeImageHash(context: EnclaveContext): Promise<Uint8Array> {
  if (context.teeImageHash !== undefined) return context.teeImageHash;
  const response = await exchange(
    context,
    { kind: "SignerAttestation", user_data: null, nonce: null },
    context.responseTimeoutMs,
  );
  if (response.kind !== "SignerAttestation")
    throw new CheckFailed(`SignerAttestation answered with ${describe(response)}`);
  const imageHash = imageHashFromPcrs((await readAttestation(response.document, "the attestation")).pcrs);
  if (imageHash === undefined) throw new CheckFailed("the attestation document gave no usable PCR0");
  context.teeImageHash = imageHash;
  return imageHash;
}

/** In Base's form: the result's tee_signer must be the signer key's address. */
function teeSignerProblems(result: ProofResult, address: Uint8Array): string[] {
  const stamped = result.Tee.tee_signer;
  if (stamped !== undefined && equalBytes(stamped, address)) return [];
  return [
    `tee_signer ${stamped === undefined ? "missing" : hex(stamped)}, the signer key's address is ${hex(address)}`,
  ];
}

/** How far past the claim enclave.schedule-block pins the schedule (a game's end may lie well past a sub-range). */
const SCHEDULE_BLOCK_DISTANCE = 1000n;

async function controlResponse(context: EnclaveContext): Promise<Response> {
  context.control ??= await prove(context, `control (${context.witnessSource} witness)`, context.witness);
  return context.control;
}

/**
 * A Prove that must be refused. Signing fails the check. A refusal passes when it can be attributed to
 * the defect: the unmodified control was proved, or was refused with a different message. A refusal
 * identical to the control's cannot be attributed, and is reported as SKIP with both messages.
 */
async function expectRefused(
  context: EnclaveContext,
  defect: string,
  witness: readonly Preimage[],
): Promise<string> {
  const response = await prove(context, defect, witness);
  if (response.kind === "Prove") {
    throw new CheckFailed(
      `a request with ${defect} was signed (${response.result.Tee.proposals.length} per-block proposals)`,
    );
  }
  expectThat(response.kind === "Error", `a request with ${defect} was answered with ${describe(response)}`);
  const control = await controlResponse(context);
  if (control.kind === "Prove") return `refused ("${response.message}"); the unmodified request was proved`;
  if (control.kind === "Error" && control.message === response.message) {
    throw new CheckSkipped(
      `refused, but with the same message as the unmodified ${context.witnessSource} request ("${control.message}"), so the refusal cannot be attributed to ${defect}; give a witness the implementation can prove (--witness)`,
    );
  }
  return `refused ("${response.message}"); unmodified request: ${describe(control)}`;
}

/**
 * A refusal check that needs a part of a real witness (an L1 header, a blob, a state node): SKIP when the
 * control witness has none (the synthetic one), else the modified witness must be refused attributably.
 */
async function expectRefusedIfPresent<T>(
  context: EnclaveContext,
  part: T | undefined,
  what: string,
  defect: (part: T) => { defect: string; witness: Preimage[] },
): Promise<string> {
  if (part === undefined) {
    throw new CheckSkipped(
      `the ${context.witnessSource} witness holds no ${what} (run with the recorded witness or a --witness collected from a chain)`,
    );
  }
  const modified = defect(part);
  return expectRefused(context, modified.defect, modified.witness);
}

const keyHex = (key: Preimage[0]): string => hex(key);

/** Sends `bytes` on one connection, then requires that a fresh connection is still answered with the same key. */
async function survivesHostileBytes(
  context: EnclaveContext,
  bytes: Uint8Array,
  halfClose: boolean,
): Promise<string> {
  const before = await knownPublicKey(context);
  const hostile = await RawEnclaveConnection.open(context);
  let observed: string;
  try {
    hostile.write(bytes);
    if (halfClose) hostile.endInput();
    const outcome = await hostile
      .readFrame(5_000)
      .catch((error: Error) => ({ kind: "invalid", error }) as const);
    if (outcome.kind === "frame") {
      const response = (() => {
        try {
          return decodeAnswer(outcome.payload, undefined, context.messageForm);
        } catch (error) {
          throw new CheckFailed(`the answer to hostile bytes is not a Response: ${(error as Error).message}`);
        }
      })();
      expectThat(
        response.kind === "Error",
        `hostile bytes were answered with ${describe(response)}, not Error`,
      );
    }
    observed =
      outcome.kind === "frame"
        ? "answered with an Error"
        : outcome.kind === "closed"
          ? "closed the connection"
          : outcome.kind === "timeout"
            ? "kept the connection open (no answer within 5 s)"
            : `sent an invalid frame (${outcome.error.message})`;
  } finally {
    hostile.destroy();
  }
  const after = await fetchPublicKey(context).catch((error: Error) => {
    throw new CheckFailed(
      `after the hostile bytes the enclave ${observed}, then a fresh connection failed: ${error.message}`,
    );
  });
  expectThat(
    equalBytes(before, after),
    "the signer public key changed after the hostile bytes (the enclave restarted?)",
  );
  return `the enclave ${observed}; the next connection was answered with the same key`;
}

/** `payload` behind a length prefix announcing `length`, in the form the suite speaks (no checks: hostile). */
function prefixed(context: EnclaveContext, length: number, payload: Uint8Array): Uint8Array {
  const width = context.frameLengthPrefix;
  const out = new Uint8Array(width + payload.length);
  const view = new DataView(out.buffer);
  if (width === 4) view.setUint32(0, length, false);
  else view.setBigUint64(0, BigInt(length), false);
  out.set(payload, width);
  return out;
}

export const enclaveChecks: readonly Check<EnclaveContext>[] = [
  {
    id: "enclave.signer-public-key",
    covers:
      "limits: 65-byte uncompressed secp256k1 signer key; safety 7: no mutable state (same key on every connection)",
    async run(context) {
      const keys = [
        await fetchPublicKey(context),
        await fetchPublicKey(context),
        await fetchPublicKey(context),
      ];
      const key = keys[0] as Uint8Array;
      expectThat(
        key.length === 65 && key[0] === 0x04,
        `public key is not 65 bytes starting 0x04: ${hex(key)}`,
      );
      try {
        secp256k1.Point.fromBytes(key).assertValidity();
      } catch {
        throw new CheckFailed(`public key is not a point on secp256k1: ${hex(key)}`);
      }
      expectThat(
        keys.every((k) => equalBytes(k, key)),
        "the public key differs between connections",
      );
      context.publicKey = key;
      return `signer ${hex(signerAddressOf(key))}, same key on 3 connections`;
    },
  },
  {
    id: "enclave.attestation-binds-key",
    covers: "attestation document: COSE_Sign1 embedding the 65-byte public key, user_data and nonce",
    async run(context) {
      const userData = new Uint8Array(randomBytes(64));
      const nonce = new Uint8Array(randomBytes(16));
      const response = await exchange(
        context,
        { kind: "SignerAttestation", user_data: userData, nonce },
        context.responseTimeoutMs,
      );
      if (response.kind !== "SignerAttestation") {
        throw new CheckFailed(`SignerAttestation answered with ${describe(response)}`);
      }
      const document = await readAttestation(response.document, "the attestation");
      const key = await knownPublicKey(context);
      expectThat(
        document.publicKey !== null && equalBytes(document.publicKey, key),
        "the document's public_key is not the signer key",
      );
      expectThat(
        document.userData !== null && equalBytes(document.userData, userData),
        "the document does not carry the user_data sent",
      );
      expectThat(
        document.nonce !== null && equalBytes(document.nonce, nonce),
        "the document does not carry the nonce sent",
      );
      const imageHash = imageHashFromPcrs(document.pcrs);
      if (imageHash !== undefined) context.teeImageHash = imageHash;
      return `module ${document.moduleId}, ${document.pcrs.size} PCRs, tee_image_hash ${imageHash === undefined ? "unknown" : hex(imageHash)}`;
    },
  },
  {
    id: "enclave.one-request-per-connection",
    covers:
      "safety 7 / limits: one request per connection (closed after the response, a second frame not answered)",
    async run(context) {
      const connection = await RawEnclaveConnection.open(context);
      try {
        connection.sendRequest({ kind: "SignerPublicKey" });
        const first = await connection.readResponse(context.responseTimeoutMs);
        expectThat(
          first.kind === "SignerPublicKey",
          `the first request was answered with ${describe(first)}`,
        );
        connection.sendRequest({ kind: "SignerPublicKey" });
        const second = await connection.readFrame(2_000).catch(() => ({ kind: "invalid" }) as const);
        expectThat(second.kind !== "frame", "a second request frame on the same connection was answered");
        expectThat(
          second.kind === "closed",
          "the second frame got no answer, but the connection stayed open for 2 s after the response (the spec: one request, then the connection closes)",
        );
        return "the connection was closed after the first response; the second frame got no answer";
      } finally {
        connection.destroy();
      }
    },
  },
  {
    id: "enclave.hostile-frame.oversized-prefix",
    covers: "limits: u32 length prefix capped before allocating; a hostile frame does not kill the enclave",
    run: (context) =>
      survivesHostileBytes(context, prefixed(context, 0xffff_ffff, new Uint8Array(16).fill(0x41)), false),
  },
  {
    id: "enclave.hostile-frame.truncated",
    covers: "host-enclave frames: a truncated frame does not kill the enclave",
    run: (context) =>
      survivesHostileBytes(context, prefixed(context, 64, new Uint8Array(10).fill(0x01)), true),
  },
  {
    id: "enclave.hostile-frame.garbage",
    covers: "host-enclave frames: an undecodable payload does not kill the enclave",
    run: (context) => {
      const garbage = new Uint8Array(randomBytes(48));
      garbage[0] = 0xee; // not a Request variant index
      return survivesHostileBytes(context, prefixed(context, garbage.length, garbage), false);
    },
  },
  {
    id: "enclave.content-verification.keccak256",
    covers:
      "safety 4: every keccak256-keyed preimage is content-verified (tampered value refused, nothing signed)",
    run: (context) =>
      expectRefused(
        context,
        "a tampered keccak256 preimage",
        withTamperedPreimage(context.witness, "Keccak256"),
      ),
  },
  {
    id: "enclave.content-verification.sha256",
    covers:
      "safety 4: every sha256-keyed preimage is content-verified (tampered value refused, nothing signed)",
    run: (context) =>
      expectRefused(context, "a tampered sha256 preimage", withTamperedPreimage(context.witness, "Sha256")),
  },
  {
    id: "enclave.unknown-chain",
    covers: "safety 5: unknown chain ids are refused (UnsupportedChain), nothing signed",
    async run(context) {
      const detail = await expectRefused(
        context,
        `the unknown chain id ${UNKNOWN_CHAIN_ID}`,
        withBootValue(context.witness, BootKey.L2ChainId, u64be(UNKNOWN_CHAIN_ID)),
      );
      return /unsupported.?chain/i.test(detail)
        ? detail
        : `${detail} (the message does not name UnsupportedChain)`;
    },
  },
  {
    id: "enclave.missing-boot-key",
    covers:
      "proof pipeline step 4: boot values come from local preimages; a missing claimed-root key is refused, nothing signed",
    run: (context) =>
      expectRefused(
        context,
        "no claimed output root boot key",
        withoutBootKey(context.witness, BootKey.ClaimedOutputRoot),
      ),
  },
  {
    id: "enclave.withheld-preimage.l1-header",
    covers:
      "fail closed: a withheld preimage (the L1 head's header) refuses the proof, never read as a default; nothing signed",
    run: (context) =>
      expectRefusedIfPresent(context, l1HeadHeaderKey(context.witness), "L1 head header", (key) => ({
        defect: `the L1 head header (${keyHex(key)}) withheld`,
        witness: withoutKey(context.witness, key),
      })),
  },
  {
    id: "enclave.withheld-preimage.l2-state-node",
    covers:
      "fail closed: a withheld preimage (the agreed L2 state trie's root node) refuses the proof; nothing signed",
    run: (context) =>
      expectRefusedIfPresent(
        context,
        agreedStateRootKey(context.witness),
        "agreed L2 state root node",
        (key) => ({
          defect: `the agreed state root node (${keyHex(key)}) withheld`,
          witness: withoutKey(context.witness, key),
        }),
      ),
  },
  {
    id: "enclave.withheld-preimage.blob",
    covers: "fail closed: a withheld blob field element refuses the proof; nothing signed",
    run: (context) =>
      expectRefusedIfPresent(context, firstBlobElement(context.witness), "blob field element", ([key]) => ({
        defect: `a blob field element (${keyHex(key)}) withheld`,
        witness: withoutKey(context.witness, key),
      })),
  },
  {
    id: "enclave.tampered-blob-element",
    covers:
      "blob data verified by KZG on use: one field element changed (still a valid field element) is refused; nothing signed",
    run: (context) =>
      expectRefusedIfPresent(
        context,
        firstBlobElement(context.witness),
        "blob field element",
        ([key, value]) => {
          const tampered = value.slice();
          tampered[31] = (tampered[31] ?? 0) ^ 1;
          return {
            defect: `a tampered blob field element (${keyHex(key)})`,
            witness: withValue(context.witness, key, tampered),
          };
        },
      ),
  },
  {
    id: "enclave.precompile-key",
    covers: "precompile-result keys are refused (the program computes precompiles itself); nothing signed",
    run: (context) =>
      expectRefused(context, "a precompile-result key", [
        ...context.witness,
        [
          preimageKeyOf(
            "Precompile",
            keccak_256(new TextEncoder().encode("conformance: precompile")).slice(1),
          ),
          new Uint8Array([1]),
        ],
      ]),
  },
  {
    id: "enclave.proves-control",
    covers:
      "proof pipeline: the control range is proved: per-block proposals chained from the agreed root to the claim (the recorded chain's output roots), the aggregate at the claimed block",
    async run(context) {
      const control = await controlResponse(context);
      if (control.kind !== "Prove") {
        if (context.expectedRange !== undefined) {
          throw new CheckFailed(
            `the ${context.witnessSource} witness was not proved (${describe(control)}); an enclave given its chain's rollup config (conformance/fixtures/devnet-rollup.json) must prove it`,
          );
        }
        throw new CheckSkipped(
          `the unmodified ${context.witnessSource} witness was not proved (${describe(control)})`,
        );
      }
      const { proposals, aggregate_proposal: aggregateProposal } = control.result.Tee;
      const agreed = bootValue(context.witness, BootKey.AgreedOutputRoot) ?? new Uint8Array(32);
      const claimed = bootValue(context.witness, BootKey.ClaimedOutputRoot) ?? new Uint8Array(32);
      const claimedBlock = readU64(bootValue(context.witness, BootKey.ClaimedL2BlockNumber));
      const problems: string[] = [];
      const expected = context.expectedRange;
      if (expected !== undefined && proposals.length !== expected.outputRoots.length) {
        problems.push(
          `${proposals.length} per-block proposals for a range of ${expected.outputRoots.length} blocks`,
        );
      }
      let prev = agreed;
      proposals.forEach((p, i) => {
        const block = expected === undefined ? undefined : expected.startBlock + BigInt(i) + 1n;
        if (!equalBytes(p.prev_output_root, prev))
          problems.push(
            `proposal ${i}: prevOutputRoot ${hex(p.prev_output_root)} does not chain from ${hex(prev)}`,
          );
        if (block !== undefined && p.l2_block_number !== block)
          problems.push(`proposal ${i}: block ${p.l2_block_number}, expected ${block}`);
        const root = expected?.outputRoots[i];
        if (root !== undefined && !equalBytes(p.output_root, root))
          problems.push(
            `proposal ${i} (block ${p.l2_block_number}): root ${hex(p.output_root)}, the chain's is ${hex(root)}`,
          );
        prev = p.output_root;
      });
      if (!equalBytes(prev, claimed)) problems.push(`the last proposal's root ${hex(prev)} is not the claim`);
      if (!equalBytes(aggregateProposal.output_root, claimed))
        problems.push(`the aggregate root ${hex(aggregateProposal.output_root)} is not the claim`);
      if (claimedBlock !== undefined && aggregateProposal.l2_block_number !== claimedBlock)
        problems.push(
          `the aggregate is at block ${aggregateProposal.l2_block_number}, the claim at ${claimedBlock}`,
        );
      if (!equalBytes(aggregateProposal.prev_output_root, agreed))
        problems.push("the aggregate's prevOutputRoot is not the agreed root");
      expectThat(problems.length === 0, problems.join("; "));
      return `${proposals.length} per-block proposals from the agreed root to the claim${expected === undefined ? "" : ", each root the recorded chain's"}`;
    },
  },
  {
    id: "enclave.wrong-claimed-root",
    covers: "safety 2: the claimed output root is validated before any signing",
    async run(context) {
      const wrongRoot = keccak_256(
        new TextEncoder().encode("conformance: a claimed root no execution reproduces"),
      );
      const response = await prove(
        context,
        "a wrong claimed output root",
        withBootValue(context.witness, BootKey.ClaimedOutputRoot, wrongRoot),
      );
      if (response.kind === "Prove")
        throw new CheckFailed(`a wrong claimed output root ${hex(wrongRoot)} was signed`);
      const control = await controlResponse(context);
      if (control.kind !== "Prove") {
        throw new CheckSkipped(
          `the wrong root was refused ("${response.kind === "Error" ? response.message : response.kind}"), but the implementation produced no proof for the unmodified ${context.witnessSource} witness either (${describe(control)}), so validation of the root cannot be told apart from failing to prove`,
        );
      }
      return `refused ("${response.kind === "Error" ? response.message : response.kind}") while the correct root was proved`;
    },
  },
  {
    id: "enclave.tee-image-hash",
    covers:
      "TeeImageHash request: the answer is keccak256(PCR0) of the attestation document (the spec form's extension, Base's request 2)",
    async run(context) {
      const response = await exchange(context, { kind: "TeeImageHash" }, context.responseTimeoutMs);
      if (response.kind === "Error" && context.messageForm === DEFAULT_PROTOCOL_FORM)
        throw new CheckSkipped(
          `refused ("${response.message}"): TeeImageHash is an extension of the spec's message form; Base's form requires it`,
        );
      if (response.kind !== "TeeImageHash")
        throw new CheckFailed(`TeeImageHash answered with ${describe(response)}`);
      const expected = await knownTeeImageHash(context);
      expectThat(
        equalBytes(response.image_hash, expected),
        `TeeImageHash answered ${hex(response.image_hash)}, the attestation's keccak256(PCR0) is ${hex(expected)}`,
      );
      return `${hex(response.image_hash)}, as the attestation document's PCR0`;
    },
  },
  {
    id: "enclave.aggregate",
    covers:
      "Aggregate request (our extension, docs/enclave.md 'Aggregating sub-ranges'): the control's per-block proposals aggregate to the control's aggregate, signed by the enclave; a forged root among them is refused",
    async run(context) {
      const control = await controlResponse(context);
      if (control.kind !== "Prove")
        throw new CheckSkipped(
          `the unmodified ${context.witnessSource} witness was not proved (${describe(control)})`,
        );
      const { proposals, aggregate_proposal: expected } = control.result.Tee;
      const chainId = readU64(bootValue(context.witness, BootKey.L2ChainId));
      const interval = readU64(bootValue(context.witness, BootKey.IntermediateBlockInterval));
      const proposer = bootValue(context.witness, BootKey.Proposer);
      const scheduleBlock = readU64(bootValue(context.witness, BootKey.ScheduleL2BlockNumber));
      if (chainId === undefined || interval === undefined || proposer?.length !== 20)
        throw new CheckSkipped("the control witness lacks its chain id, interval or proposer boot value");
      const aggregate = (list: typeof proposals) =>
        exchange(
          context,
          {
            kind: "Aggregate",
            chain_id: chainId,
            proposer,
            intermediate_block_interval: interval,
            schedule_l2_block_number:
              scheduleBlock === undefined || scheduleBlock === 0n ? expected.l2_block_number : scheduleBlock,
            proposals: list,
          },
          context.responseTimeoutMs,
        );
      const answer = await aggregate(proposals);
      if (answer.kind === "Error")
        throw new CheckSkipped(
          `refused ("${answer.message}"): Aggregate is this implementation's extension; neither the spec's nor Base's enclave has it`,
        );
      if (answer.kind !== "Aggregate") throw new CheckFailed(`Aggregate answered with ${describe(answer)}`);
      const teeImageHash = await knownTeeImageHash(context);
      const got = answer.proposal;
      const problems = journalProblems(
        { Tee: { aggregate_proposal: got, proposals } },
        {
          witness: context.witness,
          signerAddress: signerAddressOf(await knownPublicKey(context)),
          teeImageHash,
          ...(context.scheduleIdAt === undefined ? {} : { scheduleIdAt: context.scheduleIdAt }),
        },
      );
      for (const field of ["output_root", "prev_output_root", "l1_origin_hash", "config_hash"] as const)
        if (!equalBytes(got[field], expected[field]))
          problems.push(
            `the aggregate's ${field} ${hex(got[field])} is not the control's ${hex(expected[field])}`,
          );
      if (
        got.l2_block_number !== expected.l2_block_number ||
        got.l1_origin_number !== expected.l1_origin_number
      )
        problems.push("the aggregate's block numbers are not the control's");
      if (proposals.length >= 2) {
        const forgedRoot = keccak_256(new TextEncoder().encode("conformance: a root no block ends at"));
        const forged = proposals.map((p, i) =>
          i === 0 ? { ...p, output_root: forgedRoot } : i === 1 ? { ...p, prev_output_root: forgedRoot } : p,
        );
        const refused = await aggregate(forged);
        if (refused.kind === "Aggregate")
          problems.push(
            `an aggregate was signed over proposals whose first root was forged (${hex(forgedRoot)})`,
          );
      }
      expectThat(problems.length === 0, problems.join("; "));
      return `the control's ${proposals.length} proposals aggregate to its aggregate, signed by the enclave${proposals.length >= 2 ? "; a forged root among them was refused" : ""}`;
    },
  },
  {
    id: "enclave.schedule-block",
    covers:
      "boot key 11 (schedule_l2_block_number): taken, and the schedule id of schedule-id journals is pinned at that block",
    async run(context) {
      const control = await controlResponse(context);
      const claimed = readU64(bootValue(context.witness, BootKey.ClaimedL2BlockNumber));
      if (control.kind !== "Prove" || claimed === undefined)
        throw new CheckSkipped(
          `the unmodified ${context.witnessSource} witness was not proved (${describe(control)})`,
        );
      const scheduleBlock = claimed + SCHEDULE_BLOCK_DISTANCE;
      const response = await prove(
        context,
        `schedule block ${scheduleBlock}`,
        withBootValue(context.witness, BootKey.ScheduleL2BlockNumber, u64be(scheduleBlock)),
      );
      if (response.kind !== "Prove")
        throw new CheckFailed(
          `a request naming schedule block ${scheduleBlock} was not proved: ${describe(response)}`,
        );
      // enclave.journal-image-hash recovers this proof's journals over the schedule id at that block.
      return `proved with schedule block ${scheduleBlock}${context.scheduleIdAt === undefined ? "" : " (its journals are checked by enclave.journal-image-hash)"}`;
    },
  },
  {
    id: "enclave.journal-image-hash",
    covers:
      "safety 3: tee_image_hash embedded in every signed journal; signatures recover to the enclave signer (and tee_signer, when stamped, is it; required when Prove is answered in Base's form)",
    async run(context) {
      await controlResponse(context);
      if (context.proofs.length === 0) {
        throw new CheckSkipped(
          `no request of this run produced a proof (unmodified ${context.witnessSource} witness: ${describe(await controlResponse(context))}), so there is no signed journal to inspect`,
        );
      }
      const key = await knownPublicKey(context);
      const teeImageHash = context.teeImageHash;
      if (teeImageHash === undefined) {
        throw new CheckFailed(
          "the expected tee_image_hash is unknown: the attestation document gave no usable PCR0",
        );
      }
      // Base's form stamps the signer on every result (tee_signer); the spec's has no such field. A Prove is the
      // same bytes in both forms, so its answer comes in the form paired with the frame, or a peer's only form.
      const stamped =
        pairedMessageForm(context.frameLengthPrefix) !== DEFAULT_PROTOCOL_FORM ||
        context.proofs.some(({ result }) => result.Tee.tee_signer !== undefined);
      const address = signerAddressOf(key);
      const problems = context.proofs.flatMap(({ label, witness, result }) =>
        [
          ...journalProblems(result, {
            witness,
            signerAddress: address,
            teeImageHash,
            ...(context.scheduleIdAt === undefined ? {} : { scheduleIdAt: context.scheduleIdAt }),
          }),
          ...(stamped ? teeSignerProblems(result, address) : []),
        ].map((problem) => `${label}: ${problem}`),
      );
      expectThat(problems.length === 0, problems.join("; "));
      const version = context.scheduleIdAt === undefined ? "" : " (schedule-id journals)";
      return `${context.proofs.length} proof(s), every journal embeds ${hex(teeImageHash)} and recovers to the signer${version}${stamped ? `, tee_signer ${hex(address)} on each` : ""}`;
    },
  },
];
