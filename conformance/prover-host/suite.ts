/**
 * A black-box conformance suite for prover hosts (system-spec section B, notes/prover.md "JSON-RPC
 * surface"): it speaks only HTTP JSON-RPC to a running host, so it can run against any implementation.
 * Nothing here depends on how a host is built; what a deployment knows about itself (how many enclaves,
 * whether a registry gates routing) is passed in as the target.
 */
import { describe, expect, it } from "vitest";
import { readAttestation } from "./cose.js";
import { failure, post, result, rpc } from "./json-rpc.js";

export interface ProverHostTarget {
  /** The host's JSON-RPC URL (POST) whose `/healthz` is the health route. */
  readonly url: string;
  /** Number of configured enclaves, when known. */
  readonly enclaveCount?: number;
  /** True when the deployment is expected to be healthy while the suite runs; undefined when unknown. */
  readonly expectHealthy?: boolean;
}

const HASH = (byte: string): string => `0x${byte.repeat(32)}`;

/** A well-formed request for a claim no enclave can prove (random roots): a host must never return a proof. */
export function unprovableRequest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    l1_head: HASH("a1"),
    l1_head_number: 1000,
    agreed_l2_head_hash: HASH("b2"),
    agreed_l2_output_root: HASH("c3"),
    claimed_l2_output_root: HASH("d4"),
    claimed_l2_block_number: 4321,
    proposer: `0x${"e5".repeat(20)}`,
    intermediate_block_interval: 1,
    ...overrides,
  };
}

function asByteArray(value: unknown, what: string): Uint8Array {
  expect(Array.isArray(value), `${what} is a JSON array`).toBe(true);
  const items = value as unknown[];
  for (const item of items)
    expect(
      Number.isInteger(item) && (item as number) >= 0 && (item as number) <= 255,
      `${what} holds bytes`,
    ).toBe(true);
  return new Uint8Array(items as number[]);
}

function healthUrl(url: string): string {
  const parsed = new URL(url);
  parsed.pathname = "/healthz";
  return parsed.toString();
}

