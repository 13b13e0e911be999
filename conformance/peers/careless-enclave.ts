/**
 * A deliberately non-conforming enclave for the suite's negative tests: it speaks the frame protocol
 * correctly but signs whatever it is asked to prove without verifying a single preimage, the chain id or
 * the claimed root, embeds a made-up tee_image_hash in its journals while its attestation says local
 * mode (no PCRs), and keeps answering further frames on the same connection. Test-only; 127.0.0.1 only.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server, type Socket } from "node:net";
import { keccak_256 } from "@noble/hashes/sha3.js";
import {
  decodeRequestPayload,
  encodeResponseFrame,
  type Preimage,
  type Request,
  type Response,
} from "../../generated/protocol/index.js";
import type { Proposal } from "../../generated/rpc/index.js";
import { packJournal } from "../../generated/journal/index.js";
import { EnclaveSigner } from "../../enclave/index.js";
import { LocalAttestor } from "../../src/attestation/index.js";
import { BootKey } from "../../src/proof/preimages/index.js";
import { bootValue } from "../witness.js";

const random = (length: number): Uint8Array => new Uint8Array(randomBytes(length));

function u64(bytes: Uint8Array | undefined, fallback: bigint): bigint {
  if (bytes?.length !== 8) return fallback;
  return new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, false);
}

function bytesOr(bytes: Uint8Array | undefined, length: number): Uint8Array {
  return bytes?.length === length ? bytes : new Uint8Array(length);
}

export interface CarelessEnclave {
  readonly port: number;
  close(): Promise<void>;
}

export async function startCarelessEnclave(): Promise<CarelessEnclave> {
  const signer = EnclaveSigner.generate(random);
  const attestor = await LocalAttestor.create(random);
  const madeUpImageHash = new Uint8Array(32).fill(0x11);

  function signAnything(preimages: readonly Preimage[]): Proposal {
    const block = u64(bootValue(preimages, BootKey.ClaimedL2BlockNumber), 1n);
    const proposal = {
      output_root: bytesOr(bootValue(preimages, BootKey.ClaimedOutputRoot), 32),
      l1_origin_hash: bytesOr(bootValue(preimages, BootKey.L1Head), 32),
      l1_origin_number: u64(bootValue(preimages, BootKey.L1HeadNumber), 0n),
      l2_block_number: block,
      prev_output_root: bytesOr(bootValue(preimages, BootKey.AgreedOutputRoot), 32),
      config_hash: keccak_256(new TextEncoder().encode("careless config")),
    };
    const journal = packJournal({
      proposer: bytesOr(bootValue(preimages, BootKey.Proposer), 20),
      l1OriginHash: proposal.l1_origin_hash,
      prevOutputRoot: proposal.prev_output_root,
      startingL2Block: block - 1n,
      outputRoot: proposal.output_root,
      endingL2Block: block,
      intermediateRoots: [],
      configHash: proposal.config_hash,
      teeImageHash: madeUpImageHash,
    });
    return { ...proposal, signature: signer.signJournal(journal) };
  }

  async function answer(request: Request): Promise<Response> {
    switch (request.kind) {
      case "SignerPublicKey":
        return { kind: "SignerPublicKey", public_key: signer.publicKey };
      case "SignerAttestation":
        return {
          kind: "SignerAttestation",
          document: await attestor.attest({
            publicKey: signer.publicKey,
            userData: request.user_data,
            nonce: request.nonce,
          }),
        };
      case "Prove": {
        const proposal = signAnything(request.preimages);
        return { kind: "Prove", result: { Tee: { aggregate_proposal: proposal, proposals: [proposal] } } };
      }
      case "TeeImageHash":
        return { kind: "TeeImageHash", image_hash: madeUpImageHash };
      case "Aggregate":
        return { kind: "Error", message: "this peer does not aggregate" };
    }
  }

  function serve(socket: Socket): void {
    let buffered = Buffer.alloc(0);
    let busy = Promise.resolve();
    socket.on("error", () => undefined);
    socket.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 4) {
        const length = buffered.readUInt32BE(0);
        if (length > 16 * 1024 * 1024) {
          socket.end(encodeResponseFrame({ kind: "Error", message: "frame too large" }));
          return;
        }
        if (buffered.length < 4 + length) return;
        const payload = new Uint8Array(buffered.subarray(4, 4 + length));
        buffered = buffered.subarray(4 + length);
        busy = busy.then(async () => {
          let response: Response;
          try {
            response = await answer(decodeRequestPayload(payload));
          } catch (error) {
            response = { kind: "Error", message: (error as Error).message };
          }
          if (!socket.destroyed) socket.write(encodeResponseFrame(response));
        });
      }
    });
  }

  const sockets = new Set<Socket>();
  const server: Server = createServer({ allowHalfOpen: false }, (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    serve(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return {
    port: address.port,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
