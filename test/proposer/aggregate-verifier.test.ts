/**
 * src/proof/onchain/aggregate-verifier.ts against AggregateVerifier on anvil (the devnet's L1 contracts, then TEEVerifier and
 * AggregateVerifier by deployProofVerifiers): prover results (our proof library's buildProofResult, signed by an
 * in-process enclave signer registered in the registry, in prover_prove's result shape) become propose() and
 * nullify() arguments the contract accepts; the pure checks refuse results that do not fit.
 */
import {
  type Account,
  type Address,
  bytesToHex,
  createWalletClient,
  getAddress,
  type Hex,
  hexToBytes,
  http,
  keccak256,
  zeroHash,
} from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deployProofVerifiers, teeProverRegistryAbi } from "../../contracts/index.js";
import { EnclaveSigner } from "../../enclave/signer.js";
import type { ProofRequest, ProofResult as RpcProofResult } from "../../generated/rpc/index.js";
import { devnetSystemConfig } from "../../src/devnet/accounts.js";
import { DEVNET_L1_MNEMONIC } from "../../src/devnet/l1/anvil.js";
import { type DevnetL1, startDevnetL1 } from "../../src/devnet/l1/bootstrap.js";
import {
  aggregateVerifierAbi,
  buildProofResult,
  configHashFor,
  contractSignature,
  firstWrongIntermediateRoot,
  intermediateBlocks,
  nullifyArguments,
  nullifyInterval,
  nullifyRequest,
  type OnchainProposal,
  ProposalEncodingError,
  ProposalStatus,
  proposeArguments,
  supportedChainIds,
} from "../../src/proof/onchain/index.js";

const account = (index: number) => mnemonicToAccount(DEVNET_L1_MNEMONIC, { addressIndex: index });
const deployer = account(0);
const proposer = account(5);
const challenger = account(6);
const intervals = { blockInterval: 4n, intermediateBlockInterval: 2n };
const ANCHOR = 10n;
const chainId = supportedChainIds()[0] as bigint;
const configHash = configHashFor(chainId);
const signer = EnclaveSigner.generate((length) => new Uint8Array(length).fill(9));

const trueRoot = (block: bigint): Hex => keccak256(new TextEncoder().encode(`output ${block}`));
const wrongRoot = (block: bigint): Hex => keccak256(new TextEncoder().encode(`wrong ${block}`));

/** What prover_prove returns for `request`, with `rootAt` as the chain's output roots (the enclave's signature). */
function prove(request: ProofRequest, rootAt: (block: bigint) => Hex): RpcProofResult {
  const end = request.claimed_l2_block_number;
  const outputRoots: Uint8Array[] = [];
  const agreedBlock = blockOfAgreed.get(bytesToHex(request.agreed_l2_head_hash))!;
  for (let b = agreedBlock + 1n; b <= end; b++) outputRoots.push(hexToBytes(rootAt(b)));
  const result = buildProofResult(
    {
      boot: {
        l1Head: request.l1_head,
        l1HeadNumber: request.l1_head_number,
        agreedOutputRoot: request.agreed_l2_output_root,
        claimedOutputRoot: request.claimed_l2_output_root,
        claimedL2BlockNumber: request.claimed_l2_block_number,
        chainId,
        proposer: request.proposer,
        intermediateBlockInterval: request.intermediate_block_interval,
      },
      configHash,
      teeImageHash: new Uint8Array(32),
    },
    { startBlock: agreedBlock, outputRoots },
    signer,
  );
  return result;
}

/** Test-side stand-in for the L2 block hashes: block n's "hash" names it. */
const blockOfAgreed = new Map<Hex, bigint>();
const l2Hash = (block: bigint): Hex => {
  const hash = keccak256(new TextEncoder().encode(`block ${block}`));
  blockOfAgreed.set(hash, block);
  return hash;
};

let l1: DevnetL1;
let verifier: Address;
const wallet = (a: Account) =>
  createWalletClient({ account: a, chain: l1.anvil.chain, transport: http(l1.anvil.rpcUrl) });

async function send(a: Account, functionName: "propose" | "nullify", args: readonly unknown[]) {
  const { request } = await l1.anvil.client.simulateContract({
    address: verifier,
    abi: aggregateVerifierAbi,
    functionName,
    args,
    account: a,
  } as never);
  const hash = await wallet(a).writeContract(request as never);
  const receipt = await l1.anvil.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  expect(receipt.status).toBe("success");
}
const getProposal = async (id: bigint) =>
  (await l1.anvil.client.readContract({
    address: verifier,
    abi: aggregateVerifierAbi,
    functionName: "getProposal",
    args: [id],
  })) as OnchainProposal;

/** A proposal of (start, start + 4] proven for `proposer` at the current L1 head, with `rootAt`'s roots. */
async function proposeRange(start: bigint, rootAt: (block: bigint) => Hex, agreedRoot: Hex): Promise<void> {
  const head = await l1.anvil.client.getBlock();
  await l1.anvil.mine();
  const end = start + intervals.blockInterval;
  const result = prove(
    {
      l1_head: hexToBytes(head.hash),
      l1_head_number: head.number,
      agreed_l2_head_hash: hexToBytes(l2Hash(start)),
      agreed_l2_output_root: hexToBytes(agreedRoot),
      claimed_l2_output_root: hexToBytes(rootAt(end)),
      claimed_l2_block_number: end,
      proposer: hexToBytes(proposer.address),
      intermediate_block_interval: intervals.intermediateBlockInterval,
    },
    rootAt,
  );
  const args = proposeArguments(result, start, intervals);
  expect(args.endingBlock).toBe(end);
  expect(args.intermediateRoots).toEqual(intermediateBlocks(start, intervals).map(rootAt));
  await send(proposer, "propose", [args.endingBlock, args.rootClaim, args.intermediateRoots, args.proof]);
}

