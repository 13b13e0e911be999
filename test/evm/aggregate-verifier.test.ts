/**
 * AggregateVerifier (contracts/src/AggregateVerifier.sol) on the devnet's L1: anvil brought up by startDevnetL1 (the
 * TEEProverRegistry, DepositPortal and SystemConfig at their addresses), then TEEVerifier and AggregateVerifier
 * deployed after them by deployProofVerifiers. Proposals are built by our proof library (src/proof/onchain buildProofResult)
 * and signed by the enclave's signer (enclave/signer.ts) registered in the registry; the proposer submits the
 * sampled per-block roots and the aggregate signature with v + 27, as src/proposer does. Real blocks, so
 * the L1 origin is checked through BLOCKHASH and the EIP-2935 history contract.
 */
import {
  type Account,
  type Address,
  BaseError,
  bytesToHex,
  concatHex,
  ContractFunctionRevertedError,
  createWalletClient,
  getAddress,
  type Hash,
  type Hex,
  http,
  keccak256,
  numberToHex,
  zeroHash,
} from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import {
  aggregateVerifierAbi,
  deployProofVerifiers,
  teeProverRegistryAbi,
  teeVerifierAbi,
} from "../../contracts/index.js";
import { EnclaveSigner } from "../../enclave/signer.js";
import { loadArtifact } from "../../contracts/artifacts.js";
import { EvmHarness } from "./harness.js";
import type { ProofResult } from "../../generated/protocol/index.js";
import { devnetSystemConfig } from "../../src/devnet/accounts.js";
import { DEVNET_L1_MNEMONIC } from "../../src/devnet/l1/anvil.js";
import { type DevnetL1, startDevnetL1 } from "../../src/devnet/l1/bootstrap.js";
import { revertToSnapshotEachTest } from "./l1-snapshots.js";
import {
  buildProofResult,
  configHashFor,
  type ClaimContext,
  sampledBlockNumbers,
  supportedChainIds,
} from "../../src/proof/onchain/index.js";
import { type BootInfo } from "../../src/proof/preimages/index.js";

const deployer = mnemonicToAccount(DEVNET_L1_MNEMONIC, { addressIndex: 0 });
const proposer = mnemonicToAccount(DEVNET_L1_MNEMONIC, { addressIndex: 5 });
const challenger = mnemonicToAccount(DEVNET_L1_MNEMONIC, { addressIndex: 6 });
const stranger = mnemonicToAccount(DEVNET_L1_MNEMONIC, { addressIndex: 7 });

/** Local-mode enclaves attest the zero image hash (the devnet's). */
const LOCAL_IMAGE: Hex = zeroHash;
const OTHER_IMAGE: Hex = keccak256(new Uint8Array(48).fill(2));
const BLOCK_INTERVAL = 4n;
const INTERMEDIATE_BLOCK_INTERVAL = 2n;
const ANCHOR_BLOCK = 10n;
const chainId = supportedChainIds()[0] as bigint;
const configHash = configHashFor(chainId);
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const bytes = (hex: Hex): Uint8Array => Uint8Array.from(Buffer.from(hex.slice(2), "hex"));
/** The L2's true output root at a block, and a wrong one. */
const trueRoot = (block: bigint): Uint8Array => bytes(keccak256(new TextEncoder().encode(`output ${block}`)));
const wrongRoot = (block: bigint): Uint8Array => bytes(keccak256(new TextEncoder().encode(`wrong ${block}`)));

function enclaveSigner(seedByte: number): EnclaveSigner {
  return EnclaveSigner.generate((length) => new Uint8Array(length).fill(seedByte));
}
const enclave = enclaveSigner(7);
const enclaveAddress = getAddress(bytesToHex(enclave.address));

interface L1Ref {
  readonly hash: Hash;
  readonly number: bigint;
}

interface RangeProof {
  readonly start: bigint;
  readonly end: bigint;
  readonly interval: bigint;
  readonly l1: L1Ref;
  readonly result: ProofResult;
}

/**
 * What a host's prover_prove returns for (start, end]: the enclave's per-block and aggregate proposals over
 * `rootAt`'s roots, for `by` (the L1 account that will submit it) and L1 head `l1`.
 */
