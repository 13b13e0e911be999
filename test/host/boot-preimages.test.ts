/** The host's boot preimages read back through the enclave's own boot-information reader. */
import { describe, expect, it } from "vitest";
import { readBootInfo } from "../../src/proof/preimages/index.js";
import { PreimageKeyType } from "../../src/chain/index.js";
import type { ProofRequest } from "../../generated/rpc/index.js";
import { bootPreimages } from "../../src/host/index.js";

const filled = (length: number, byte: number): Uint8Array => new Uint8Array(length).fill(byte);

describe("bootPreimages", () => {
  it("carries every boot value the enclave reads, under local keys", () => {
    const request: ProofRequest = {
      l1_head: filled(32, 1),
      l1_head_number: 19_000_001n,
      agreed_l2_head_hash: filled(32, 2),
      agreed_l2_output_root: filled(32, 3),
      claimed_l2_output_root: filled(32, 4),
      claimed_l2_block_number: 2n ** 40n + 5n,
      proposer: filled(20, 6),
      intermediate_block_interval: 7n,
    };
    const preimages = bootPreimages(request, 84532n);
    expect(preimages.map(([key]) => key[0])).toEqual(Array(8).fill(PreimageKeyType.Local));
    const byKey = new Map(preimages.map(([key, value]) => [Buffer.from(key).toString("hex"), value]));
    const boot = readBootInfo({ tryGet: (key) => byKey.get(Buffer.from(key).toString("hex")) });
    expect(boot).toEqual({
      l1Head: request.l1_head,
      l1HeadNumber: 19_000_001n,
      agreedOutputRoot: request.agreed_l2_output_root,
      claimedOutputRoot: request.claimed_l2_output_root,
      claimedL2BlockNumber: 2n ** 40n + 5n,
      chainId: 84532n,
      proposer: request.proposer,
      intermediateBlockInterval: 7n,
    });
  });
});