beforeAll(async () => {
  l1 = await startDevnetL1({ systemConfig: devnetSystemConfig(), mining: { mode: "auto" } });
  const registry = l1.deployment.teeProverRegistry;
  const deployed = await deployProofVerifiers(
    { publicClient: l1.anvil.client, walletClient: wallet(deployer) },
    {
      teeProverRegistry: registry,
      teeImageHash: zeroHash,
      configHash: bytesToHex(configHash),
      ...intervals,
      anchorBlock: ANCHOR,
      anchorRoot: trueRoot(ANCHOR),
      proposers: [proposer.address, challenger.address],
      pollingIntervalMs: 50,
    },
  );
  verifier = deployed.aggregateVerifier;
  const hash = await wallet(deployer).writeContract({
    address: registry,
    abi: teeProverRegistryAbi,
    functionName: "registerSigner",
    args: [getAddress(bytesToHex(signer.address)), zeroHash],
  });
  await l1.anvil.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}, 120_000);

afterAll(async () => {
  await l1?.anvil.stop();
});

describe("propose and nullify arguments from prover results", () => {
  it("a correct range becomes a Proven proposal with the sampled roots, v normalised to 27/28", async () => {
    await proposeRange(ANCHOR, trueRoot, trueRoot(ANCHOR));
    const stored = await getProposal(1n);
    expect(stored.status).toBe(ProposalStatus.Proven);
    expect(stored.intermediateRoots).toEqual([trueRoot(12n), trueRoot(14n)]);
    expect(firstWrongIntermediateRoot(stored, [trueRoot(12n), trueRoot(14n)])).toBeUndefined();
  });

  it("a wrong proposal is nullified through nullifyRequest/nullifyArguments and its child invalidated", async () => {
    // Proposal 2 on top of 1 is right up to block 16 and wrong at 18; proposal 3 builds on it.
    const wrongAfter16 = (b: bigint) => (b > 16n ? wrongRoot(b) : trueRoot(b));
    await proposeRange(14n, wrongAfter16, trueRoot(14n));
    await proposeRange(18n, wrongAfter16, wrongRoot(18n));
    const wrong = await getProposal(2n);
    const truth = intermediateBlocks(wrong.startingBlock, intervals).map(trueRoot);
    const index = firstWrongIntermediateRoot(wrong, truth)!;
    expect(index).toBe(1);
    expect(nullifyInterval(wrong, index, intervals)).toEqual({
      agreedBlock: 16n,
      agreedRoot: trueRoot(16n),
      claimedBlock: 18n,
    });
    const request = nullifyRequest(wrong, index, intervals, {
      agreedL2HeadHash: l2Hash(16n),
      trueRoot: truth[index]!,
      challenger: challenger.address,
    });
    expect(bytesToHex(request.l1_head)).toBe(wrong.l1Head);
    expect(request.l1_head_number).toBe(wrong.l1HeadNumber);
    const args = nullifyArguments(2n, wrong, index, intervals, prove(request, trueRoot));
    expect(args.root).toBe(trueRoot(18n));
    await send(challenger, "nullify", [args.id, args.proofBytes, args.index, args.root]);
    expect((await getProposal(2n)).status).toBe(ProposalStatus.Nullified);
    expect((await getProposal(3n)).status).toBe(ProposalStatus.ParentNullified);
    expect((await getProposal(1n)).status).toBe(ProposalStatus.Proven);
  });

  it("refuses results that do not fit the contract", () => {
    const request: ProofRequest = {
      l1_head: hexToBytes(keccak256("0x01")),
      l1_head_number: 5n,
      agreed_l2_head_hash: hexToBytes(l2Hash(10n)),
      agreed_l2_output_root: hexToBytes(trueRoot(10n)),
      claimed_l2_output_root: hexToBytes(trueRoot(12n)),
      claimed_l2_block_number: 12n,
      proposer: hexToBytes(proposer.address),
      intermediate_block_interval: 2n,
    };
    const short = prove(request, trueRoot);
    const refusal = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(ProposalEncodingError);
        return (e as ProposalEncodingError).details.reason;
      }
      throw new Error("not refused");
    };
    // Two blocks where the contract wants four.
    expect(refusal(() => proposeArguments(short, 10n, intervals))).toBe("proposal-count");
    expect(refusal(() => intermediateBlocks(0n, { blockInterval: 4n, intermediateBlockInterval: 3n }))).toBe(
      "intervals",
    );
    expect(refusal(() => contractSignature(new Uint8Array(64)))).toBe("signature");
    const badV = new Uint8Array(65);
    badV[64] = 2;
    expect(refusal(() => contractSignature(badV))).toBe("signature");
    const v1 = new Uint8Array(65);
    v1[64] = 1;
    expect(contractSignature(v1).slice(-2)).toBe("1c");
    const stored = {
      startingBlock: 10n,
      startingRoot: trueRoot(10n),
      intermediateRoots: [trueRoot(12n), trueRoot(14n)],
    };
    expect(refusal(() => nullifyInterval(stored, 2, intervals))).toBe("index");
    // The proof of interval 0 proves the proposed root itself: nothing to nullify.
    expect(refusal(() => nullifyArguments(1n, stored, 0, intervals, short))).toBe("root");
    expect(refusal(() => nullifyArguments(1n, stored, 1, intervals, short))).toBe("range");
    expect(
      refusal(() =>
        nullifyArguments(1n, stored, 0, { blockInterval: 4n, intermediateBlockInterval: 1n }, short),
      ),
    ).toBe("intervals");
  });
});
