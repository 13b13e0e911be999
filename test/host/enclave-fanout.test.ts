/**
 * enclave_* through the real host process in front of three real local-mode enclave processes over Unix
 * sockets, with viem as the client.
 */
import { bytesToHex } from "viem";
import { publicKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyAttestationDocument } from "../../src/attestation/index.js";
import { type RunningEnclave, startEnclave } from "../../enclave/test/enclave-process.js";
import { hostClient, type HostCall, rpcFailure } from "./host-client.js";
import { hostArgs, type RunningHost, startHost } from "./spawn-host.js";
import { formatListenAddress } from "../../src/proof/transport/index.js";

/** A registry address is required with three enclaves; enclave_* calls never consult it. */
const REGISTRY = "0x00000000000000000000000000000000000000aa";

function requestsServed(enclave: RunningEnclave): number {
  return enclave.logs.filter((line) => line.msg === "request served").length;
}

async function waitForServed(enclaves: readonly RunningEnclave[], counts: readonly number[]): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (enclaves.every((enclave, i) => requestsServed(enclave) >= counts[i]!)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("enclaves did not log the expected requests");
}

/** The host's own count of exchanges of one request kind, summed over enclaves and outcomes. */
async function hostEnclaveCalls(url: string, request: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let total = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith("prover_enclave_calls_total{") && line.includes(`request="${request}"`))
      total += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return total;
}

const bytes = (value: unknown): Uint8Array => new Uint8Array(value as number[]);

describe("enclave_* fan-out through the host", () => {
  let enclaves: RunningEnclave[] = [];
  let host: RunningHost;
  let call: HostCall;
  const stopped = new Set<RunningEnclave>();

  beforeAll(async () => {
    enclaves = await Promise.all([startEnclave(), startEnclave(), startEnclave()]);
    host = await startHost(
      hostArgs({
        enclaves: enclaves.map((e) => formatListenAddress(e.address)),
        registry: REGISTRY,
      }),
    );
    call = hostClient(host.url);
  });

  afterAll(async () => {
    await host?.stop();
    // stop() of enclave/test/enclave-process.ts waits for an 'exit' event, so each enclave is stopped once.
    await Promise.all(enclaves.filter((enclave) => !stopped.has(enclave)).map((enclave) => enclave.stop()));
  });

  it("returns every enclave's signer key in configured order", async () => {
    const keys = (await call("enclave_signerPublicKey")) as unknown[];
    expect(keys).toHaveLength(3);
    keys.forEach((key, i) => {
      const publicKey = bytes(key);
      expect(publicKey).toHaveLength(65);
      expect(publicKey[0]).toBe(0x04);
      expect(publicKeyToAddress(bytesToHex(publicKey)).toLowerCase()).toBe(enclaves[i]!.signer.toLowerCase());
    });
  });

  it("returns one attestation per enclave, each echoing user_data and nonce and embedding its key", async () => {
    const userData = Array.from({ length: 512 }, (_, i) => i % 256);
    const nonce = [1, 2, 3, 4, 5, 6, 7, 8];
    const documents = (await call("enclave_signerAttestation", [userData, nonce])) as unknown[];
    const keys = (await call("enclave_signerPublicKey")) as unknown[];
    expect(documents).toHaveLength(3);
    for (const [i, document] of documents.entries()) {
      const parsed = await verifyAttestationDocument(bytes(document));
      expect(parsed.userData).toEqual(new Uint8Array(userData));
      expect(parsed.nonce).toEqual(new Uint8Array(nonce));
      expect(parsed.publicKey).toEqual(bytes(keys[i]));
    }
    const named = (await call("enclave_signerAttestation", { nonce: [9] })) as unknown[];
    const first = await verifyAttestationDocument(bytes(named[0]));
    expect(first.userData).toBeNull();
    expect(first.nonce).toEqual(new Uint8Array([9]));
  });

  it("returns every enclave's image hash in configured order, each asked of its enclave", async () => {
    const asked = (enclave: RunningEnclave): number =>
      enclave.logs.filter((line) => line.msg === "request served" && line.request === "TeeImageHash").length;
    const before = enclaves.map(asked);
    const hashes = (await call("enclave_teeImageHash")) as unknown[];
    expect(hashes).toHaveLength(3);
    // Local mode has no PCR0: each hash is the zero hash its enclave logged at boot (docs/enclave.md).
    hashes.forEach((hash, i) => {
      const boot = enclaves[i]!.logs.find((line) => line.msg === "enclave listening");
      expect(hash).toBe(boot?.teeImageHash);
    });
    expect(hashes[0]).toBe(`0x${"00".repeat(32)}`);
    for (let attempt = 0; attempt < 200 && !enclaves.every((e, i) => asked(e) > before[i]!); attempt++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(enclaves.map(asked)).toEqual(before.map((n) => n + 1));
    expect(await call("enclave_teeImageHash", {})).toEqual(hashes);
  });

  it("rejects 513-byte user_data or nonce with -32602 without contacting any enclave", async () => {
    const before = enclaves.map(requestsServed);
    const attestationCallsBefore = await hostEnclaveCalls(host.url, "SignerAttestation");
    const oversized = Array.from({ length: 513 }, () => 7);
    const userDataFailure = await rpcFailure(call("enclave_signerAttestation", [oversized, null]));
    expect(userDataFailure.code).toBe(-32602);
    expect(userDataFailure.message).toMatch(/user_data/);
    const nonceFailure = await rpcFailure(call("enclave_signerAttestation", { nonce: oversized }));
    expect(nonceFailure.code).toBe(-32602);
    expect(nonceFailure.message).toMatch(/nonce/);
    // One accepted call afterwards: each enclave then has served exactly one more request, so the two
    // refused calls reached none of them.
    await call("enclave_signerPublicKey");
    await waitForServed(
      enclaves,
      before.map((n) => n + 1),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(enclaves.map(requestsServed)).toEqual(before.map((n) => n + 1));
    expect(await hostEnclaveCalls(host.url, "SignerAttestation")).toBe(attestationCallsBefore);
  });

  it("GET /healthz and healthz are not affected by enclave_* calls without a confirmed signer", async () => {
    const response = await fetch(`${host.url}/healthz`);
    expect(response.status).toBe(500);
    const body = (await response.json()) as { code: number; message: string };
    expect(body.code).toBe(-32001);
    expect(body.message).toMatch(/unhealthy/);
  });

  it("fails every enclave_* call with -32001 naming the enclave once one of three is killed", async () => {
    const victim = enclaves[1]!;
    await victim.stop();
    stopped.add(victim);
    const keyFailure = await rpcFailure(call("enclave_signerPublicKey"));
    expect(keyFailure.code).toBe(-32001);
    expect(keyFailure.message).toContain(victim.address.kind === "unix" ? victim.address.path : "");
    expect(keyFailure.message).toMatch(/1 of 3 enclaves failed/);
    const attestationFailure = await rpcFailure(call("enclave_signerAttestation", [[1], [2]]));
    expect(attestationFailure.code).toBe(-32001);
    const imageHashFailure = await rpcFailure(call("enclave_teeImageHash"));
    expect(imageHashFailure.code).toBe(-32001);
    expect(imageHashFailure.message).toMatch(/enclave_teeImageHash failed: 1 of 3 enclaves failed/);
    const metrics = await (await fetch(`${host.url}/metrics`)).text();
    expect(metrics).toMatch(/prover_enclave_transport_errors_total\{enclave="unix:[^"]+"[^}]*\} [1-9]/);
  });
});
