/**
 * A rogue proposer for the challenger's tests: a second enclave signer, registered in TEEProverRegistry by the
 * registry's owner (so the contract accepts what it signs), that signs whatever roots it is given.
 */
import { type Account, type Hex, bytesToHex, getAddress, hexToBytes, zeroHash } from "viem";
import { expect } from "vitest";
import { teeProverRegistryAbi } from "../../contracts/index.js";
import { EnclaveSigner } from "../../enclave/signer.js";
import { aggregateVerifierAbi, buildProofResult, proposeArguments } from "../../src/proof/onchain/index.js";
import { l1Account, type ProverChain } from "../support/prover-chain.js";

export interface RogueProposer {
  /**
   * Proposes (start, start + BLOCK_INTERVAL] on `agreedRoot` with the node's roots except at the blocks `wrong`
   * picks (a made-up root there); returns the proposal's id and root claim.
   */
  propose(
    start: bigint,
    wrong: (block: bigint) => boolean,
    agreedRoot: Hex,
  ): Promise<{ id: bigint; rootClaim: Hex }>;
}

/** Registers a new signer and proposes from L1 account `proposerIndex` (on the registry's proposer list). */
export async function rogueProposer(pc: ProverChain, proposerIndex: number): Promise<RogueProposer> {
  const signer = EnclaveSigner.generate((length) => new Uint8Array(length).fill(0x42));
  const registered = await pc.wallet(l1Account(0)).writeContract({
    address: pc.addresses.teeProverRegistry,
    abi: teeProverRegistryAbi,
    functionName: "registerSigner",
    args: [getAddress(bytesToHex(signer.address)), zeroHash],
  });
  expect((await pc.l1.waitForTransactionReceipt({ hash: registered })).status).toBe("success");
  const rogue: Account = l1Account(proposerIndex);
  const wallet = pc.wallet(rogue);
  const bi = pc.blockInterval;
  const rootAt = async (block: bigint): Promise<Uint8Array> => (await pc.outputAt(block)).outputRoot;
  return {
    async propose(start, wrong, agreedRoot) {
      const head = await pc.l1.getBlock();
      const outputRoots: Uint8Array[] = [];
      for (let b = start + 1n; b <= start + bi; b++)
        outputRoots.push(wrong(b) ? hexToBytes(`0x${b.toString(16).padStart(64, "e")}`) : await rootAt(b));
      const result = buildProofResult(
        {
          boot: {
            l1Head: hexToBytes(head.hash),
            l1HeadNumber: head.number,
            agreedOutputRoot: hexToBytes(agreedRoot),
            claimedOutputRoot: outputRoots.at(-1)!,
            claimedL2BlockNumber: start + bi,
            chainId: pc.chain.rollup.l2ChainId,
            proposer: hexToBytes(rogue.address),
            intermediateBlockInterval: pc.intermediateBlockInterval,
          },
          configHash: hexToBytes(pc.configHash),
          teeImageHash: new Uint8Array(32),
        },
        { startBlock: start, outputRoots },
        signer,
      );
      const args = proposeArguments(result, start, pc);
      const hash = await wallet.writeContract({
        address: pc.addresses.aggregateVerifier,
        abi: aggregateVerifierAbi,
        functionName: "propose",
        args: [args.endingBlock, args.rootClaim, [...args.intermediateRoots], args.proof],
      });
      expect((await pc.l1.waitForTransactionReceipt({ hash })).status).toBe("success");
      const id = (await pc.l1.readContract({
        address: pc.addresses.aggregateVerifier,
        abi: aggregateVerifierAbi,
        functionName: "proposalAt",
        args: [start, start + bi],
      } as never)) as bigint;
      expect(id).toBeGreaterThan(0n);
      return { id, rootClaim: args.rootClaim };
    },
  };
}
