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
  agreedHeadNumberLookup,
  EnclaveClient,
  EnclaveRouter,
  HealthLatch,
  l2OutputAt,
  ProofService,
  type WitnessSource,
} from "../../src/host/index.js";
import { JsonRpcClient } from "../../src/chain-rpc/index.js";
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

/** The proof service's options that prove a long range in frames, over the L2 node at `l2RpcUrl`. */
function framesOver(frames: { readonly maxBlocksPerFrame: bigint; readonly l2RpcUrl: string }) {
  const l2 = new JsonRpcClient(frames.l2RpcUrl);
  return {
    maxBlocksPerFrame: frames.maxBlocksPerFrame,
    agreedHeadNumber: agreedHeadNumberLookup(frames.l2RpcUrl),
    l2OutputAt: (block: bigint, signal: AbortSignal) => l2OutputAt(l2, block, signal),
  };
}

export interface InProcessProver {
  readonly service: ProofService;
  /** The host's client of the enclave the service routes to. */
  readonly enclave: EnclaveClient;
  close(): Promise<void>;
}

export async function startInProcessProver(options: {
  readonly signer: ReturnType<typeof countingSigner>;
  readonly rollupConfig: RollupConfig;
  readonly witness: WitnessSource;
  /** Long ranges in frames of this many blocks (with `l2RpcUrl`, whose node names their boundaries). */
  readonly frames?: { readonly maxBlocksPerFrame: bigint; readonly l2RpcUrl: string };
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
  const enclave = new EnclaveClient({ kind: "unix", path: socket });
  const service = new ProofService({
    router: new EnclaveRouter([enclave], undefined, new HealthLatch(false), logger),
    l2ChainId: rollupConfig.l2ChainId,
    proofTimeoutMs: 600_000,
    logger,
    witness: options.witness,
    ...(options.frames === undefined ? {} : framesOver(options.frames)),
  });
  return {
    service,
    enclave,
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
