/**
 * TEEVerifier (contracts/src/TEEVerifier.sol) on the EVM harness, with TEEProverRegistry: proposals built by our
 * proof library (src/proof/onchain buildProofResult) and signed by the enclave's signer (enclave/signer.ts) verify once v is
 * normalised to 27/28; every other proof is refused with the reason the contract names.
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import {
  type Address,
  bytesToHex,
  concatHex,
  encodePacked,
  getAddress,
  type Hex,
  keccak256,
  numberToHex,
} from "viem";
import { beforeEach, describe, expect, it } from "vitest";
import { loadArtifact } from "../../contracts/artifacts.js";
import { EnclaveSigner } from "../../enclave/signer.js";
import { packJournal } from "../../generated/journal/index.js";
import type { ProofResult } from "../../generated/protocol/index.js";
import {
  aggregateJournal,
  buildProofResult,
  configHashFor,
  type ExecutedRange,
  journalDigest,
  perBlockJournals,
  type ClaimContext,
  signerAddressOf,
  supportedChainIds,
} from "../../src/proof/onchain/index.js";
import { type BootInfo } from "../../src/proof/preimages/index.js";
import { type CallOutcome, type DeployedContract, EvmHarness } from "./harness.js";

const OWNER: Address = "0x0000000000000000000000000000000000000a01";
const PROPOSER: Address = getAddress("0x0000000000000000000000000000000000000b01");
const STRANGER: Address = getAddress("0x0000000000000000000000000000000000000b02");
const IMAGE: Hex = keccak256(new Uint8Array(48).fill(1));
const OTHER_IMAGE: Hex = keccak256(new Uint8Array(48).fill(2));
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const bytes = (hex: Hex): Uint8Array => Uint8Array.from(Buffer.from(hex.slice(2), "hex"));
const root = (label: string): Uint8Array => bytes(keccak256(new TextEncoder().encode(label)));

function enclaveSigner(seedByte: number): EnclaveSigner {
  return EnclaveSigner.generate((length) => new Uint8Array(length).fill(seedByte));
}

const signer = enclaveSigner(7);
const signerAddress = getAddress(bytesToHex(signer.address));
const chainId = supportedChainIds()[0] as bigint;

/** A five-block range after block 100 with intermediate interval 5, proven by `by` for `proposer`. */
function proveRange(by: EnclaveSigner, imageHash: Hex, proposer: Address = PROPOSER) {
  const range: ExecutedRange = {
    startBlock: 100n,
    outputRoots: [101, 102, 103, 104, 105].map((n) => root(`output ${n}`)),
  };
  const boot: BootInfo = {
    l1Head: root("l1 head"),
    l1HeadNumber: 4242n,
    agreedOutputRoot: root("output 100"),
    claimedOutputRoot: range.outputRoots[4] as Uint8Array,
    claimedL2BlockNumber: 105n,
    chainId,
    proposer: bytes(proposer),
    intermediateBlockInterval: 5n,
  };
  const ctx: ClaimContext = { boot, configHash: configHashFor(chainId), teeImageHash: bytes(imageHash) };
  const result: ProofResult = buildProofResult(ctx, range, by);
  return { ctx, range, result };
}

/** TEEVerifier's proof: proposer ‖ r ‖ s ‖ v, with v moved by `vOffset` (27: the normalised form). */
function teeProof(proposer: Address, signature: Uint8Array, vOffset = 27): Hex {
  const sig = Uint8Array.from(signature);
  sig[64] = (sig[64] as number) + vOffset;
  return concatHex([proposer, bytesToHex(sig)]);
}

/** The malleable twin (r, n − s, flipped v) of a low-s signature: same signer, high s. */
function highS(signature: Uint8Array): Uint8Array {
  const s = BigInt(bytesToHex(signature.subarray(32, 64)));
  const out = Uint8Array.from(signature);
  out.set(bytes(numberToHex(SECP256K1_N - s, { size: 32 })), 32);
  out[64] = (signature[64] as number) ^ 1;
  return out;
}

