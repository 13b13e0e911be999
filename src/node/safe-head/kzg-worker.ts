/**
 * The KZG worker thread (see kzg-verifier.ts): loads src/derive's Kzg once, on the first blob it is sent (the worker
 * itself starts on the first blob, so loading at its start would not come sooner); a commitment is 0.1 s of CPU on
 * c-kzg, a second on the JS fallback, kept off the node's event loop, and checks each blob against its
 * versioned hash.
 */
import { parentPort } from "node:worker_threads";
import { BlobMismatchError, loadKzg } from "../../derive/index.js";
import type { VerifyReply, VerifyRequest } from "./kzg-verifier.js";

const port = parentPort;
if (port === null) throw new Error("kzg-worker.ts runs as a worker thread only");

port.on("message", (request: VerifyRequest) => {
  void (async (): Promise<VerifyReply> => {
    try {
      (await loadKzg()).verifyBlob(request.blob, request.versionedHash);
      return { id: request.id, ok: true };
    } catch (error) {
      const e = error instanceof Error ? error : new Error(String(error));
      return {
        id: request.id,
        ok: false,
        mismatch: error instanceof BlobMismatchError,
        message: e.message,
        details: error instanceof BlobMismatchError ? { ...error.details } : {},
      };
    }
  })().then((reply) => port.postMessage(reply));
});
