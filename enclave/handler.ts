/**
 * The enclave's request handlers, written against the generated server stub (generated/protocol/
 * dispatch.ts). Every failure becomes an Error response; nothing is kept between requests.
 */
import {
  BincodeDecodeError,
  dispatchRequest,
  type Request,
  type RequestHandlers,
  type Response,
} from "../generated/protocol/index.js";
import type { ProofResult } from "../generated/rpc/index.js";
import {
  aggregateProposals,
  configHashFor,
  signerAddressOf,
  UnsupportedChainError,
} from "../src/proof/onchain/index.js";
import {
  isProvePayload,
  PREIMAGE_ENTRY_OVERHEAD_BYTES,
  PreimageTable,
} from "../src/proof/preimages/index.js";
import { type ProofProgram, runProof } from "./prove.js";
import type { SecurityModule } from "./security-module.js";
import { EnclaveBusyError, type RequestContext } from "./server.js";

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

/**
 * A proof as the enclave answers it: stamped with its signer's address (`tee_signer`, which Base's message form
 * carries), so the signer and the proof travel together.
 */
async function proveAndStamp(
  deps: RequestHandlerDeps,
  preimages: Parameters<typeof runProof>[1],
  signal: AbortSignal | undefined,
): Promise<ProofResult> {
  const result = await runProof(deps.program, preimages, signal);
  return { Tee: { ...result.Tee, tee_signer: signerAddressOf(deps.identity.publicKey) } };
}

export function enclaveHandlers(deps: RequestHandlerDeps, signal?: AbortSignal): RequestHandlers {
  return {
    async prove(request) {
      return { kind: "Prove", result: await proveAndStamp(deps, request.preimages, signal) };
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
    async teeImageHash() {
      return { kind: "TeeImageHash", image_hash: deps.program.teeImageHash.slice() };
    },
    async aggregate(request) {
      // The chain's config hash and schedule id come from the image, as for a Prove: a request naming another
      // chain id than its proposals were signed for recovers to another journal and is refused.
      const { program } = deps;
      const scheduleId = program.scheduleId?.(request.chain_id, request.schedule_l2_block_number);
      const proposal = aggregateProposals(
        {
          proposer: request.proposer,
          intermediateBlockInterval: request.intermediate_block_interval,
          configHash: (program.configHash ?? configHashFor)(request.chain_id),
          teeImageHash: program.teeImageHash,
          ...(scheduleId === undefined ? {} : { scheduleId }),
          proposals: request.proposals,
        },
        program.signer,
        signerAddressOf(deps.identity.publicKey),
      );
      return { kind: "Aggregate", proposal };
    },
  };
}

/** Answers one decoded request. */
export function handleRequest(
  deps: RequestHandlerDeps,
  request: Request,
  context?: Pick<RequestContext, "signal">,
): Promise<Response> {
  return dispatchRequest(enclaveHandlers(deps, context?.signal), request, (failure) => ({
    kind: "Error",
    message: errorMessage(failure),
  }));
}

/**
 * Answers a Prove payload without the generated decoder's copies (src/proof/preimages PreimageTable: the payload
 * is the arena), charging the preimage count against the server's budget before the table is allocated; any
 * other request resolves undefined (the server decodes it and calls `handleRequest`).
 */
export async function handleProvePayload(
  deps: RequestHandlerDeps,
  payload: Uint8Array,
  context: RequestContext,
): Promise<{ readonly request: "Prove"; readonly response: Response } | undefined> {
  if (!isProvePayload(payload)) return undefined;
  const refuse = (message: string) => ({
    request: "Prove" as const,
    response: { kind: "Error" as const, message },
  });
  let table: PreimageTable;
  try {
    table = PreimageTable.decode(payload, {
      admit: (count) =>
        context.charge(count * PREIMAGE_ENTRY_OVERHEAD_BYTES, `the index of ${count} preimages`),
      // A payload the server assembled on a SharedArrayBuffer (an enclave with block workers): the index too, so
      // the workers read the whole table in place.
      shared: payload.buffer instanceof SharedArrayBuffer,
    });
  } catch (error) {
    if (error instanceof BincodeDecodeError) return refuse(`undecodable request: ${error.message}`);
    if (error instanceof EnclaveBusyError) return refuse(error.message);
    throw error;
  }
  try {
    return {
      request: "Prove",
      response: { kind: "Prove", result: await proveAndStamp(deps, table, context.signal) },
    };
  } catch (error) {
    return refuse(errorMessage(error));
  }
}
