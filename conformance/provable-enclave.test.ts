/**
 * The proof-dependent checks decide when the enclave can prove. Our enclave's derivation stage is not
 * built yet, so this test runs the enclave's real server, request handlers, security module (local mode)
 * and proof program (content verification, boot info, config hash, claim check, journals, signing) with
 * a stand-in for the missing stage only: an executor that replays a fixed chain of output roots
 * (root(n) = keccak256(agreed root ‖ n)) over the last three blocks of the claim. With a witness file whose
 * claimed root is that replay's, every enclave check must PASS and none SKIP; the same witness on the
 * careless enclave must still FAIL the proof checks.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  EnclaveServer,
  EnclaveSigner,
  handleRequest,
  LocalSecurityModule,
  type RangeExecutor,
} from "../enclave/index.js";
import type { Preimage } from "../generated/protocol/index.js";
import { teeImageHashOf } from "../src/attestation/index.js";
import { BootKey, u64be } from "../src/proof/index.js";
import { type CarelessEnclave, startCarelessEnclave } from "./peers/careless-enclave.js";
import { runConformance } from "./suite.js";
import { bootValue, keyToHex, loadWitnessFile, syntheticWitness, withBootValue } from "./witness.js";

const RANGE = 3n;

function replayedRoot(agreed: Uint8Array, block: bigint): Uint8Array {
  return keccak_256(new Uint8Array([...agreed, ...u64be(block)]));
}

/** Stand-in for the derivation stage (not built yet): a fixed, deterministic chain of output roots. */
const replayExecutor: RangeExecutor = {
  async execute(boot) {
    const startBlock = boot.claimedL2BlockNumber - RANGE;
    const outputRoots = Array.from({ length: Number(RANGE) }, (_, i) =>
      replayedRoot(boot.agreedOutputRoot, startBlock + BigInt(i) + 1n),
    );
    return { startBlock, outputRoots };
  },
};

function provableWitness(): Preimage[] {
  const base = syntheticWitness();
  const agreed = bootValue(base, BootKey.AgreedOutputRoot) as Uint8Array;
  const claimedBlock = new DataView(
    (bootValue(base, BootKey.ClaimedL2BlockNumber) as Uint8Array).buffer,
  ).getBigUint64(0, false);
  return withBootValue(base, BootKey.ClaimedOutputRoot, replayedRoot(agreed, claimedBlock));
}

describe("proof-dependent checks with a witness the enclave can prove", () => {
  let dir: string;
  let server: EnclaveServer;
  let careless: CarelessEnclave;
  let witness: Preimage[];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "conformance-witness-"));
    const securityModule = await LocalSecurityModule.open();
    const signer = EnclaveSigner.generate((n) => securityModule.randomBytes(n));
    const deps = {
      identity: { publicKey: signer.publicKey },
      securityModule,
      program: { signer, teeImageHash: teeImageHashOf(securityModule.pcr0()), executor: replayExecutor },
    };
    server = new EnclaveServer({
      listen: { kind: "unix", path: join(dir, "enclave.sock") },
      handle: (r) => handleRequest(deps, r),
    });
    await server.start();
    careless = await startCarelessEnclave();
    const file = join(dir, "witness.json");
    const entries = provableWitness().map(([key, value]) => ({
      key: keyToHex(key),
      value: `0x${Buffer.from(value).toString("hex")}`,
    }));
    await writeFile(file, JSON.stringify({ preimages: entries }));
    witness = await loadWitnessFile(file);
  });

  afterAll(async () => {
    await server?.close();
    await careless?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("passes every enclave check, the wrong-root and journal checks included", async () => {
    const results = await runConformance({ enclave: server.address }, { witness });
    expect(results.filter((r) => r.status !== "PASS")).toEqual([]);
    expect(results.find((r) => r.id === "enclave.wrong-claimed-root")?.detail).toMatch(
      /OutputRootMismatchError.*while the correct root was proved/,
    );
    expect(results.find((r) => r.id === "enclave.journal-image-hash")?.detail).toMatch(
      /every journal embeds 0x0{64} and recovers to the signer/,
    );
    expect(results.find((r) => r.id === "enclave.content-verification.keccak256")?.detail).toMatch(
      /the unmodified request was proved/,
    );
  });

  it("still fails the careless enclave with the same witness", async () => {
    const results = await runConformance(
      { enclave: { kind: "tcp", host: "127.0.0.1", port: careless.port } },
      { witness },
    );
    const status = (id: string) => results.find((r) => r.id === id)?.status;
    expect(status("enclave.wrong-claimed-root")).toBe("FAIL");
    expect(status("enclave.journal-image-hash")).toBe("FAIL");
    expect(status("enclave.content-verification.sha256")).toBe("FAIL");
  });
});
