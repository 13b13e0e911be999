/** Answers one decoded request. Every failure becomes an Error response; nothing is kept between requests. */
import type { Request, Response } from "../generated/protocol/index.js";
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

function errorMessage(error: unknown): string {
  if (error instanceof Error)
    return error.message.startsWith("UnsupportedChain") ? error.message : `${error.name}: ${error.message}`;
  return String(error);
}

export async function handleRequest(deps: RequestHandlerDeps, request: Request): Promise<Response> {
  try {
    switch (request.kind) {
      case "SignerPublicKey":
        return { kind: "SignerPublicKey", publicKey: deps.identity.publicKey };
      case "SignerAttestation":
        return {
          kind: "SignerAttestation",
          document: await deps.securityModule.attest({
            publicKey: deps.identity.publicKey,
            userData: request.userData,
            nonce: request.nonce,
          }),
        };
      case "Prove":
        return { kind: "Prove", result: await runProof(deps.program, request.preimages) };
    }
  } catch (error) {
    return { kind: "Error", message: errorMessage(error) };
  }
}
