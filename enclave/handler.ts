/**
 * The enclave's request handlers, written against the generated server stub (generated/protocol/
 * dispatch.ts). Every failure becomes an Error response; nothing is kept between requests.
 */
import {
  dispatchRequest,
  type Request,
  type RequestHandlers,
  type Response,
} from "../generated/protocol/index.js";
import { UnsupportedChainError } from "../src/proof/onchain/index.js";
import { type ProofProgram, runProof } from "./prove.js";
import type { SecurityModule } from "./security-module.js";

export interface EnclaveIdentity {
  readonly publicKey: Uint8Array;
}

export interface RequestHandlerDeps {
  readonly identity: EnclaveIdentity;
  readonly securityModule: SecurityModule;
  readonly program: ProofProgram;
}

/**
 * The Error message for a failure: `Name: message`, except UnsupportedChainError, whose message is the
 * spec's `UnsupportedChain: ...` refusal as it stands.
 */
export function errorMessage(failure: unknown): string {
  if (!(failure instanceof Error)) return String(failure);
  return failure instanceof UnsupportedChainError ? failure.message : `${failure.name}: ${failure.message}`;
}

export function enclaveHandlers(deps: RequestHandlerDeps): RequestHandlers {
  return {
    async prove(request) {
      return { kind: "Prove", result: await runProof(deps.program, request.preimages) };
    },
    async signerPublicKey() {
      return { kind: "SignerPublicKey", public_key: deps.identity.publicKey };
    },
    async signerAttestation(request) {
      const document = await deps.securityModule.attest({
        publicKey: deps.identity.publicKey,
        userData: request.user_data,
        nonce: request.nonce,
      });
      return { kind: "SignerAttestation", document };
    },
  };
}

/** Answers one decoded request. */
export function handleRequest(deps: RequestHandlerDeps, request: Request): Promise<Response> {
  return dispatchRequest(enclaveHandlers(deps), request, (failure) => ({
    kind: "Error",
    message: errorMessage(failure),
  }));
}
