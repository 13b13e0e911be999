/** A well-formed prover_prove request in its JSON form (hex at the edge, numbers as JSON numbers). */
export const PROOF_BLOCK = 1234;

export function proofRequest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const hash = (byte: string): string => `0x${byte.repeat(32)}`;
  return {
    l1_head: hash("11"),
    l1_head_number: 100,
    agreed_l2_head_hash: hash("22"),
    agreed_l2_output_root: hash("33"),
    claimed_l2_output_root: hash("44"),
    claimed_l2_block_number: PROOF_BLOCK,
    proposer: `0x${"55".repeat(20)}`,
    intermediate_block_interval: 2,
    ...overrides,
  };
}
