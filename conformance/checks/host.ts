/**
 * Prover host checks: the JSON-RPC listener of docs/protocol.md "Host methods" (enclave_*, healthz, prover_prove
 * validation, standard JSON-RPC errors) with the wire encodings of docs/decisions.md "Host JSON-RPC encodings".
 */
import { randomBytes } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { readAttestation } from "../attestation.js";
import { imageHashFromPcrs } from "../journal-check.js";
import { type Check, CheckFailed, CheckSkipped, expectThat } from "../check.js";
import {
  describeOutcome,
  httpRequest,
  isRecord,
  parseEnvelope,
  rpcBatch,
  rpcCall,
  rpcResult,
} from "../json-rpc.js";

export interface HostContext {
  readonly url: string;
  /** The operator states that the host has a registry under which no configured signer is valid. */
  readonly expectNoValidSigner: boolean;
  /** The number of enclaves the operator says the host has; undefined when unknown. */
  readonly enclaveCount?: number;
  publicKeys?: Uint8Array[];
}

/** serde's JSON encoding of bytes: an array of integers 0..255. */
function byteArray(value: unknown, what: string): Uint8Array {
  expectThat(
    Array.isArray(value) &&
      value.every((b) => Number.isInteger(b) && (b as number) >= 0 && (b as number) <= 255),
    `${what} is not a JSON array of bytes: ${JSON.stringify(value)?.slice(0, 80)}`,
  );
  return new Uint8Array(value as number[]);
}

const equalBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

async function publicKeys(context: HostContext): Promise<Uint8Array[]> {
  if (context.publicKeys !== undefined) return context.publicKeys;
  const result = await rpcResult(context.url, "enclave_signerPublicKey", []);
  expectThat(
    Array.isArray(result) && result.length > 0,
    `enclave_signerPublicKey returned ${JSON.stringify(result)?.slice(0, 80)}, not a non-empty array`,
  );
  context.publicKeys = result.map((entry, i) => byteArray(entry, `key ${i}`));
  return context.publicKeys;
}

async function expectCode(
  url: string,
  method: string,
  params: unknown,
  code: number,
  what: string,
): Promise<string> {
  const outcome = await rpcCall(url, method, params);
  expectThat(
    outcome.kind === "error" && outcome.error.code === code,
    `${what}: expected error ${code}, got ${describeOutcome(outcome)}`,
  );
  return `${what}: ${code}`;
}

const hash = (byte: string): string => `0x${byte.repeat(32)}`;

function proofRequest(overrides: Record<string, unknown>): Record<string, unknown> {
  const request: Record<string, unknown> = {
    l1_head: hash("11"),
    l1_head_number: 100,
    agreed_l2_head_hash: hash("22"),
    agreed_l2_output_root: hash("33"),
    claimed_l2_output_root: hash("44"),
    claimed_l2_block_number: 1234,
    proposer: `0x${"55".repeat(20)}`,
    intermediate_block_interval: 2,
    ...overrides,
  };
  for (const [key, value] of Object.entries(overrides)) if (value === undefined) delete request[key];
  return request;
}