describe("TEEVerifier", () => {
  let harness: EvmHarness;
  let registry: DeployedContract;
  let verifier: DeployedContract;

  const verify = (proof: Hex, imageId: Hex, digest: Uint8Array): Promise<CallOutcome> =>
    harness.simulate(
      verifier.address,
      verifier.encode("verify", [proof, imageId, bytesToHex(digest)]),
      verifier.abi,
    );
  const expectAccepted = (outcome: CallOutcome) => {
    expect(outcome.revertReason ?? outcome.exception).toBeUndefined();
    expect(outcome.returnData).toBe(`0x${"0".repeat(63)}1`);
  };

  beforeEach(async () => {
    harness = await EvmHarness.create({ chainId: 900n });
    registry = await harness.deploy(loadArtifact("TEEProverRegistry"), [OWNER, IMAGE]);
    verifier = await harness.deploy(loadArtifact("TEEVerifier"), [registry.address]);
    expect((await registry.write("setProposer", [PROPOSER, true], { from: OWNER })).success).toBe(true);
    expect((await registry.write("registerSigner", [signerAddress, IMAGE], { from: OWNER })).success).toBe(
      true,
    );
  });

  it("packs the journal our library signs exactly as Solidity's abi.encodePacked of the nine elements", () => {
    const { ctx, range } = proveRange(signer, IMAGE);
    const journal = aggregateJournal(ctx, range);
    const packed = encodePacked(
      ["address", "bytes32", "bytes32", "uint64", "bytes32", "uint64", "bytes32[]", "bytes32", "bytes32"],
      [
        PROPOSER,
        bytesToHex(ctx.boot.l1Head),
        bytesToHex(ctx.boot.agreedOutputRoot),
        100n,
        bytesToHex(range.outputRoots[4] as Uint8Array),
        105n,
        [bytesToHex(range.outputRoots[4] as Uint8Array)],
        bytesToHex(ctx.configHash),
        IMAGE,
      ],
    );
    expect(bytesToHex(packJournal(journal))).toBe(packed);
  });

  it("accepts the aggregate and every per-block proposal of our enclave signer once v is 27/28", async () => {
    const { ctx, range, result } = proveRange(signer, IMAGE);
    expectAccepted(
      await verify(
        teeProof(PROPOSER, result.Tee.aggregate_proposal.signature),
        IMAGE,
        journalDigest(aggregateJournal(ctx, range)),
      ),
    );
    const journals = perBlockJournals(ctx, range);
    expect(result.Tee.proposals).toHaveLength(5);
    for (const [i, proposal] of result.Tee.proposals.entries()) {
      expectAccepted(
        await verify(teeProof(PROPOSER, proposal.signature), IMAGE, journalDigest(journals[i]!)),
      );
    }
  });

  it("refuses the enclave's raw recovery id (v 0/1)", async () => {
    const { ctx, range, result } = proveRange(signer, IMAGE);
    const sig = result.Tee.aggregate_proposal.signature;
    const outcome = await verify(
      teeProof(PROPOSER, sig, 0),
      IMAGE,
      journalDigest(aggregateJournal(ctx, range)),
    );
    expect(outcome.revertReason).toBe(`SignatureInvalidV(${sig[64]})`);
  });

  it("refuses a high-s signature although it recovers to the registered signer", async () => {
    const { ctx, range, result } = proveRange(signer, IMAGE);
    const digest = journalDigest(aggregateJournal(ctx, range));
    const twin = highS(result.Tee.aggregate_proposal.signature);
    const recovered = secp256k1.Signature.fromBytes(twin.subarray(0, 64), "compact")
      .addRecoveryBit(twin[64] as number)
      .recoverPublicKey(digest)
      .toBytes(false);
    expect(bytesToHex(signerAddressOf(recovered))).toBe(bytesToHex(signer.address));
    const outcome = await verify(teeProof(PROPOSER, twin), IMAGE, digest);
    expect(outcome.revertReason).toBe(`SignatureHighS(${bytesToHex(twin.subarray(32, 64))})`);
  });

  it("refuses a signer registered for another image than the claimed image id", async () => {
    const { ctx, range, result } = proveRange(signer, IMAGE);
    const digest = journalDigest(aggregateJournal(ctx, range));
    const outcome = await verify(
      teeProof(PROPOSER, result.Tee.aggregate_proposal.signature),
      OTHER_IMAGE,
      digest,
    );
    expect(outcome.revertReason).toBe(`ImageIdMismatch(${IMAGE},${OTHER_IMAGE})`);
  });

  it("refuses an unregistered signer, and a deregistered one", async () => {
    const rogue = enclaveSigner(9);
    const { ctx, range, result } = proveRange(rogue, IMAGE);
    const digest = journalDigest(aggregateJournal(ctx, range));
    const outcome = await verify(teeProof(PROPOSER, result.Tee.aggregate_proposal.signature), IMAGE, digest);
    expect(outcome.revertReason).toBe(`InvalidSigner(${getAddress(bytesToHex(rogue.address))})`);

    const honest = proveRange(signer, IMAGE);
    const honestDigest = journalDigest(aggregateJournal(honest.ctx, honest.range));
    const proof = teeProof(PROPOSER, honest.result.Tee.aggregate_proposal.signature);
    expectAccepted(await verify(proof, IMAGE, honestDigest));
    expect((await registry.write("deregisterSigner", [signerAddress], { from: OWNER })).success).toBe(true);
    expect((await verify(proof, IMAGE, honestDigest)).revertReason).toBe(`InvalidSigner(${signerAddress})`);
  });

  it("refuses a tampered journal (another root): the signature recovers to another address", async () => {
    const { ctx, range, result } = proveRange(signer, IMAGE);
    const tampered = { ...aggregateJournal(ctx, range), intermediateRoots: [root("wrong")] };
    const outcome = await verify(
      teeProof(PROPOSER, result.Tee.aggregate_proposal.signature),
      IMAGE,
      journalDigest(tampered),
    );
    expect(outcome.revertReason).toMatch(/^InvalidSigner\(0x[0-9a-fA-F]{40}\)$/);
    expect(outcome.revertReason).not.toBe(`InvalidSigner(${signerAddress})`);
  });

  it("refuses a proposer off the registry's list, and a proof of the wrong length", async () => {
    const { ctx, range, result } = proveRange(signer, IMAGE, STRANGER);
    const digest = journalDigest(aggregateJournal(ctx, range));
    const proof = teeProof(STRANGER, result.Tee.aggregate_proposal.signature);
    expect((await verify(proof, IMAGE, digest)).revertReason).toBe(`InvalidProposer(${STRANGER})`);
    expect((await verify(proof.slice(0, -2) as Hex, IMAGE, digest)).revertReason).toBe(
      "InvalidProofFormat(84)",
    );
    // Once listed, the same proof verifies; removed again, it is refused.
    expect((await registry.write("setProposer", [STRANGER, true], { from: OWNER })).success).toBe(true);
    expectAccepted(await verify(proof, IMAGE, digest));
    expect((await registry.write("setProposer", [STRANGER, false], { from: OWNER })).success).toBe(true);
    expect((await verify(proof, IMAGE, digest)).revertReason).toBe(`InvalidProposer(${STRANGER})`);
  });

  it("the registry's proposer list is the owner's: ProposerSet events, managers and strangers refused", async () => {
    const set = await registry.write("setProposer", [STRANGER, true], { from: OWNER });
    expect(set.logs[0]?.topics[0]).toBe(keccak256(new TextEncoder().encode("ProposerSet(address,bool)")));
    expect(await registry.read("isValidProposer", [STRANGER])).toBe(true);
    expect((await registry.write("setManager", [STRANGER, true], { from: OWNER })).success).toBe(true);
    const byManager = await registry.write("setProposer", [PROPOSER, false], { from: STRANGER });
    expect(byManager.revertReason).toBe(`NotOwner(${STRANGER})`);
    expect(await registry.read("isValidProposer", [PROPOSER])).toBe(true);
  });
});
