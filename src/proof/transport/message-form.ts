/**
 * Message forms of the host-enclave protocol (spec/protocol "forms"): the spec's messages (the default) and Base's
 * as deployed today, chosen independently of the frame's length prefix.
 *
 * The two forms number the variants differently where Base inserted TeeImageHash (request and response 2, moving
 * SignerAttestation to 3 and Error to 4) and Base's Tee result ends with `tee_signer`. Prove, SignerPublicKey and
 * Aggregate (our extension, request 4 and response 5 in both) requests are the same bytes in both forms, so an enclave can tell a request's form only from a SignerAttestation
 * or a TeeImageHash request: a one-byte payload 2 is Base's TeeImageHash, 3 the spec's; a longer payload opening
 * with 2 is the spec's SignerAttestation, with 3 Base's (it carries two Option tags, so at least three bytes).
 * For requests both forms share, the enclave answers in the form paired with the frame (`pairedMessageForm`: Base's
 * prover, the one peer that sends 8-byte frames today, speaks Base's messages), and a host reads that answer in
 * either form (`decodeAnswer`): the two forms' answers to those requests never decode to the same message.
 */
import {
  BincodeDecodeError,
  DEFAULT_PROTOCOL_FORM,
  decodeResponsePayload,
  PROTOCOL_FORMS,
  type ProtocolForm,
  type Request,
  type Response,
} from "../../../generated/protocol/index.js";
import type { FrameLengthPrefix } from "./frame.js";

export type { ProtocolForm as MessageForm } from "../../../generated/protocol/index.js";

/** The spec's messages (docs/protocol.md "Host-to-enclave vsock protocol"). */
export const DEFAULT_MESSAGE_FORM: ProtocolForm = DEFAULT_PROTOCOL_FORM;

export const MESSAGE_FORMS: readonly ProtocolForm[] = PROTOCOL_FORMS;

/** Parses a `--message-form` value ("spec" or "base"); undefined for anything else. */
export function parseMessageForm(text: string): ProtocolForm | undefined {
  const trimmed = text.trim();
  return MESSAGE_FORMS.find((form) => form === trimmed);
}

/**
 * The form an enclave answers a request in when the request's bytes do not tell (Prove, SignerPublicKey, a frame
 * refused before its payload was read): Base's for 8-byte frames, the spec's for 4-byte ones.
 */
export function pairedMessageForm(prefix: FrameLengthPrefix): ProtocolForm {
  return prefix === 8 ? "base" : DEFAULT_MESSAGE_FORM;
}

/**
 * The form a request payload is in, when its bytes tell (a SignerAttestation or TeeImageHash request); undefined
 * when both forms encode it the same way (or it is no request of either form, which decoding then refuses).
 */
export function requestMessageForm(payload: Uint8Array): ProtocolForm | undefined {
  const variant = payload[0];
  if (variant === 2) return payload.length === 1 ? "base" : "spec";
  if (variant === 3) return payload.length === 1 ? "spec" : "base";
  return undefined;
}

/** The form an enclave answers a request payload in: the request's own where its bytes tell, else the paired one. */
export function answerMessageForm(payload: Uint8Array | undefined, prefix: FrameLengthPrefix): ProtocolForm {
  return (payload === undefined ? undefined : requestMessageForm(payload)) ?? pairedMessageForm(prefix);
}

/** Requests whose bytes are the same in both forms, so their answer may come in either. */
function sharedByBothForms(kind: Request["kind"] | undefined): boolean {
  return kind === undefined || kind === "Prove" || kind === "SignerPublicKey" || kind === "Aggregate";
}

/**
 * Decodes the answer to a `requestKind` request sent in `form` (undefined: bytes that were no request, whose only
 * answer is an Error). An answer to a request both forms share is read in `form` first and, when that gives no
 * answer to it (its own kind or Error), in the other form; any other answer only in `form`. Throws
 * BincodeDecodeError (of the reading in `form`) when no reading gives an answer.
 */
export function decodeAnswer(
  payload: Uint8Array,
  requestKind: Request["kind"] | undefined,
  form: ProtocolForm,
): Response {
  const answers = (response: Response): boolean => response.kind === requestKind || response.kind === "Error";
  const either = sharedByBothForms(requestKind);
  let first: Response | BincodeDecodeError;
  try {
    first = decodeResponsePayload(payload, form);
    if (answers(first) || !either) return first;
  } catch (error) {
    if (!(error instanceof BincodeDecodeError) || !either) throw error;
    first = error;
  }
  const other = MESSAGE_FORMS.find((candidate) => candidate !== form) ?? form;
  try {
    const second = decodeResponsePayload(payload, other);
    if (answers(second)) return second;
  } catch (error) {
    if (!(error instanceof BincodeDecodeError)) throw error;
  }
  if (first instanceof BincodeDecodeError) throw first;
  return first;
}
