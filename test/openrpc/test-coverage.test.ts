/**
 * @open-rpc/test-coverage (the pinned devDependency) against a started node and a started
 * prover host, on the published documents with only `servers[0].url` changed to the process's port (the
 * override docs/spec.md describes). Its examples rule must pass on every example (recorded from fresh
 * processes by scripts/openrpc-examples/record.ts), each answer equal to the example's result; its
 * json-schema-faker rule calls every method with params generated from the param schemas: every
 * result must match its result schema, and every refusal must be an error the method documents (the
 * faker rule counts any error as a failure, since it has no notion of documented errors).
 */
import { isDeepStrictEqual } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEnclave, startEnclave } from "../../enclave/test/enclave-process.js";
import { hostArgs, type RunningHost, startHost } from "../host/spawn-host.js";
import { type NodeProcess, startNodeProcess } from "../node/spawn-node.js";
import { published, runCoverage, undocumentedFailures } from "./coverage-support.js";

let node: NodeProcess;
let enclave: RunningEnclave;
let host: RunningHost;
beforeAll(async () => {
  [node, enclave] = await Promise.all([
    startNodeProcess({ blockTimeMs: 1000, flashblockIntervalMs: 100 }),
    startEnclave(),
  ]);
  if (enclave.address.kind !== "unix") throw new Error("expected a Unix socket enclave");
  host = await startHost(hostArgs({ enclaves: [enclave.address.path] }));
}, 60_000);
afterAll(async () => {
  await Promise.all([node?.stop(), host?.stop()]);
  await enclave?.stop();
});

describe("@open-rpc/test-coverage on the published documents", () => {
  for (const id of ["node", "prover"] as const) {
    it(`${id}: every example matches, every other call is served per schema or refused as documented`, async () => {
      const document = published(id, id === "node" ? node.url : host.url);
      // The default rules: examples for methods that have them, json-schema-faker params for the rest.
      const calls = await runCoverage(document);
      expect(new Set(calls.map((c) => c.methodName)).size).toBe(document.methods.length);
      const examples = calls.filter((c) => c.title.includes("from examples"));
      expect(examples.length).toBe(document.methods.reduce((n, m) => n + (m.examples?.length ?? 0), 0));
      const failedExamples = examples.filter((c) => c.valid !== true);
      expect(failedExamples.map((c) => `${c.title}: ${c.reason}`)).toEqual([]);
      // test-coverage passes an example whose result differs but fits the result schema; the examples
      // are recorded from fresh processes (spec/examples), so each answer must be exactly the example's.
      const differing = examples.filter((c) => !isDeepStrictEqual(c.result, c.expectedResult));
      expect(differing.map((c) => `${c.title}: ${JSON.stringify(c.result)?.slice(0, 300)}`)).toEqual([]);
      expect(undocumentedFailures(document, calls)).toEqual([]);
      // Most calls are served: the schemas describe what the server takes.
      expect(calls.filter((c) => c.valid === true).length).toBeGreaterThan(calls.length / 3);
    }, 180_000);
  }
});
