/**
 * Shared by the test-coverage tests: @open-rpc/test-coverage (the pinned devDependency) loaded with its examples and
 * json-schema-faker rules, the published documents with `servers[0].url` pointed at a started process (the override
 * docs/spec.md describes), and the calls that failed for another reason than an error the method documents.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dereferenceDocument } from "@open-rpc/schema-utils-js";

export interface Call {
  methodName: string;
  params: unknown[];
  valid?: boolean;
  reason?: string;
  error?: { code: number; message: string };
  result?: unknown;
  expectedResult?: unknown;
  title: string;
}
export interface Document {
  servers: { name: string; url: string }[];
  methods: { name: string; errors: { $ref: string }[]; examples?: unknown[] }[];
  components: { errors: Record<string, { code: number }> };
}
type Rule = object;

const require = createRequire(import.meta.url);
const coverage = (
  require("@open-rpc/test-coverage") as {
    default: (options: {
      openrpcDocument: unknown;
      reporters: string[];
      rules: Rule[];
      transport: "http";
    }) => Promise<Call[]>;
  }
).default;
const ExamplesRule = (
  require("@open-rpc/test-coverage/build/rules/examples-rule") as { default: new () => Rule }
).default;
const JsonSchemaFakerRule = (
  require("@open-rpc/test-coverage/build/rules/json-schema-faker-rule") as { default: new () => Rule }
).default;

export function published(id: "node" | "prover", url: string): Document {
  const document = JSON.parse(
    readFileSync(new URL(`../../generated/openrpc/${id}.openrpc.json`, import.meta.url), "utf8"),
  ) as Document;
  document.servers[0]!.url = url;
  return document;
}

/** Calls that failed for another reason than an error the method documents. */
export function undocumentedFailures(document: Document, calls: Call[]): string[] {
  const documented = new Map(
    document.methods.map((m) => [
      m.name,
      new Set(m.errors.map((e) => document.components.errors[e.$ref.split("/").pop() ?? ""]?.code)),
    ]),
  );
  return calls
    .filter((c) => c.valid !== true)
    .filter((c) => c.error === undefined || documented.get(c.methodName)?.has(c.error.code) !== true)
    .map(
      (c) => `${c.methodName}(${JSON.stringify(c.params)}): ${JSON.stringify(c.error) ?? c.reason ?? "?"}`,
    );
}

/** Runs test-coverage's default rules (examples, then json-schema-faker params) as its CLI does. */
export async function runCoverage(document: Document): Promise<Call[]> {
  return coverage({
    // Dereferenced first, as the CLI does (the faker resolves no $ref).
    openrpcDocument: await dereferenceDocument(structuredClone(document) as never),
    reporters: ["empty"],
    rules: [new ExamplesRule(), new JsonSchemaFakerRule()],
    transport: "http",
  });
}
