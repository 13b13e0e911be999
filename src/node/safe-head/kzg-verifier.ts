/**
 * Blob verification off the node's event loop (docs/node/l1.md "Safe and finalized heads"): recomputing a blob's KZG
 * commitment blocks its thread for ~1.4 s of CPU (several seconds on a loaded 2-core machine), which on the node's
 * event loop would stop the sequencer and the 200 ms flashblocks loop. One worker thread per process, started on
 * the first blob, loads the KZG backend and checks each blob; a mismatch comes back as src/derive's
 * BlobMismatchError (fail closed).
 */
import { Worker } from "node:worker_threads";
import { workerEntryUrl } from "../../bundles/index.js";
import { BlobMismatchError } from "../../derive/index.js";
import { BlobVerifierError } from "./errors.js";

/** The worker's bundle when this runs from one, else the .mjs that loads kzg-worker.ts under tsx. */
const ENTRY = workerEntryUrl(
  "src/node/safe-head/kzg-worker.ts",
  new URL("./kzg-worker-entry.mjs", import.meta.url),
);

/** A blob to check against the versioned hash it was fetched under. */
export interface VerifyRequest {
  readonly id: number;
  readonly blob: Uint8Array;
  readonly versionedHash: Uint8Array;
}

export type VerifyReply =
  | { readonly id: number; readonly ok: true }
  | {
      readonly id: number;
      readonly ok: false;
      readonly mismatch: boolean;
      readonly message: string;
      readonly details: Record<string, unknown>;
    };

interface Waiter {
  resolve(): void;
  reject(error: Error): void;
}

export class WorkerBlobVerifier {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly waiting = new Map<number, Waiter>();

  /** Resolves when `blob` matches `versionedHash`; BlobMismatchError when not, BlobVerifierError on failure. */
  verify(blob: Uint8Array, versionedHash: Uint8Array): Promise<void> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise<void>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, blob, versionedHash } satisfies VerifyRequest);
    });
  }

  /** Stops the worker (a later `verify` starts a new one). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker !== undefined) await worker.terminate();
  }

  private start(): Worker {
    if (this.worker !== undefined) return this.worker;
    const worker = new Worker(ENTRY, { name: "kzg-worker" });
    // The worker never keeps the process alive: a node exits while a blob is being checked.
    worker.unref();
    worker.on("message", (reply: VerifyReply) => {
      const waiter = this.waiting.get(reply.id);
      if (waiter === undefined) return;
      this.waiting.delete(reply.id);
      if (reply.ok) waiter.resolve();
      else if (reply.mismatch) waiter.reject(new BlobMismatchError(reply.message, reply.details));
      else
        waiter.reject(
          new BlobVerifierError(`the KZG worker failed: ${reply.message}`, { details: reply.details }),
        );
    });
    const fail = (error: Error): void => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
    };
    worker.on("error", (error) =>
      fail(new BlobVerifierError(`the KZG worker failed: ${error.message}`, { cause: error })),
    );
    worker.on("exit", (code) =>
      fail(new BlobVerifierError(`the KZG worker exited with code ${code}`, { details: { code } })),
    );
    this.worker = worker;
    return worker;
  }
}

let shared: WorkerBlobVerifier | undefined;

/** The process's blob verifier (one KZG worker per process, as one KZG instance per process). */
export function sharedBlobVerifier(): WorkerBlobVerifier {
  shared ??= new WorkerBlobVerifier();
  return shared;
}
