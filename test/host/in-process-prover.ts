/**
 * A prover for tests in one process: a real enclave server (the program, the local security module) on a Unix socket
 * in a temporary directory, and a ProofService routing to it over that socket with the given witness source.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProofRequest } from "../../generated/rpc/index.js";
import type { RollupConfig } from "../../src/chain/index.js";
import {
  EnclaveClient,
  EnclaveRouter,
  HealthLatch,
  ProofService,
  type WitnessSource,
} from "../../src/host/index.js";
import { createLogger } from "../../src/log/index.js";
import type { BootInfo } from "../../src/proof/preimages/index.js";
import { programExecutor } from "../../src/proof/program/index.js";
import type { countingSigner } from "../../src/proof/program/parallel/chain-witness.test-support.js";
import { EnclaveServer } from "../../enclave/server.js";
import { handleRequest } from "../../enclave/handler.js";
import { LocalSecurityModule } from "../../enclave/local-security-module.js";

/** The prover_prove request whose boot info is `boot`, over the agreed head `agreedHash`. */
export function proofRequestOf(boot: BootInfo, agreedHash: Uint8Array): ProofRequest {
  return {
    l1_head: boot.l1Head,
    l1_head_number: boot.l1HeadNumber,
    agreed_l2_head_hash: agreedHash,
    agreed_l2_output_root: boot.agreedOutputRoot,
    claimed_l2_output_root: boot.claimedOutputRoot,
    claimed_l2_block_number: boot.claimedL2BlockNumber,
    proposer: boot.proposer,
    intermediate_block_interval: boot.intermediateBlockInterval,
  };
}

export interface InProcessProver {
  readonly service: ProofService;
  close(): Promise<void>;
}

export async function startInProcessProver(options: {
  readonly signer: ReturnType<typeof countingSigner>;
  readonly rollupConfig: RollupConfig;
  readonly witness: WitnessSource;
}): Promise<InProcessProver> {
  const dir = mkdtempSync(join(tmpdir(), "proof-enclave-"));
  const socket = join(dir, "enclave.sock");
  const { signer, rollupConfig } = options;
  const securityModule = await LocalSecurityModule.open();
  const server = new EnclaveServer({
    listen: { kind: "unix", path: socket },
    handle: (request) =>
      handleRequest(
        {
          identity: { publicKey: signer.publicKey },
          securityModule,
          program: {
            signer,
            teeImageHash: new Uint8Array(32),
            executor: programExecutor(() => ({ rollupConfig })),
          },
        },
        request,
      ),
  });
  try {
    await server.start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const logger = createLogger({ name: "proof-test", level: "warn" });
  const service = new ProofService({
    router: new EnclaveRouter(
      [new EnclaveClient({ kind: "unix", path: socket })],
      undefined,
      new HealthLatch(false),
      logger,
    ),
    l2ChainId: rollupConfig.l2ChainId,
    proofTimeoutMs: 600_000,
    logger,
    witness: options.witness,
  });
  return {
    service,
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
