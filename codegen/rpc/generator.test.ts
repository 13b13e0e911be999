/** The generator refuses specs it cannot faithfully compile and documents that are not valid OpenRPC. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileTypeSpec, readSpec, SpecError } from "./compile.js";
import {
  buildOpenRpcDocument,
  InvalidOpenRpcDocumentError,
  type OpenrpcDocument,
  validateOpenRpc,
} from "./openrpc.js";

const LIB = fileURLToPath(new URL("../../spec/typespec/lib/rpc.tsp", import.meta.url));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rpc-spec-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Compiles a small service written against our decorator library. */
async function readSource(body: string): Promise<ReturnType<typeof readSpec>> {
  const main = join(dir, `spec-${Math.random().toString(36).slice(2)}.tsp`);
  await writeFile(
    main,
    `import ${JSON.stringify(LIB)};\nusing Rpc;\nnamespace Test;\n@codec("uint", #{ bits: 64 }) @pattern("^0x(0|[1-9a-f][0-9a-f]{0,15})$") scalar Q extends string;\n${body}\n`,
  );
  return readSpec(await compileTypeSpec(main));
}

describe("reading the TypeSpec", () => {
  it("reads a minimal service", async () => {
    const spec = await readSource(
      `@rpcService("t", "Test", "1") interface Api { /** Adds. */ t_add(a: Q, b?: Q): Q; }`,
    );
    expect(spec.services).toHaveLength(1);
    expect(spec.services[0]?.methods[0]).toMatchObject({
      name: "t_add",
      doc: "Adds.",
      paramStructure: "by-position",
      params: [
        { name: "a", required: true },
        { name: "b", required: false },
      ],
      result: { name: "result", type: { kind: "ref", name: "Q" } },
      errors: [],
    });
  });

  it("fails on TypeSpec diagnostics", async () => {
    await expect(
      readSource(`@rpcService("t", "Test", "1") interface Api { t_x(a: Nope): Q; }`),
    ).rejects.toThrow(SpecError);
  });

  it("fails on a scalar without a wire codec", async () => {
    await expect(
      readSource(
        `scalar Raw extends string;\n@rpcService("t", "Test", "1") interface Api { t_x(a: Raw): Q; }`,
      ),
    ).rejects.toThrow("scalar Raw has no @codec");
  });

  it("fails on a required parameter after an optional one", async () => {
    await expect(
      readSource(`@rpcService("t", "Test", "1") interface Api { t_x(a?: Q, b: Q): Q; }`),
    ).rejects.toThrow("a required parameter follows an optional one");
  });

  it("fails on recursive types, which the codecs cannot express", async () => {
    await expect(
      readSource(`model Node { next?: Node; }\n@rpcService("t", "Test", "1") interface Api { t_x(): Node; }`),
    ).rejects.toThrow("recursive type Node is not supported");
  });
});

describe("constraints", () => {
  it("reads @notTogether groups and bounded numbers", async () => {
    const spec = await readSource(
      [
        `@minValue(0) @maxValue(100) scalar Pct extends float64;`,
        `@minValue(1) scalar Ms extends int32;`,
        `@notTogether(#["a", "b"]) @notTogether(#["gone"]) model M { a?: Q; b?: Q; p?: Pct; }`,
        `@rpcService("t", "Test", "1") interface Api { t_x(m: M, ms?: Ms): Q; }`,
      ].join("\n"),
    );
    const model = spec.decls.find((d) => d.name === "M");
    expect(model).toMatchObject({ kind: "model", notTogether: [["a", "b"], ["gone"]] });
    expect(model?.kind === "model" && model.properties.find((p) => p.name === "p")?.type).toEqual({
      kind: "number",
      minimum: 0,
      maximum: 100,
    });
    expect(spec.services[0]?.methods[0]?.params[1]?.type).toEqual({
      kind: "number",
      integer: true,
      minimum: 1,
    });
    const document = buildOpenRpcDocument(spec, spec.services[0]!);
    expect((document.components?.schemas as Record<string, { not?: unknown }>).M?.not).toEqual({
      anyOf: [{ required: ["a", "b"] }, { required: ["gone"] }],
    });
    await expect(validateOpenRpc(document)).resolves.toBeUndefined();
  });

  it("fails on @notTogether naming undeclared properties, or refusing a declared one", async () => {
    await expect(
      readSource(
        `@notTogether(#["a", "zz"]) model M { a?: Q; }\n@rpcService("t", "Test", "1") interface Api { t_x(m: M): Q; }`,
      ),
    ).rejects.toThrow("@notTogether needs declared properties");
    await expect(
      readSource(
        `@notTogether(#["a"]) model M { a?: Q; }\n@rpcService("t", "Test", "1") interface Api { t_x(m: M): Q; }`,
      ),
    ).rejects.toThrow("refuses a property it declares");
  });

  it("fails on a bound on a codec scalar other than jsonUint", async () => {
    await expect(
      readSource(
        `@codec("bytes") @pattern("^0x([0-9a-f][0-9a-f])*$") @minValue(1) scalar D extends string;\n@rpcService("t", "Test", "1") interface Api { t_x(d: D): Q; }`,
      ),
    ).rejects.toThrow(SpecError);
  });
});

describe("type names", () => {
  it("fails when two types share a name", async () => {
    await expect(
      readSource(
        `namespace A { model Item { a: Q; } }\nnamespace B { model Item { b: Q; } }\n@rpcService("t", "Test", "1") interface Api { t_x(a: A.Item): B.Item; }`,
      ),
    ).rejects.toThrow("two types are named Item");
  });
});

describe("OpenRPC validation", () => {
  async function minimalDocument(): Promise<OpenrpcDocument> {
    const spec = await readSource(`@rpcService("t", "Test", "1") interface Api { t_get(a: Q): Q; }`);
    const [service] = spec.services;
    if (service === undefined) throw new Error("no service");
    return buildOpenRpcDocument(spec, service);
  }

  it("accepts the assembled document", async () => {
    await expect(validateOpenRpc(await minimalDocument())).resolves.toBeUndefined();
  });

  it("rejects a document that breaks the meta-schema", async () => {
    const document = await minimalDocument();
    (document.methods[0] as { params: { required: unknown }[] }).params[0]!.required = "yes";
    await expect(validateOpenRpc(document)).rejects.toThrow(InvalidOpenRpcDocumentError);
  });

  it("rejects a dangling $ref", async () => {
    const document = await minimalDocument();
    (document.components as { schemas: Record<string, unknown> }).schemas = {};
    await expect(validateOpenRpc(document)).rejects.toThrow(InvalidOpenRpcDocumentError);
  });
});
