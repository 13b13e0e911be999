/**
 * The prover host's JSON-RPC handlers (the generated ProverHandlers): the server's edge, where the host's
 * errors become JSON-RPC errors. enclave_* calls fan out to every configured enclave and are
 * all-or-nothing: any transport failure or enclave error fails the whole call with -32001, naming the
 * first failing enclave in configured order. prover_prove: an invalid request (a range past
 * --max-blocks-per-proof, an L1 head past --max-l1-distance) is -32602, NoValidSigner
 * -32001, and every other failure (enclave refusal, transport failure, timeout naming the L2 block,
 * cancellation) -32000 with the underlying message.
 */
import {
  EnclaveFailedError,
  NoValidSignerError as NoValidSignerRpcError,
  ProofFailedError,
  type ProverHandlers,
  UnhealthyError,
} from "../../generated/rpc/index.js";
import type { Logger } from "../log/index.js";
import { InvalidParamsError, type RpcError } from "../rpc/index.js";
import type { EnclaveClient } from "./enclave-client.js";
import type { HealthLatch } from "./health.js";
import { proofFailure, proofFailureMessage } from "./proof-failures.js";
import type { ProofService } from "./proof-service.js";
import type { EnclaveRouter } from "./router.js";

/** docs/protocol.md "Limits": user_data and nonce, 512 bytes each, enforced at the host. */
export const MAX_ATTESTATION_INPUT_BYTES = 512;

export interface ProverHandlerDeps {
  readonly enclaves: readonly EnclaveClient[];
  readonly router: EnclaveRouter;
  readonly health: HealthLatch;
  readonly proofs: ProofService;
  readonly version: string;
  readonly logger: Logger;
}

/** Runs `call` on every enclave in parallel; all results in configured order, or EnclaveFailedError. */
async function fanOut<T>(
  method: string,
  enclaves: readonly EnclaveClient[],
  logger: Logger,
  call: (enclave: EnclaveClient) => Promise<T>,
): Promise<T[]> {
  const settled = await Promise.allSettled(enclaves.map(call));
  const results: T[] = [];
  const failures: string[] = [];
  for (const outcome of settled) {
    if (outcome.status === "fulfilled") results.push(outcome.value);
    else failures.push(outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason));
  }
  if (failures.length > 0) {
    logger.warn({ method, failures }, "enclave fan-out failed");
    throw new EnclaveFailedError(
      `${method} failed: ${failures.length} of ${enclaves.length} enclaves failed: ${failures.join("; ")}`,
    );
  }
  return results;
}

function checkAttestationInput(name: string, value: Uint8Array | undefined): Uint8Array | null {
  if (value === undefined) return null;
  if (value.length > MAX_ATTESTATION_INPUT_BYTES)
    throw new InvalidParamsError(
      `invalid ${name}: at most ${MAX_ATTESTATION_INPUT_BYTES} bytes, got ${value.length}`,
    );
  return value;
}

/** The JSON-RPC error for a failed prover_prove: its code from the failure table (proof-failures.ts). */
export function proofRpcError(error: unknown): RpcError {
  const failure = proofFailure(error);
  const message = proofFailureMessage(error, failure);
  switch (failure.code) {
    case "invalid-params":
      return new InvalidParamsError(message, { cause: error });
    case "no-valid-signer":
      return new NoValidSignerRpcError(message, { cause: error });
    case "proof-failed":
      return new ProofFailedError(message, { cause: error });
  }
}

export function createProverHandlers(deps: ProverHandlerDeps): ProverHandlers {
  return {
    prover_prove: async ({ request }, ctx) => {
      try {
        return await deps.proofs.prove(request, ctx.signal);
      } catch (error) {
        throw proofRpcError(error);
      }
    },

    enclave_signerPublicKey: (_params, ctx) =>
      fanOut("enclave_signerPublicKey", deps.enclaves, deps.logger, (enclave) =>
        enclave.signerPublicKey(ctx.signal),
      ),

    enclave_signerAttestation: ({ user_data, nonce }, ctx) => {
      // The generated codec already refuses more than 512 bytes (-32602); checked again here so the
      // limit holds even if the generated cap changes, before any enclave is contacted.
      const userData = checkAttestationInput("user_data", user_data);
      const checkedNonce = checkAttestationInput("nonce", nonce);
      return fanOut("enclave_signerAttestation", deps.enclaves, deps.logger, (enclave) =>
        enclave.signerAttestation(userData, checkedNonce, ctx.signal),
      );
    },

    enclave_teeImageHash: (_params, ctx) =>
      fanOut("enclave_teeImageHash", deps.enclaves, deps.logger, (enclave) =>
        enclave.teeImageHash(ctx.signal),
      ),

    healthz: async () => {
      if (deps.health.healthy || (await deps.router.confirmHealth())) return { version: deps.version };
      throw new UnhealthyError(
        "unhealthy: no configured enclave's signer has been confirmed valid in the TEEProverRegistry yet",
      );
    },
  };
}