/** Registers the suite's tests for the target that `target()` resolves (called inside the tests). */
export function proverHostConformance(name: string, target: () => ProverHostTarget): void {
  describe(`prover host conformance: ${name}`, () => {
    describe("enclave_signerPublicKey", () => {
      it("returns one 65-byte uncompressed key per enclave as arrays of numbers", async () => {
        const { url, enclaveCount } = target();
        const keys = await result(url, "enclave_signerPublicKey", []);
        expect(Array.isArray(keys)).toBe(true);
        const list = keys as unknown[];
        expect(list.length).toBeGreaterThan(0);
        if (enclaveCount !== undefined) expect(list).toHaveLength(enclaveCount);
        for (const key of list) {
          const bytes = asByteArray(key, "a public key");
          expect(bytes).toHaveLength(65);
          expect(bytes[0]).toBe(0x04);
        }
      });

      it("accepts no params, an empty array and an empty object", async () => {
        const { url } = target();
        const a = await result(url, "enclave_signerPublicKey");
        const b = await result(url, "enclave_signerPublicKey", []);
        const c = await result(url, "enclave_signerPublicKey", {});
        expect(b).toEqual(a);
        expect(c).toEqual(a);
      });
    });

    describe("enclave_signerAttestation", () => {
      it("returns one COSE_Sign1 document per enclave, in key order, embedding the key, user_data and nonce", async () => {
        const { url } = target();
        const keys = (await result(url, "enclave_signerPublicKey", [])) as unknown[];
        const userData = Array.from({ length: 512 }, (_, i) => (i * 7) % 256);
        const nonce = [0, 1, 2, 3, 254, 255];
        const documents = (await result(url, "enclave_signerAttestation", [userData, nonce])) as unknown[];
        expect(documents).toHaveLength(keys.length);
        documents.forEach((document, i) => {
          const fields = readAttestation(asByteArray(document, "a document"));
          expect(fields.publicKey).toEqual(asByteArray(keys[i], "a key"));
          expect(fields.userData).toEqual(new Uint8Array(userData));
          expect(fields.nonce).toEqual(new Uint8Array(nonce));
        });
      });

      it("takes named and omitted arguments", async () => {
        const { url } = target();
        const documents = (await result(url, "enclave_signerAttestation", { nonce: [42] })) as unknown[];
        const fields = readAttestation(asByteArray(documents[0], "a document"));
        expect(fields.nonce).toEqual(new Uint8Array([42]));
        expect(fields.userData === null || fields.userData.length === 0).toBe(true);
        const bare = (await result(url, "enclave_signerAttestation", [])) as unknown[];
        expect(bare.length).toBe(documents.length);
      });

      it("refuses user_data or nonce over 512 bytes with -32602", async () => {
        const { url } = target();
        const oversized = Array.from({ length: 513 }, () => 1);
        expect((await failure(url, "enclave_signerAttestation", [oversized, null])).code).toBe(-32602);
        expect((await failure(url, "enclave_signerAttestation", [null, oversized])).code).toBe(-32602);
        expect((await failure(url, "enclave_signerAttestation", { user_data: oversized })).code).toBe(-32602);
      });

      it("refuses values that are not bytes with -32602", async () => {
        const { url } = target();
        expect((await failure(url, "enclave_signerAttestation", [[256], null])).code).toBe(-32602);
        expect((await failure(url, "enclave_signerAttestation", [[-1], null])).code).toBe(-32602);
        expect((await failure(url, "enclave_signerAttestation", ["0x0102", null])).code).toBe(-32602);
      });
    });

    describe("healthz", () => {
      it("answers {version} or a JSON-RPC error, and GET /healthz agrees (200 with the body, or 500 with the error)", async () => {
        const { url, expectHealthy } = target();
        const response = await rpc(url, "healthz", []);
        const http = await fetch(healthUrl(url));
        const body = (await http.json()) as Record<string, unknown>;
        if (response.error === undefined) {
          expect(typeof (response.result as { version?: unknown }).version).toBe("string");
          expect(http.status).toBe(200);
          expect(body).toEqual(response.result);
          if (expectHealthy !== undefined) expect(expectHealthy).toBe(true);
        } else {
          expect(http.status).toBe(500);
          expect(typeof body.code).toBe("number");
          expect(typeof body.message).toBe("string");
          if (expectHealthy !== undefined) expect(expectHealthy).toBe(false);
        }
      });
    });

    describe("prover_prove", () => {
      it("never returns a proof for an unprovable claim: -32000 (proof failed) or -32001 (no valid signer)", async () => {
        const { url } = target();
        const positional = await failure(url, "prover_prove", [unprovableRequest()]);
        expect([-32000, -32001]).toContain(positional.code);
        const named = await failure(url, "prover_prove", { request: unprovableRequest() });
        expect(named.code).toBe(positional.code);
      });

      it("refuses an intermediate_block_interval of 0 with -32602", async () => {
        const { url } = target();
        const error = await failure(url, "prover_prove", [
          unprovableRequest({ intermediate_block_interval: 0 }),
        ]);
        expect(error.code).toBe(-32602);
      });

      it("refuses malformed fields with -32602", async () => {
        const { url } = target();
        const cases: Record<string, unknown>[] = [
          { l1_head: "0x1234" },
          { l1_head: HASH("zz") },
          { proposer: `0x${"11".repeat(19)}` },
          { claimed_l2_block_number: "4321" },
          { claimed_l2_block_number: -1 },
          { claimed_l2_block_number: 1.5 },
          { intermediate_block_interval: null },
        ];
        for (const override of cases) {
          const error = await failure(url, "prover_prove", [unprovableRequest(override)]);
          expect(error.code, JSON.stringify(override)).toBe(-32602);
        }
        const { l1_head: _dropped, ...missing } = unprovableRequest();
        expect((await failure(url, "prover_prove", [missing])).code).toBe(-32602);
        expect((await failure(url, "prover_prove", [])).code).toBe(-32602);
      });
    });

    describe("JSON-RPC envelope", () => {
      it("answers an unknown method with -32601 and keeps the id", async () => {
        const { url } = target();
        expect((await failure(url, "prover_doesNotExist", [])).code).toBe(-32601);
      });

      it("answers invalid JSON with -32700 and a missing method with -32600", async () => {
        const { url } = target();
        const parse = await post(url, "{not json");
        expect((parse.json as { error: { code: number } }).error.code).toBe(-32700);
        const invalid = await post(url, { jsonrpc: "2.0", id: 1 });
        expect((invalid.json as { error: { code: number } }).error.code).toBe(-32600);
      });

      it("answers a batch with one response per call, matched by id", async () => {
        const { url } = target();
        const { json } = await post(url, [
          { jsonrpc: "2.0", id: "a", method: "enclave_signerPublicKey", params: [] },
          { jsonrpc: "2.0", id: "b", method: "prover_doesNotExist", params: [] },
        ]);
        expect(Array.isArray(json)).toBe(true);
        const responses = json as { id: string; result?: unknown; error?: { code: number } }[];
        expect(responses).toHaveLength(2);
        const byId = new Map(responses.map((response) => [response.id, response]));
        expect(Array.isArray(byId.get("a")?.result)).toBe(true);
        expect(byId.get("b")?.error?.code).toBe(-32601);
      });
    });
  });
}
