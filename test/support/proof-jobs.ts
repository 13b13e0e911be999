/**
 * Proof jobs on a prover chain (test/support/prover-chain.ts) for the worker and scheduler tests: the prover_prove
 * request of a range built from the node's outputs, and host processes in worker mode (`--worker`) against a
 * queue, each collecting the witness from the chain and routing through its TEEProverRegistry.
 */
import { hexToBytes } from "viem";
import type { ProofRequest } from "../../generated/rpc/index.js";
import type { ProofRange } from "../../src/proof-jobs/index.js";
import { type LogLine, type LogProcess, spawnLogProcess } from "./log-process.js";
import { l1Account, type ProverChain, witnessHostArgs } from "./prover-chain.js";

/** The range (start, start + length]. */
export const span = (start: bigint, length: bigint): ProofRange => ({
  startBlock: start,
  endBlock: start + length,
});

/** The request proving `range` against the node's current L1 head, for proposer account `proposerIndex`. */
export async function rangeRequest(
  pc: ProverChain,
  range: ProofRange,
  proposerIndex = 5,
): Promise<ProofRequest> {
  const status = await pc.node.optimism_syncStatus();
  const [agreed, claimed] = await Promise.all([pc.outputAt(range.startBlock), pc.outputAt(range.endBlock)]);
  return {
    l1_head: status.current_l1.hash,
    l1_head_number: status.current_l1.number,
    agreed_l2_head_hash: agreed.blockRef.hash,
    agreed_l2_output_root: agreed.outputRoot,
    claimed_l2_output_root: claimed.outputRoot,
    claimed_l2_block_number: range.endBlock,
    proposer: hexToBytes(l1Account(proposerIndex).address),
    intermediate_block_interval: pc.intermediateBlockInterval,
  };
}

export interface WorkerHostOptions {
  /** PostgreSQL queue URL, passed in DATABASE_URL (the flag's environment twin). */
  readonly databaseUrl: string;
  readonly leaseSeconds: number;
  readonly backoffSeconds?: number;
}

/** A host process with `--worker` in front of the chain's enclave; resolves once its worker has started. */
export async function startWorkerHost(pc: ProverChain, options: WorkerHostOptions): Promise<LogProcess> {
  const enclave = pc.enclave.address;
  if (enclave.kind !== "unix") throw new Error("expected a Unix socket enclave");
  const host = spawnLogProcess(
    "host worker",
    "src/host/main.ts",
    [
      ...witnessHostArgs(pc.chain, enclave.path, "127.0.0.1:0"),
      ...["--tee-prover-registry-address", pc.addresses.teeProverRegistry],
      ...["--worker", "--job-lease", String(options.leaseSeconds)],
      ...["--job-retry-backoff", String(options.backoffSeconds ?? 0.5)],
    ],
    { DATABASE_URL: options.databaseUrl, OP_ENCLAVE_FORBID_VSOCK: "1" },
  );
  await host.ready((line) => line.msg === "proof worker started", 120_000);
  return host;
}

/** The worker's owner name as it appears in its log lines and in the queue's leases. */
export const ownerOf = (host: LogProcess): string =>
  String(host.lines.find((line) => line.msg === "proof worker started")?.owner);

export const claimedLine = (jobId: number) => (line: LogLine) =>
  line.msg === "proof job claimed" && line.jobId === jobId;
export const completedLine = (line: LogLine) => line.msg === "proof job completed";
