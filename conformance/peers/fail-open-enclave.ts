/**
 * A subtler non-conforming enclave for the suite's negative tests: this repository's enclave parts (server,
 * handlers, local security module, signer, the proof program over the verified preimages with a development
 * rollup config), run in-process on a Unix socket, with careless behaviours switched on one by one:
 *
 * - `failOpen`: when the program refuses (a withheld preimage, a blob that does not match its commitment, a
 *   claim the execution does not reproduce) it signs the claimed root anyway, as a one-block range. Content
 *   verification, the chain table and the boot keys are still checked (they run before the program);
 * - `acceptsPrecompileKeys`: drops precompile-result preimages instead of refusing the request.
 *
 * With no behaviour switched on it is our enclave, and every enclave check passes. Test-only.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  developmentChain,
  EnclaveServer,
  EnclaveSigner,
  enclaveChains,
  handleRequest,
  LocalSecurityModule,
  type RangeExecutor,
} from "../../enclave/index.js";
import type { Request } from "../../generated/protocol/index.js";
import { PreimageKeyType, type RollupConfig } from "../../src/chain/index.js";
import { teeImageHashOf } from "../../src/attestation/index.js";
import { UnsupportedChainError } from "../../src/proof/onchain/index.js";
import { type ListenAddress } from "../../src/proof/transport/index.js";

export interface FailOpenBehaviours {
  readonly failOpen?: boolean;
  readonly acceptsPrecompileKeys?: boolean;
}

export interface FailOpenEnclave {
  readonly address: ListenAddress;
  close(): Promise<void>;
}

export async function startFailOpenEnclave(
  rollupConfig: RollupConfig,
  behaviours: FailOpenBehaviours = {},
): Promise<FailOpenEnclave> {
  const dir = await mkdtemp(join(tmpdir(), "fail-open-enclave-"));
  const securityModule = await LocalSecurityModule.open();
  const signer = EnclaveSigner.generate((n) => securityModule.randomBytes(n));
  const chains = enclaveChains(developmentChain(rollupConfig));
  const executor: RangeExecutor = {
    async execute(boot, preimages) {
      try {
        return await chains.executor.execute(boot, preimages);
      } catch (error) {
        if (behaviours.failOpen !== true || error instanceof UnsupportedChainError) throw error;
        return { startBlock: boot.claimedL2BlockNumber - 1n, outputRoots: [boot.claimedOutputRoot] };
      }
    },
  };
  const deps = {
    identity: { publicKey: signer.publicKey },
    securityModule,
    program: {
      signer,
      teeImageHash: teeImageHashOf(securityModule.pcr0()),
      executor,
      configHash: chains.configHash,
      checkHorizon: chains.checkHorizon,
    },
  };
  const lenient = (request: Request): Request =>
    request.kind === "Prove" && behaviours.acceptsPrecompileKeys === true
      ? { ...request, preimages: request.preimages.filter(([key]) => key[0] !== PreimageKeyType.Precompile) }
      : request;
  const server = new EnclaveServer({
    listen: { kind: "unix", path: join(dir, "enclave.sock") },
    handle: (request) => handleRequest(deps, lenient(request)),
  });
  await server.start();
  return {
    address: server.address,
    async close() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
