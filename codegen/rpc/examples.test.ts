/** Recorded examples (spec/examples) merged into the spec: by position, checked against the methods. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ExamplesError } from "../errors.js";
import { mergeRecordedExamples, readRecordedExamples, type RecordedExamples } from "./examples.js";
import type { MethodDecl, RpcSpec } from "./model.js";

const method: MethodDecl = {
  name: "eth_getBalance",
  paramStructure: "by-position",
  params: [
    { name: "address", required: true, type: { kind: "ref", name: "Address" } },
    { name: "block", required: false, type: { kind: "string" } },
  ],
  result: { name: "balance", type: { kind: "string" } },
  errors: [],
  examples: [{ name: "from TypeSpec", params: [], result: "0x0" }],
};
const spec: RpcSpec = {
  decls: [],
  errors: [],
  services: [{ id: "node", title: "node", version: "0.1.0", servers: [], methods: [method] }],
};
const merge = (methods: RecordedExamples["methods"]): RpcSpec =>
  mergeRecordedExamples(spec, (id) => (id === "node" ? { recordedBy: "test", methods } : undefined));

describe("mergeRecordedExamples", () => {
  it("appends recorded examples after the TypeSpec ones, naming positional params", () => {
    const merged = merge({
      eth_getBalance: [
        { name: "latest omitted", params: ["0x01"], result: "0x1" },
        { name: "at genesis", params: ["0x01", "0x0"], result: "0x2" },
      ],
    });
    expect(merged.services[0]!.methods[0]!.examples).toEqual([
      { name: "from TypeSpec", params: [], result: "0x0" },
      { name: "latest omitted", params: [{ name: "address", value: "0x01" }], result: "0x1" },
      {
        name: "at genesis",
        params: [
          { name: "address", value: "0x01" },
          { name: "block", value: "0x0" },
        ],
        result: "0x2",
      },
    ]);
  });

  it("refuses examples that do not fit their method", () => {
    expect(() => merge({ eth_nothing: [] })).toThrow(ExamplesError);
    expect(() => merge({ eth_getBalance: [{ name: "none", params: [], result: "0x0" }] })).toThrow(
      /required param address is missing/,
    );
    expect(() =>
      merge({ eth_getBalance: [{ name: "three", params: ["0x01", "0x0", 1], result: "0x0" }] }),
    ).toThrow(/3 params, the method takes 2/);
  });
});

describe("readRecordedExamples", () => {
  const dir = `${mkdtempSync(join(tmpdir(), "examples-test-"))}/`;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads a service's file, none when absent, and refuses a malformed one", () => {
    expect(readRecordedExamples("absent", dir)).toBeUndefined();
    writeFileSync(`${dir}ok.examples.json`, JSON.stringify({ recordedBy: "x", methods: { m: [] } }));
    expect(readRecordedExamples("ok", dir)).toEqual({ recordedBy: "x", methods: { m: [] } });
    writeFileSync(
      `${dir}bad.examples.json`,
      JSON.stringify({ recordedBy: "x", methods: { m: [{ name: "n" }] } }),
    );
    expect(() => readRecordedExamples("bad", dir)).toThrow(/expected a list of \{name, params, result\}/);
    writeFileSync(`${dir}text.examples.json`, "not json");
    expect(() => readRecordedExamples("text", dir)).toThrow(ExamplesError);
  });

  it("the committed files are recorded by the script and name methods of the spec", () => {
    for (const id of ["node", "prover"]) {
      const recorded = readRecordedExamples(id);
      expect(recorded?.recordedBy).toBe("npx tsx scripts/openrpc-examples/record.ts");
      expect(Object.keys(recorded?.methods ?? {}).length).toBeGreaterThan(0);
    }
  });
});