export const hostChecks: readonly Check<HostContext>[] = [
  {
    id: "host.signer-public-key",
    covers: "enclave_signerPublicKey: one 65-byte uncompressed secp256k1 key per configured enclave",
    async run(context) {
      const keys = await publicKeys(context);
      if (context.enclaveCount !== undefined) {
        expectThat(
          keys.length === context.enclaveCount,
          `${keys.length} key(s) for ${context.enclaveCount} configured enclave(s)`,
        );
      }
      keys.forEach((key, i) => {
        expectThat(key.length === 65 && key[0] === 0x04, `key ${i} is not 65 bytes starting 0x04`);
        try {
          secp256k1.Point.fromBytes(key).assertValidity();
        } catch {
          throw new CheckFailed(`key ${i} is not a point on secp256k1`);
        }
      });
      // No parameters may be sent as an absent member, an empty array or an empty object.
      for (const [what, params] of [
        ["no params member", undefined],
        ["params {}", {}],
      ] as const) {
        const again = await rpcResult(context.url, "enclave_signerPublicKey", params);
        expectThat(
          Array.isArray(again) &&
            again.length === keys.length &&
            again.every((entry, i) => equalBytes(byteArray(entry, `key ${i}`), keys[i] as Uint8Array)),
          `with ${what}: ${JSON.stringify(again)?.slice(0, 80)}, not the same keys as with params []`,
        );
      }
      return `${keys.length} key(s); the same with params [], {} and none`;
    },
  },
  {
    id: "host.signer-attestation",
    covers:
      "enclave_signerAttestation: one COSE_Sign1 per enclave, same order as the keys, embedding user_data and nonce",
    async run(context) {
      const keys = await publicKeys(context);
      const userData = Array.from({ length: 40 }, (_, i) => (i * 7) & 0xff);
      const nonce = Array.from({ length: 12 }, (_, i) => 255 - i);
      const result = await rpcResult(context.url, "enclave_signerAttestation", [userData, nonce]);
      expectThat(
        Array.isArray(result) && result.length === keys.length,
        `expected ${keys.length} documents, got ${JSON.stringify(result)?.slice(0, 80)}`,
      );
      for (const [i, entry] of result.entries()) {
        const document = await readAttestation(byteArray(entry, `document ${i}`), `document ${i}`);
        expectThat(
          document.publicKey !== null && equalBytes(document.publicKey, keys[i] as Uint8Array),
          `document ${i} does not embed key ${i}`,
        );
        expectThat(
          document.userData !== null && equalBytes(document.userData, new Uint8Array(userData)),
          `document ${i} does not carry user_data`,
        );
        expectThat(
          document.nonce !== null && equalBytes(document.nonce, new Uint8Array(nonce)),
          `document ${i} does not carry the nonce`,
        );
      }
      return `${keys.length} document(s) bound to the keys, user_data and nonce echoed`;
    },
  },
  {
    id: "host.tee-image-hash",
    covers:
      "enclave_teeImageHash (an extension of this project's host): one 0x 32-byte hash per enclave, same order as the keys, each keccak256(PCR0) of that enclave's attestation document",
    async run(context) {
      const keys = await publicKeys(context);
      const outcome = await rpcCall(context.url, "enclave_teeImageHash", []);
      if (outcome.kind === "error" && outcome.error.code === -32601)
        throw new CheckSkipped("the host has no enclave_teeImageHash (an extension; Base's host has none)");
      expectThat(outcome.kind === "result", `enclave_teeImageHash: ${describeOutcome(outcome)}`);
      const hashes = outcome.kind === "result" ? outcome.result : undefined;
      expectThat(
        Array.isArray(hashes) &&
          hashes.length === keys.length &&
          hashes.every((entry) => typeof entry === "string" && /^0x[0-9a-f]{64}$/.test(entry)),
        `expected ${keys.length} lower-case 0x 32-byte hashes, got ${JSON.stringify(hashes)?.slice(0, 100)}`,
      );
      const documents = await rpcResult(context.url, "enclave_signerAttestation", []);
      expectThat(
        Array.isArray(documents) && documents.length === keys.length,
        `expected ${keys.length} attestation documents, got ${JSON.stringify(documents)?.slice(0, 80)}`,
      );
      for (const [i, entry] of (documents as unknown[]).entries()) {
        const document = await readAttestation(byteArray(entry, `document ${i}`), `document ${i}`);
        const expected = imageHashFromPcrs(document.pcrs);
        if (expected === undefined) throw new CheckFailed(`document ${i} gives no usable PCR0`);
        const hex = `0x${Buffer.from(expected).toString("hex")}`;
        expectThat(
          (hashes as string[])[i] === hex,
          `enclave ${i}: enclave_teeImageHash ${(hashes as string[])[i]}, its attestation's keccak256(PCR0) is ${hex}`,
        );
      }
      return `${keys.length} hash(es), each its enclave's attestation keccak256(PCR0)`;
    },
  },
  {
    id: "host.signer-attestation-arguments",
    covers:
      'enclave_signerAttestation: user_data and nonce are optional, positional or named (`{"nonce": [...]}`)',
    async run(context) {
      const keys = await publicKeys(context);
      const named = await rpcResult(context.url, "enclave_signerAttestation", { nonce: [42] });
      expectThat(
        Array.isArray(named) && named.length === keys.length,
        `named {"nonce":[42]}: expected ${keys.length} documents, got ${JSON.stringify(named)?.slice(0, 80)}`,
      );
      const document = await readAttestation(byteArray(named[0], "document 0"), "document 0 (named nonce)");
      expectThat(
        document.nonce !== null && equalBytes(document.nonce, Uint8Array.of(42)),
        "the named nonce [42] is not in the document",
      );
      expectThat(
        document.userData === null || document.userData.length === 0,
        "user_data was not given, yet the document carries some",
      );
      for (const [what, params] of [
        ["params []", []],
        ["no params member", undefined],
      ] as const) {
        const bare = await rpcResult(context.url, "enclave_signerAttestation", params);
        expectThat(
          Array.isArray(bare) && bare.length === keys.length,
          `${what}: expected ${keys.length} documents, got ${JSON.stringify(bare)?.slice(0, 80)}`,
        );
      }
      return "named nonce echoed; [] and no params each give one document per enclave";
    },
  },
  {
    id: "host.attestation-input-cap",
    covers: "safety 6: user_data and nonce capped at 512 bytes at the host boundary (-32602)",
    async run(context) {
      const bytes = (n: number) => new Array<number>(n).fill(0x61);
      const details = [
        await expectCode(
          context.url,
          "enclave_signerAttestation",
          [bytes(513), null],
          -32602,
          "513-byte user_data",
        ),
        await expectCode(
          context.url,
          "enclave_signerAttestation",
          [null, bytes(513)],
          -32602,
          "513-byte nonce",
        ),
        await expectCode(
          context.url,
          "enclave_signerAttestation",
          { user_data: bytes(513) },
          -32602,
          "513-byte named user_data",
        ),
        await expectCode(
          context.url,
          "enclave_signerAttestation",
          [[256], null],
          -32602,
          "a user_data entry above 255",
        ),
        await expectCode(context.url, "enclave_signerAttestation", [[-1], null], -32602, "a negative byte"),
        await expectCode(
          context.url,
          "enclave_signerAttestation",
          ["0x0102", null],
          -32602,
          "a hex string for user_data",
        ),
      ];
      const atLimit = await rpcCall(context.url, "enclave_signerAttestation", [bytes(512), bytes(512)]);
      expectThat(
        atLimit.kind === "result",
        `512 bytes each must be accepted, got ${describeOutcome(atLimit)}`,
      );
      return `${details.join(", ")}; 512 bytes accepted`;
    },
  },
  {
    id: "host.healthz",
    covers:
      "healthz method and GET /healthz (the same body; HTTP 200 healthy, 500 with the error object unhealthy)",
    async run(context) {
      const outcome = await rpcCall(context.url, "healthz", []);
      const get = await httpRequest(new URL("/healthz", context.url).toString(), { method: "GET" });
      if (outcome.kind === "result") {
        expectThat(
          isRecord(outcome.result) && typeof outcome.result.version === "string",
          `healthz result ${JSON.stringify(outcome.result)} is not {"version": string}`,
        );
        expectThat(
          get.status === 200,
          `GET /healthz answered HTTP ${get.status} while the method reports healthy`,
        );
        expectThat(
          JSON.stringify(get.body) === JSON.stringify(outcome.result),
          `GET /healthz body ${get.text.slice(0, 120)} differs from the method's result`,
        );
        return `healthy, version ${outcome.result.version}`;
      }
      expectThat(
        get.status === 500,
        `healthz errs (${describeOutcome(outcome)}) but GET /healthz answered HTTP ${get.status}`,
      );
      expectThat(
        isRecord(get.body) && typeof get.body.code === "number",
        `GET /healthz body ${get.text.slice(0, 120)} is not a JSON-RPC error object`,
      );
      return `unhealthy: ${describeOutcome(outcome)}`;
    },
  },
  {
    id: "host.prove-validation",
    covers: "prover_prove request validation: interval 0 and malformed fields refused with -32602",
    async run(context) {
      const cases: [string, Record<string, unknown>][] = [
        ["intermediate_block_interval 0", { intermediate_block_interval: 0 }],
        ["a 2-byte claimed_l2_output_root", { claimed_l2_output_root: "0x1234" }],
        ["a non-hex l1_head", { l1_head: `0x${"zz".repeat(32)}` }],
        ["a 19-byte proposer", { proposer: `0x${"55".repeat(19)}` }],
        ["a missing agreed_l2_output_root", { agreed_l2_output_root: undefined }],
        ["a negative claimed_l2_block_number", { claimed_l2_block_number: -1 }],
        ["a fractional claimed_l2_block_number", { claimed_l2_block_number: 1.5 }],
        ["claimed_l2_block_number as a string", { claimed_l2_block_number: "1234" }],
        ["a null intermediate_block_interval", { intermediate_block_interval: null }],
      ];
      const details: string[] = [];
      for (const [what, overrides] of cases) {
        details.push(await expectCode(context.url, "prover_prove", [proofRequest(overrides)], -32602, what));
      }
      details.push(await expectCode(context.url, "prover_prove", [], -32602, "no request"));
      return `${details.length} invalid requests refused with -32602`;
    },
  },
  {
    id: "host.prove-unprovable-claim",
    covers:
      "safety 2 at the host: prover_prove never returns a proof for a claim no execution reproduces (-32000 or -32001)",
    async run(context) {
      const request = proofRequest({ claimed_l2_output_root: `0x${randomBytes(32).toString("hex")}` });
      const positional = await rpcCall(context.url, "prover_prove", [request]);
      if (positional.kind === "result")
        throw new CheckFailed(`a random claimed root was proved: ${describeOutcome(positional)}`);
      expectThat(
        [-32000, -32001].includes(positional.error.code),
        `expected -32000 or -32001, got ${describeOutcome(positional)}`,
      );
      const named = await rpcCall(context.url, "prover_prove", { request });
      expectThat(
        named.kind === "error" && named.error.code === positional.error.code,
        `the named form {"request":…} got ${describeOutcome(named)}, the positional form ${positional.error.code}`,
      );
      return `refused with ${positional.error.code} ("${positional.error.message.slice(0, 100)}")`;
    },
  },
  {
    id: "host.registry-fail-closed",
    covers:
      "safety 8: with a registry configured, the host fails closed on signer validity (-32001 NoValidSigner, unhealthy)",
    async run(context) {
      if (!context.expectNoValidSigner) {
        throw new CheckSkipped(
          "needs a host whose registry confirms no configured signer (run with --expect-no-valid-signer against such a deployment); a black-box client cannot tell otherwise whether a registry is configured",
        );
      }
      const outcome = await rpcCall(context.url, "prover_prove", [proofRequest({})]);
      expectThat(
        outcome.kind === "error" && outcome.error.code === -32001,
        `prover_prove: expected -32001 NoValidSigner, got ${describeOutcome(outcome)}`,
      );
      const health = await httpRequest(new URL("/healthz", context.url).toString(), { method: "GET" });
      expectThat(
        health.status === 500,
        `GET /healthz answered HTTP ${health.status} while no signer is valid`,
      );
      return `-32001 "${outcome.error.message}", GET /healthz 500`;
    },
  },
  {
    id: "host.unknown-method",
    covers: "JSON-RPC 2.0: unknown method -32601, with the request's id",
    run: (context) => expectCode(context.url, "prover_doesNotExist", [], -32601, "prover_doesNotExist"),
  },
  {
    id: "host.batch",
    covers: "JSON-RPC 2.0: a batch gets one response per call, matched by id",
    async run(context) {
      const outcomes = await rpcBatch(context.url, [
        { id: "keys", method: "enclave_signerPublicKey", params: [] },
        { id: "missing", method: "prover_doesNotExist", params: [] },
        { id: 3, method: "healthz", params: [] },
      ]);
      const keys = outcomes.get("keys");
      expectThat(
        keys?.kind === "result" && Array.isArray(keys.result),
        `the enclave_signerPublicKey call in the batch got ${keys === undefined ? "nothing" : describeOutcome(keys)}`,
      );
      const missing = outcomes.get("missing");
      expectThat(
        missing?.kind === "error" && missing.error.code === -32601,
        `the unknown method in the batch got ${missing === undefined ? "nothing" : describeOutcome(missing)}`,
      );
      return "3 calls, 3 responses matched by id";
    },
  },
  {
    id: "host.malformed-json",
    covers: "JSON-RPC 2.0: malformed JSON -32700 (id null)",
    async run(context) {
      const response = await httpRequest(context.url, {
        method: "POST",
        body: '{"jsonrpc":"2.0","id":1,"method":',
      });
      const outcome = parseEnvelope(response.body, null);
      expectThat(
        outcome.kind === "error" && outcome.error.code === -32700,
        `expected -32700, got ${describeOutcome(outcome)}`,
      );
      expectThat(
        isRecord(response.body) && response.body.id === null,
        `the error's id is ${JSON.stringify(isRecord(response.body) ? response.body.id : undefined)}, not null`,
      );
      return "-32700 with id null";
    },
  },
  {
    id: "host.invalid-request",
    covers: "JSON-RPC 2.0: a request object without a method -32600",
    async run(context) {
      const response = await httpRequest(context.url, { method: "POST", body: '{"jsonrpc":"2.0","id":7}' });
      // JSON-RPC 2.0 lets an invalid request's error carry id null as well as the echoed id.
      const outcome = parseEnvelope(response.body, 7, { nullIdOnError: true });
      expectThat(
        outcome.kind === "error" && outcome.error.code === -32600,
        `expected -32600, got ${describeOutcome(outcome)}`,
      );
      return "-32600";
    },
  },
];
