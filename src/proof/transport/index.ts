/**
 * The TEE transport (library, rank 1): what the prover host and the enclave share to reach each other over the
 * host-enclave protocol (docs/protocol.md "Host-to-enclave vsock protocol").
 *
 * Public surface:
 * - addresses: `ListenAddress` (local mode: a Unix socket or a 127.0.0.1 port) and its parser and formatter;
 *   `EnclaveAddress` (a vsock context id and port, or a local-mode address) and its parsers and formatter;
 *   `VsockAddress`; `ENCLAVE_VSOCK_PORT`, the one vsock port constant;
 * - frames: `LengthPrefixedFrameReader` (one frame, 4- or 8-byte prefix, or either detected), `encodeFrame`,
 *   `encodeRequestFrameWith`, `encodeResponseFrameWith`, `FrameLengthPrefix`, `parseFrameLengthPrefix`,
 *   `DEFAULT_FRAME_LENGTH_PREFIX`;
 * - message forms (the spec's or Base's, independent of the frame form): `MessageForm`, `parseMessageForm`,
 *   `DEFAULT_MESSAGE_FORM`, `MESSAGE_FORMS`, `answerMessageForm` (the form an enclave answers a request in),
 *   `pairedMessageForm`, `requestMessageForm`, `decodeAnswer` (a host reads an answer in either form where the
 *   request's bytes are the same in both);
 * - writing: `writeFrame` and `writeChunks`, the one chunked, drain-aware frame writer both ends use;
 * - errors: `TransportError` (root), `ListenAddressError`, `EnclaveAddressError`.
 *
 * Concepts owned: the address syntax both ends accept, the enclave's port, the frame's length-prefix forms, which
 * message form a request and its answer are in, and
 * how a frame goes onto a socket. The bincode codecs are generated from spec/protocol (generated/protocol).
 */
export { TransportError, type TransportErrorKind } from "./errors.js";
export {
  formatListenAddress,
  type ListenAddress,
  ListenAddressError,
  parseListenAddress,
} from "./listen-address.js";
export {
  type EnclaveAddress,
  EnclaveAddressError,
  ENCLAVE_VSOCK_PORT,
  formatEnclaveAddress,
  parseEnclaveAddress,
  parseEnclaveAddresses,
  type VsockAddress,
} from "./enclave-address.js";
export { writeChunks, writeFrame } from "./write-frame.js";
export {
  DEFAULT_FRAME_LENGTH_PREFIX,
  encodeFrame,
  encodeRequestFrameWith,
  encodeResponseFrameWith,
  type FrameForm,
  FRAME_LENGTH_PREFIXES,
  type FrameLengthPrefix,
  type FrameReaderOptions,
  LengthPrefixedFrameReader,
  parseFrameLengthPrefix,
} from "./frame.js";
export {
  answerMessageForm,
  decodeAnswer,
  DEFAULT_MESSAGE_FORM,
  type MessageForm,
  MESSAGE_FORMS,
  pairedMessageForm,
  parseMessageForm,
  requestMessageForm,
} from "./message-form.js";