function proveRange(options: {
  start: bigint;
  end: bigint;
  interval?: bigint;
  by: Account;
  l1: L1Ref;
  rootAt?: (block: bigint) => Uint8Array;
  agreedRoot?: Uint8Array;
  signer?: EnclaveSigner;
  teeImageHash?: Hex;
}): RangeProof {
  const rootAt = options.rootAt ?? trueRoot;
  const interval = options.interval ?? INTERMEDIATE_BLOCK_INTERVAL;
  const outputRoots: Uint8Array[] = [];
  for (let b = options.start + 1n; b <= options.end; b++) outputRoots.push(rootAt(b));
  const boot: BootInfo = {
    l1Head: bytes(options.l1.hash),
    l1HeadNumber: options.l1.number,
    agreedOutputRoot: options.agreedRoot ?? trueRoot(options.start),
    claimedOutputRoot: outputRoots[outputRoots.length - 1] as Uint8Array,
    claimedL2BlockNumber: options.end,
    chainId,
    proposer: bytes(options.by.address),
    intermediateBlockInterval: interval,
  };
  const ctx: ClaimContext = {
    boot,
    configHash,
    teeImageHash: bytes(options.teeImageHash ?? LOCAL_IMAGE),
  };
  const result = buildProofResult(ctx, { startBlock: options.start, outputRoots }, options.signer ?? enclave);
  return { start: options.start, end: options.end, interval, l1: options.l1, result };
}

/** The intermediate roots a proposer submits: the per-block proposals' roots at the sampled blocks. */
function sampledRoots(proof: RangeProof): Hex[] {
  const count = Number(proof.end - proof.start);
  return sampledBlockNumbers(proof.start, count, proof.interval).map((block) =>
    bytesToHex(proof.result.Tee.proposals[Number(block - proof.start - 1n)]!.output_root),
  );
}

/** A 65-byte signature with v moved by `vOffset` (27 normalises the enclave's 0/1). */
function normalised(signature: Uint8Array, vOffset = 27): Hex {
  const sig = Uint8Array.from(signature);
  sig[64] = (sig[64] as number) + vOffset;
  return bytesToHex(sig);
}

/** AggregateVerifier's proposal proof: type 0 ‖ l1OriginHash ‖ uint256 l1OriginNumber ‖ signature. */
function proposalProof(
  proof: RangeProof,
  signature: Hex = normalised(proof.result.Tee.aggregate_proposal.signature),
): Hex {
  return concatHex(["0x00", proof.l1.hash, numberToHex(proof.l1.number, { size: 32 }), signature]);
}

/** The contract's errors and the TEEVerifier's (its reverts bubble up unchanged). */
const abi = [...aggregateVerifierAbi, ...teeVerifierAbi.filter((item) => item.type === "error")];

