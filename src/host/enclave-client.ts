/**
 * Typed operations on one configured enclave: each opens its own connection (one request per
 * connection), checks that the response is the one asked for, and records the exchange in the metrics.
 */
import type { Preimage, Request, RequestAggregate, Response } from "../../generated/protocol/index.js";
import type { ProofResult, Proposal } from "../../generated/rpc/index.js";
import { PUBLIC_KEY_LENGTH } from "../proof/onchain/index.js";
import {
  type EnclaveAddress,
  type FrameLengthPrefix,
  type MessageForm,
  formatEnclaveAddress,
} from "../proof/transport/index.js";
import { HostError } from "./errors.js";
import type { EnclaveCallOutcome, HostMetrics } from "./metrics.js";
import { callEnclave, EncodedEnclaveRequest, encodeEnclaveRequest } from "./transport/enclave-call.js";
import { EnclaveCallAbortedError } from "./transport/errors.js";

/** The enclave answered with an `Error` response; `enclaveMessage` is its text. */
export class EnclaveRefusedError extends HostError<"enclave-refused"> {
  override readonly name = "EnclaveRefusedError";
  constructor(
    readonly enclave: string,
    readonly enclaveMessage: string,
  ) {
    super(`enclave ${enclave}: ${enclaveMessage}`, {
      kind: "enclave-refused",
      details: { enclave, enclaveMessage },
    });
  }
}

/** The enclave answered something other than what was asked (wrong variant, malformed key). */
export class UnexpectedEnclaveResponseError extends HostError<"unexpected-enclave-response"> {
  override readonly name = "UnexpectedEnclaveResponseError";
  constructor(
    readonly enclave: string,
    reason: string,
  ) {
    super(`enclave ${enclave}: ${reason}`, {
      kind: "unexpected-enclave-response",
      details: { enclave, reason },
    });
  }
}

export interface EnclaveClientOptions {
  readonly metrics?: HostMetrics;
  /** Per-exchange read timeout (default: the protocol's 5 minutes). */
  readonly readTimeoutMs?: number;
  /** The frames' length-prefix width (default: the spec's 4 bytes). */
  readonly frameLengthPrefix?: FrameLengthPrefix;
  /** The messages' form (default: the spec's). */
  readonly messageForm?: MessageForm;
}

export class EnclaveClient {
  readonly name: string;

  constructor(
    readonly address: EnclaveAddress,
    private readonly options: EnclaveClientOptions = {},
  ) {
    this.name = formatEnclaveAddress(address);
  }

  /** The enclave's 65-byte uncompressed signer public key. */
  async signerPublicKey(signal?: AbortSignal): Promise<Uint8Array> {
    const response = await this.exchange({ kind: "SignerPublicKey" }, signal);
    if (response.kind !== "SignerPublicKey") throw this.unexpected("SignerPublicKey", response);
    const key = response.public_key;
    if (key.length !== PUBLIC_KEY_LENGTH || key[0] !== 0x04) {
      throw new UnexpectedEnclaveResponseError(
        this.name,
        `signer public key must be ${PUBLIC_KEY_LENGTH} bytes starting with 0x04, got ${key.length} bytes`,
      );
    }
    return key;
  }

  /** A raw COSE_Sign1 attestation document binding `userData` and `nonce`. */
  async signerAttestation(
    userData: Uint8Array | null,
    nonce: Uint8Array | null,
    signal?: AbortSignal,
  ): Promise<Uint8Array> {
    const response = await this.exchange({ kind: "SignerAttestation", user_data: userData, nonce }, signal);
    if (response.kind !== "SignerAttestation") throw this.unexpected("SignerAttestation", response);
    return response.document;
  }

  /** The enclave's image hash, keccak256(PCR0): the hash it signs into every journal. */
  async teeImageHash(signal?: AbortSignal): Promise<Uint8Array> {
    const response = await this.exchange({ kind: "TeeImageHash" }, signal);
    if (response.kind !== "TeeImageHash") throw this.unexpected("TeeImageHash", response);
    return response.image_hash;
  }

  /**
   * Runs the proof program on `preimages`. The enclave computes before it answers, so only the frame
   * itself is bounded by the read timeout; the wait for it is bounded by `signal` (the proof timeout).
   * The frame is encoded before this returns its promise and nothing here keeps `preimages` after that, so a
   * caller that drops them too frees them while the enclave works (the frame goes once written).
   */
  prove(preimages: readonly Preimage[], signal?: AbortSignal): Promise<ProofResult> {
    let encoded: EncodedEnclaveRequest;
    try {
      encoded = encodeEnclaveRequest({ kind: "Prove", preimages }, this.options);
    } catch (error) {
      // As when the transport failed to encode it (the request never left).
      this.options.metrics?.recordEnclaveCall(this.name, "Prove", "transport_error");
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return this.proveEncoded(encoded, signal);
  }

  private async proveEncoded(encoded: EncodedEnclaveRequest, signal?: AbortSignal): Promise<ProofResult> {
    const response = await this.exchange(encoded, signal, Number.POSITIVE_INFINITY);
    if (response.kind !== "Prove") throw this.unexpected("Prove", response);
    return response.result;
  }

  /**
   * The aggregate proposal over per-block proposals this enclave signed in several Prove frames (our Aggregate
   * request: the enclave checks every signature and the chain of roots before it signs).
   */
  async aggregate(request: Omit<RequestAggregate, "kind">, signal?: AbortSignal): Promise<Proposal> {
    const response = await this.exchange({ kind: "Aggregate", ...request }, signal);
    if (response.kind !== "Aggregate") throw this.unexpected("Aggregate", response);
    return response.proposal;
  }

  private unexpected(asked: string, response: Response): UnexpectedEnclaveResponseError {
    return new UnexpectedEnclaveResponseError(
      this.name,
      `asked for ${asked}, got a ${response.kind} response`,
    );
  }

  private async exchange(
    request: Request | EncodedEnclaveRequest,
    signal: AbortSignal | undefined,
    responseStartTimeoutMs?: number,
  ): Promise<Response> {
    let outcome: EnclaveCallOutcome = "transport_error";
    try {
      const response = await callEnclave(this.address, request, {
        ...(signal === undefined ? {} : { signal }),
        ...(this.options.readTimeoutMs === undefined ? {} : { readTimeoutMs: this.options.readTimeoutMs }),
        ...(responseStartTimeoutMs === undefined ? {} : { responseStartTimeoutMs }),
        ...(this.options.frameLengthPrefix === undefined
          ? {}
          : { frameLengthPrefix: this.options.frameLengthPrefix }),
        ...(this.options.messageForm === undefined ? {} : { messageForm: this.options.messageForm }),
      });
      if (response.kind === "Error") {
        outcome = "enclave_error";
        throw new EnclaveRefusedError(this.name, response.message);
      }
      outcome = "ok";
      return response;
    } catch (error) {
      if (error instanceof EnclaveCallAbortedError) outcome = "aborted";
      throw error;
    } finally {
      this.options.metrics?.recordEnclaveCall(this.name, request.kind, outcome);
    }
  }
}
