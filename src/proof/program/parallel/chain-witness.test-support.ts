/**
 * Test support for parallel execution: a witness completed with its chain witness (what the host records for an
 * enclave that executes in parallel), and a witness whose chain of headers is forged from one block on.
 */
import { randomBytes } from "node:crypto";
import { EnclaveSigner } from "../../../../enclave/signer.js";
import {
  type BlockHeader,
  encodeHeader,
  keccak256,
  keccak256Key,
  type RollupConfig,
} from "../../../chain/index.js";
import type { Preimage } from "../../../../generated/protocol/index.js";
import {
  type BootInfo,
  BootKey,
  bootPreimageKey,
  isBootPreimageKey,
  keccak256PreimageKey,
  loadVerifiedPreimages,
  PreimageTable,
  readBootInfo,
} from "../../preimages/index.js";
import { OfflineOracle } from "../oracle.js";
import { mergeWitness } from "../driver.js";
import { runProgram } from "../program.js";
import type { ProgramResult } from "../types.js";
import { witnessHeaderChain } from "./range.js";

/** The witness run sequentially, offline, recording its chain witness; the witness completed with it. */
export async function withChainWitness(
  preimages: readonly Preimage[],
  rollupConfig: RollupConfig,
): Promise<{ sequential: ProgramResult; witness: Preimage[] }> {
  const store = loadVerifiedPreimages(preimages);
  const sequential = await runProgram({
    boot: readBootInfo(store),
    oracle: new OfflineOracle(store),
    rollupConfig,
    recordChainWitness: true,
  });
  return { sequential, witness: mergeWitness(preimages, sequential.chainWitness ?? []) };
}

/**
 * A witness whose header of range block `at` (0: the first after the agreed head) is forged (another state
 * root), the later headers re-chained onto it, and a claimed output root over the forged chain's last block.
 */
export function forgeHeaderChain(
  witness: readonly Preimage[],
  agreed: { readonly number: bigint; readonly hash: Uint8Array },
  at: number,
): { witness: Preimage[]; boot: BootInfo } {
  const table = PreimageTable.fromPreimages(witness);
  const boot = readBootInfo(table);
  const chain = witnessHeaderChain(table, boot, agreed);
  if (typeof chain === "string") throw new Error(chain);
  const forged: BlockHeader[] = [];
  let parentHash = at === 0 ? agreed.hash : chain.hashes[at - 1]!;
  for (let i = at; i < chain.headers.length; i++) {
    const header: BlockHeader =
      i === at
        ? { ...chain.headers[i]!, parentHash, stateRoot: keccak256(new TextEncoder().encode("forged state")) }
        : { ...chain.headers[i]!, parentHash };
    forged.push(header);
    parentHash = keccak256(encodeHeader(header));
  }
  const claimedPreimage = table.get(keccak256Key(boot.claimedOutputRoot)).slice();
  const last = forged.at(-1)!;
  claimedPreimage.set(last.stateRoot, 32);
  claimedPreimage.set(parentHash, 96);
  const claimedOutputRoot = keccak256(claimedPreimage);
  const added: Preimage[] = [
    ...forged.map((h): Preimage => {
      const rlp = encodeHeader(h);
      return [keccak256PreimageKey(rlp), rlp];
    }),
    [keccak256PreimageKey(claimedPreimage), claimedPreimage],
  ];
  const rest = witness.filter(([key]) => !isBootPreimageKey(key, BootKey.ClaimedOutputRoot));
  return {
    witness: [...rest, [bootPreimageKey(BootKey.ClaimedOutputRoot), claimedOutputRoot], ...added],
    boot: { ...boot, claimedOutputRoot },
  };
}

/** A fresh enclave signer that counts its signatures (a refused proof signs nothing). */
export function countingSigner() {
  const inner = EnclaveSigner.generate((n) => randomBytes(n));
  let calls = 0;
  return {
    address: inner.address,
    publicKey: inner.publicKey,
    get calls() {
      return calls;
    },
    signJournal(journal: Uint8Array): Uint8Array {
      calls++;
      return inner.signJournal(journal);
    },
  };
}