describe("AggregateVerifier on the devnet's L1", () => {
  let l1: DevnetL1;
  const takeSnapshot = revertToSnapshotEachTest(() => l1);
  let verifier: Address;

  const wallet = (account: Account) =>
    createWalletClient({ account, chain: l1.anvil.chain, transport: http(l1.anvil.rpcUrl) });

  /** Runs a call as `account` and returns its decoded revert, e.g. `InvalidSigner(0x…)`. */
  async function revertOf(account: Account, functionName: string, args: readonly unknown[]): Promise<string> {
    try {
      await l1.anvil.client.simulateContract({
        address: verifier,
        abi,
        functionName,
        args,
        account,
      } as never);
    } catch (e) {
      const reverted =
        e instanceof BaseError ? e.walk((x) => x instanceof ContractFunctionRevertedError) : null;
      if (reverted instanceof ContractFunctionRevertedError && reverted.data !== undefined) {
        return `${reverted.data.errorName}(${(reverted.data.args ?? []).map(String).join(",")})`;
      }
      throw e;
    }
    throw new Error(`${functionName} did not revert`);
  }

  /** Sends a transaction that must succeed (simulated first, so a revert names its reason). */
  async function send(account: Account, functionName: string, args: readonly unknown[], to = verifier) {
    const contractAbi = to === verifier ? abi : teeProverRegistryAbi;
    const { request } = await l1.anvil.client.simulateContract({
      address: to,
      abi: contractAbi,
      functionName,
      args,
      account,
    } as never);
    const hash = await wallet(account).writeContract(request as never);
    const receipt = await l1.anvil.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    expect(receipt.status).toBe("success");
    return receipt;
  }

  const read = (functionName: string, args: readonly unknown[] = []): Promise<unknown> =>
    l1.anvil.client.readContract({ address: verifier, abi, functionName, args } as never);

  /** The current L1 head, then one more block so that it is strictly in the past for calls and simulations. */
  async function l1Head(): Promise<L1Ref> {
    const head = await l1.anvil.client.getBlock();
    await l1.anvil.mine();
    return { hash: head.hash, number: head.number };
  }

  async function propose(proof: RangeProof, by: Account = proposer): Promise<bigint> {
    const count = (await read("proposalCount")) as bigint;
    await send(by, "propose", [
      proof.end,
      sampledRoots(proof).at(-1),
      sampledRoots(proof),
      proposalProof(proof),
    ]);
    const id = count + 1n;
    expect(await read("proposalAt", [proof.start, proof.end])).toBe(id);
    return id;
  }

  interface StoredProposal {
    proposer: Address;
    status: number;
    startingBlock: bigint;
    endingBlock: bigint;
    startingRoot: Hex;
    rootClaim: Hex;
    l1OriginHash: Hex;
    l1OriginNumber: bigint;
    l1Head: Hex;
    l1HeadNumber: bigint;
    parentId: bigint;
    intermediateRoots: readonly Hex[];
  }
  const proposal = async (id: bigint) => (await read("getProposal", [id])) as StoredProposal;

  beforeAll(async () => {
    l1 = await startDevnetL1({ systemConfig: devnetSystemConfig(), mining: { mode: "auto" } });
    const registry = l1.deployment.teeProverRegistry;
    const deployed = await deployProofVerifiers(
      { publicClient: l1.anvil.client, walletClient: wallet(deployer) },
      {
        teeProverRegistry: registry,
        teeImageHash: LOCAL_IMAGE,
        configHash: bytesToHex(configHash),
        blockInterval: BLOCK_INTERVAL,
        intermediateBlockInterval: INTERMEDIATE_BLOCK_INTERVAL,
        anchorBlock: ANCHOR_BLOCK,
        anchorRoot: bytesToHex(trueRoot(ANCHOR_BLOCK)),
        proposers: [proposer.address, challenger.address],
        pollingIntervalMs: 50,
      },
    );
    verifier = deployed.aggregateVerifier;
    await send(deployer, "registerSigner", [enclaveAddress, LOCAL_IMAGE], registry);
    await takeSnapshot();
  });

  it("is deployed with the intervals, hashes and anchor it was given", async () => {
    expect(await read("BLOCK_INTERVAL")).toBe(BLOCK_INTERVAL);
    expect(await read("INTERMEDIATE_BLOCK_INTERVAL")).toBe(INTERMEDIATE_BLOCK_INTERVAL);
    expect(await read("intermediateRootsCount")).toBe(2n);
    expect(await read("CONFIG_HASH")).toBe(bytesToHex(configHash));
    expect(await read("TEE_IMAGE_HASH")).toBe(LOCAL_IMAGE);
    expect(await read("ANCHOR_BLOCK")).toBe(ANCHOR_BLOCK);
    expect(await read("latestBlock")).toBe(ANCHOR_BLOCK);
    const teeVerifier = (await read("TEE_VERIFIER")) as Address;
    const registry = await l1.anvil.client.readContract({
      address: teeVerifier,
      abi: teeVerifierAbi,
      functionName: "TEE_PROVER_REGISTRY",
    });
    expect(registry).toBe(l1.deployment.teeProverRegistry);
  });

  it("accepts our enclave's aggregate proposals, chained from the anchor", async () => {
    const first = proveRange({ start: 10n, end: 14n, by: proposer, l1: await l1Head() });
    expect(sampledRoots(first)).toEqual([bytesToHex(trueRoot(12n)), bytesToHex(trueRoot(14n))]);
    const id = await propose(first);
    const stored = await proposal(id);
    expect(stored).toMatchObject({
      proposer: proposer.address,
      status: 1,
      startingBlock: 10n,
      endingBlock: 14n,
      startingRoot: bytesToHex(trueRoot(10n)),
      rootClaim: bytesToHex(trueRoot(14n)),
      l1OriginHash: first.l1.hash,
      l1OriginNumber: first.l1.number,
      parentId: 0n,
      intermediateRoots: sampledRoots(first),
    });
    // The L1 head recorded for challengers is the parent of the block the proposal landed in.
    const landed = await l1.anvil.client.getBlock();
    expect([stored.l1Head, stored.l1HeadNumber]).toEqual([landed.parentHash, landed.number - 1n]);

    const second = proveRange({ start: 14n, end: 18n, by: proposer, l1: await l1Head() });
    const secondId = await propose(second);
    expect((await proposal(secondId)).parentId).toBe(id);
    expect(await read("latestBlock")).toBe(18n);
    // The same range cannot be proposed twice while live.
    expect(
      await revertOf(proposer, "propose", [
        18n,
        sampledRoots(second).at(-1),
        sampledRoots(second),
        proposalProof(second),
      ]),
    ).toBe(`ProposalExists(${secondId})`);
  });

  it("refuses the enclave's raw v, a high-s twin, an unregistered signer and another image's signer", async () => {
    const l1Ref = await l1Head();
    const proof = proveRange({ start: 10n, end: 14n, by: proposer, l1: l1Ref });
    const args = (signature: Hex) => [
      14n,
      sampledRoots(proof).at(-1),
      sampledRoots(proof),
      proposalProof(proof, signature),
    ];
    const raw = proof.result.Tee.aggregate_proposal.signature;
    expect(await revertOf(proposer, "propose", args(normalised(raw, 0)))).toBe(
      `SignatureInvalidV(${raw[64]})`,
    );

    const twin = Uint8Array.from(raw);
    twin.set(bytes(numberToHex(SECP256K1_N - BigInt(bytesToHex(raw.subarray(32, 64))), { size: 32 })), 32);
    twin[64] = (raw[64] as number) ^ 1;
    expect(await revertOf(proposer, "propose", args(normalised(twin)))).toBe(
      `SignatureHighS(${bytesToHex(twin.subarray(32, 64))})`,
    );

    const rogue = enclaveSigner(9);
    const unregistered = proveRange({ start: 10n, end: 14n, by: proposer, l1: l1Ref, signer: rogue });
    expect(
      await revertOf(proposer, "propose", [
        14n,
        sampledRoots(unregistered).at(-1),
        sampledRoots(unregistered),
        proposalProof(unregistered),
      ]),
    ).toBe(`InvalidSigner(${getAddress(bytesToHex(rogue.address))})`);

    // A signer attested for another image, signing this verifier's journal: its registration does not match.
    const otherImage = enclaveSigner(11);
    await send(
      deployer,
      "registerSigner",
      [getAddress(bytesToHex(otherImage.address)), OTHER_IMAGE],
      l1.deployment.teeProverRegistry,
    );
    const mismatched = proveRange({ start: 10n, end: 14n, by: proposer, l1: l1Ref, signer: otherImage });
    expect(
      await revertOf(proposer, "propose", [
        14n,
        sampledRoots(mismatched).at(-1),
        sampledRoots(mismatched),
        proposalProof(mismatched),
      ]),
    ).toBe(`ImageIdMismatch(${OTHER_IMAGE},${LOCAL_IMAGE})`);
    // The same enclave signing its own image's journal is refused too: the journal carries TEE_IMAGE_HASH.
    const ownImage = proveRange({
      start: 10n,
      end: 14n,
      by: proposer,
      l1: l1Ref,
      signer: otherImage,
      teeImageHash: OTHER_IMAGE,
    });
    expect(
      await revertOf(proposer, "propose", [
        14n,
        sampledRoots(ownImage).at(-1),
        sampledRoots(ownImage),
        proposalProof(ownImage),
      ]),
    ).toMatch(/^InvalidSigner\(0x[0-9a-fA-F]{40}\)$/);
    expect(await read("proposalCount")).toBe(0n);
  });

  it("refuses a tampered root, another submitter than the journal's proposer, and a proposer off the list", async () => {
    const proof = proveRange({ start: 10n, end: 14n, by: proposer, l1: await l1Head() });
    const roots = sampledRoots(proof);
    const tampered = [bytesToHex(wrongRoot(12n)), roots[1]];
    const tamperedReason = await revertOf(proposer, "propose", [
      14n,
      roots[1],
      tampered,
      proposalProof(proof),
    ]);
    expect(tamperedReason).toMatch(/^InvalidSigner\(0x[0-9a-fA-F]{40}\)$/);
    expect(tamperedReason).not.toBe(`InvalidSigner(${enclaveAddress})`);
    // The journal names its proposer: the challenger (listed) cannot submit the proposer's proof.
    expect(await revertOf(challenger, "propose", [14n, roots[1], roots, proposalProof(proof)])).toMatch(
      /^InvalidSigner\(/,
    );
    const byStranger = proveRange({ start: 10n, end: 14n, by: stranger, l1: proof.l1 });
    expect(
      await revertOf(stranger, "propose", [
        14n,
        sampledRoots(byStranger)[1],
        sampledRoots(byStranger),
        proposalProof(byStranger),
      ]),
    ).toBe(`InvalidProposer(${stranger.address})`);
    // The last intermediate root must be the claim.
    expect(
      await revertOf(proposer, "propose", [14n, bytesToHex(wrongRoot(14n)), roots, proposalProof(proof)]),
    ).toBe(`IntermediateRootMismatch(${roots[1]},${bytesToHex(wrongRoot(14n))})`);
  });

  it("refuses proofs of the wrong interval", async () => {
    const l1Ref = await l1Head();
    // Six blocks: no parent ends at block 10 + 6 - 4 = 12.
    const six = proveRange({ start: 10n, end: 16n, by: proposer, l1: l1Ref });
    expect(
      await revertOf(proposer, "propose", [
        16n,
        sampledRoots(six).at(-1),
        sampledRoots(six).slice(1),
        proposalProof(six),
      ]),
    ).toBe("ParentNotFound(12)");
    // Four blocks sampled every block (4 roots) or every 4 blocks (1 root): the count is fixed at 2.
    for (const interval of [1n, 4n]) {
      const proof = proveRange({ start: 10n, end: 14n, interval, by: proposer, l1: l1Ref });
      const roots = sampledRoots(proof);
      expect(await revertOf(proposer, "propose", [14n, roots.at(-1), roots, proposalProof(proof)])).toBe(
        `IntermediateRootCountMismatch(2,${roots.length})`,
      );
    }
    // Three blocks proven with two roots at blocks 12 and 13 do not sample at the contract's blocks 12 and 14.
    const short = proveRange({ start: 10n, end: 13n, interval: 1n, by: proposer, l1: l1Ref });
    const shortRoots = sampledRoots(short).slice(1);
    expect(
      await revertOf(proposer, "propose", [14n, shortRoots[1], shortRoots, proposalProof(short)]),
    ).toMatch(/^InvalidSigner\(/);
    expect(await revertOf(proposer, "propose", [12n, shortRoots[1], shortRoots, proposalProof(short)])).toBe(
      "BlockOutOfRange(12)",
    );
  });

  it("checks the L1 origin: the hash of that block, by BLOCKHASH or the EIP-2935 history, never the future", async () => {
    const origin = await l1Head();
    const parent = await l1.anvil.client.getBlock({ blockNumber: origin.number - 1n });
    const wrongHash = proveRange({
      start: 10n,
      end: 14n,
      by: proposer,
      l1: { hash: parent.hash, number: origin.number },
    });
    expect(
      await revertOf(proposer, "propose", [
        14n,
        sampledRoots(wrongHash)[1],
        sampledRoots(wrongHash),
        proposalProof(wrongHash),
      ]),
    ).toBe(`L1OriginHashMismatch(${parent.hash},${origin.hash})`);
    const latest = await l1.anvil.client.getBlockNumber();
    const future = proveRange({
      start: 10n,
      end: 14n,
      by: proposer,
      l1: { hash: origin.hash, number: latest + 5n },
    });
    expect(
      await revertOf(proposer, "propose", [
        14n,
        sampledRoots(future)[1],
        sampledRoots(future),
        proposalProof(future),
      ]),
    ).toMatch(new RegExp(`^L1OriginInFuture\\(${latest + 5n},`));

    // 300 blocks later BLOCKHASH no longer knows the origin; the history contract does.
    const proof = proveRange({ start: 10n, end: 14n, by: proposer, l1: origin });
    await l1.anvil.request("anvil_mine", [numberToHex(300)]);
    expect(
      await revertOf(proposer, "propose", [
        14n,
        sampledRoots(wrongHash)[1],
        sampledRoots(wrongHash),
        proposalProof(wrongHash),
      ]),
    ).toBe(`L1OriginHashMismatch(${parent.hash},${origin.hash})`);
    await propose(proof);
  });

  it("a challenger's one-root proof nullifies a wrong proposal and what was built on it; the honest chain resumes", async () => {
    // A wrong proposal: the root at block 14 is wrong (so is the claim), block 12 is right.
    const wrongAt14 = (b: bigint) => (b >= 14n ? wrongRoot(b) : trueRoot(b));
    const bad = proveRange({ start: 10n, end: 14n, by: proposer, l1: await l1Head(), rootAt: wrongAt14 });
    const badId = await propose(bad);
    const child = proveRange({
      start: 14n,
      end: 18n,
      by: proposer,
      l1: await l1Head(),
      rootAt: wrongAt14,
      agreedRoot: wrongRoot(14n),
    });
    const childId = await propose(child);
    const stored = await proposal(badId);

    // The challenger proves blocks 12..14 (interval index 1) for the proposal's L1 head.
    const counter = proveRange({
      start: 12n,
      end: 14n,
      by: challenger,
      l1: { hash: stored.l1Head, number: stored.l1HeadNumber },
    });
    const counterProof = concatHex(["0x00", normalised(counter.result.Tee.aggregate_proposal.signature)]);
    const receipt = await send(challenger, "nullify", [badId, counterProof, 1n, bytesToHex(trueRoot(14n))]);
    expect(receipt.logs.map((log) => log.topics[0])).toEqual([
      keccak256(new TextEncoder().encode("Nullified(uint256,address,uint256,bytes32)")),
      keccak256(new TextEncoder().encode("ParentInvalidated(uint256,uint256)")),
    ]);
    expect((await proposal(badId)).status).toBe(2);
    expect((await proposal(childId)).status).toBe(3);
    expect(await read("proposalAt", [10n, 14n])).toBe(0n);
    expect(await read("proposalAt", [14n, 18n])).toBe(0n);
    expect(await read("latestBlock")).toBe(10n);
    expect(await revertOf(challenger, "nullify", [badId, counterProof, 1n, bytesToHex(trueRoot(14n))])).toBe(
      `ProposalNotLive(${badId})`,
    );

    // The honest proposer takes the range over.
    const honest = proveRange({ start: 10n, end: 14n, by: proposer, l1: await l1Head() });
    const honestId = await propose(honest);
    expect((await proposal(honestId)).parentId).toBe(0n);
    expect(await read("latestBlock")).toBe(14n);
  });

  it("an invalid challenge nullifies nothing", async () => {
    const good = proveRange({ start: 10n, end: 14n, by: proposer, l1: await l1Head() });
    const id = await propose(good);
    const stored = await proposal(id);
    const l1Ref = { hash: stored.l1Head, number: stored.l1HeadNumber };
    const attack = (b: bigint) => (b === 14n ? wrongRoot(b) : trueRoot(b));
    const challenge = (proof: RangeProof) =>
      concatHex(["0x00", normalised(proof.result.Tee.aggregate_proposal.signature)]);

    // The proposed root itself is no counter-claim.
    const same = proveRange({ start: 12n, end: 14n, by: challenger, l1: l1Ref });
    expect(await revertOf(challenger, "nullify", [id, challenge(same), 1n, bytesToHex(trueRoot(14n))])).toBe(
      `IntermediateRootSameAsProposed(${bytesToHex(trueRoot(14n))})`,
    );
    // A wrong root signed by an unregistered enclave.
    const rogue = proveRange({
      start: 12n,
      end: 14n,
      by: challenger,
      l1: l1Ref,
      rootAt: attack,
      signer: enclaveSigner(9),
    });
    expect(
      await revertOf(challenger, "nullify", [id, challenge(rogue), 1n, bytesToHex(wrongRoot(14n))]),
    ).toBe(`InvalidSigner(${getAddress(bytesToHex(enclaveSigner(9).address))})`);
    // A registered enclave's proof for another interval, another L1 head, or another submitter.
    const otherInterval = proveRange({
      start: 10n,
      end: 12n,
      by: challenger,
      l1: l1Ref,
      rootAt: (b) => (b === 12n ? wrongRoot(14n) : trueRoot(b)),
    });
    expect(
      await revertOf(challenger, "nullify", [id, challenge(otherInterval), 1n, bytesToHex(wrongRoot(14n))]),
    ).toMatch(/^InvalidSigner\(/);
    const otherHead = proveRange({ start: 12n, end: 14n, by: challenger, l1: good.l1, rootAt: attack });
    expect(
      await revertOf(challenger, "nullify", [id, challenge(otherHead), 1n, bytesToHex(wrongRoot(14n))]),
    ).toMatch(/^InvalidSigner\(/);
    const forProposer = proveRange({ start: 12n, end: 14n, by: proposer, l1: l1Ref, rootAt: attack });
    expect(
      await revertOf(challenger, "nullify", [id, challenge(forProposer), 1n, bytesToHex(wrongRoot(14n))]),
    ).toMatch(/^InvalidSigner\(/);
    expect(await revertOf(challenger, "nullify", [id, challenge(same), 2n, bytesToHex(wrongRoot(14n))])).toBe(
      "InvalidIntermediateRootIndex(2)",
    );
    expect((await proposal(id)).status).toBe(1);
    expect(await read("proposalAt", [10n, 14n])).toBe(id);
  });

  it("known divergence: with one-block proposals the seed's aggregate (no intermediate root) is not the contract's journal", async () => {
    const oneBlock = await deployProofVerifiers(
      { publicClient: l1.anvil.client, walletClient: wallet(deployer) },
      {
        teeProverRegistry: l1.deployment.teeProverRegistry,
        teeImageHash: LOCAL_IMAGE,
        configHash: bytesToHex(configHash),
        blockInterval: 1n,
        intermediateBlockInterval: 1n,
        anchorBlock: ANCHOR_BLOCK,
        anchorRoot: bytesToHex(trueRoot(ANCHOR_BLOCK)),
        pollingIntervalMs: 50,
      },
    );
    const proof = proveRange({ start: 10n, end: 11n, interval: 1n, by: proposer, l1: await l1Head() });
    // One block: the aggregate proposal is the per-block one (a journal without intermediate roots).
    expect(proof.result.Tee.aggregate_proposal).toBe(proof.result.Tee.proposals[0]);
    const root = bytesToHex(trueRoot(11n));
    const saved = verifier;
    verifier = oneBlock.aggregateVerifier;
    try {
      expect(await revertOf(proposer, "propose", [11n, root, [root], proposalProof(proof)])).toMatch(
        /^InvalidSigner\(/,
      );
    } finally {
      verifier = saved;
    }
  });
});

describe("AggregateVerifier's L1 origin window (EVM harness at block 10000)", () => {
  it("refuses an origin older than the EIP-2935 window, and one the history contract cannot answer for", async () => {
    const harness = await EvmHarness.create({ chainId: 900n });
    harness.blockNumber = 10_000n;
    const teeVerifier = getAddress("0x00000000000000000000000000000000000000e1");
    const aggregate = await harness.deploy(loadArtifact("AggregateVerifier"), [
      teeVerifier,
      LOCAL_IMAGE,
      bytesToHex(configHash),
      BLOCK_INTERVAL,
      INTERMEDIATE_BLOCK_INTERVAL,
      ANCHOR_BLOCK,
      bytesToHex(trueRoot(ANCHOR_BLOCK)),
    ]);
    const roots = [bytesToHex(trueRoot(12n)), bytesToHex(trueRoot(14n))];
    const attempt = async (originNumber: bigint) => {
      const proof = concatHex([
        "0x00",
        keccak256(new TextEncoder().encode(`l1 block ${originNumber}`)),
        numberToHex(originNumber, { size: 32 }),
        `0x${"11".repeat(64)}1b`,
      ]);
      return (await aggregate.write("propose", [14n, roots[1], roots, proof])).revertReason;
    };
    // 8192 blocks back: past the history window, refused without a look-up.
    expect(await attempt(10_000n - 8192n)).toBe("L1OriginTooOld(1808,10000)");
    // 300 blocks back on a chain without the history contract (no code at its address): nothing answers.
    expect(await attempt(10_000n - 300n)).toBe("L1OriginTooOld(9700,10000)");
    expect(await attempt(10_000n)).toBe("L1OriginInFuture(10000,10000)");
  });
});
