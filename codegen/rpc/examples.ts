/**
 * Recorded examples: `spec/examples/<service>.examples.json`, written by
 * `npx tsx scripts/openrpc-examples/record.ts` from calls to fresh processes (docs/spec.md, "Examples
 * recorded from a fresh devnet"), are merged into the spec's methods, after any `@opExample` of the
 * TypeSpec, so that the published examples are answers a fresh devnet gives, not hand-written values.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ExamplesError } from "../errors.js";
import type { ExampleDecl, MethodDecl, RpcSpec } from "./model.js";

export const EXAMPLES_DIR = fileURLToPath(new URL("../../spec/examples/", import.meta.url));

/** One recorded call: positional params (trailing optional ones left out) and the JSON result. */
export interface RecordedExample {
  readonly name: string;
  readonly params: readonly unknown[];
  readonly result: unknown;
}

/** The file of one service. */
export interface RecordedExamples {
  /** How the file was made (the command), for a reader who finds it. */
  readonly recordedBy: string;
  /** Examples by method name, in the order they were recorded. */
  readonly methods: Readonly<Record<string, readonly RecordedExample[]>>;
}

export const examplesPath = (serviceId: string, dir = EXAMPLES_DIR): string =>
  `${dir}${serviceId}.examples.json`;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Reads and checks the shape of a service's examples file; undefined when there is none. */
export function readRecordedExamples(serviceId: string, dir = EXAMPLES_DIR): RecordedExamples | undefined {
  const path = examplesPath(serviceId, dir);
  if (!existsSync(path)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ExamplesError(`${path}: not JSON`, { details: { path }, cause: error });
  }
  if (!isObject(parsed) || typeof parsed.recordedBy !== "string" || !isObject(parsed.methods))
    throw new ExamplesError(`${path}: expected {recordedBy, methods}`, { details: { path } });
  for (const [method, examples] of Object.entries(parsed.methods)) {
    const ok =
      Array.isArray(examples) &&
      examples.every(
        (e) => isObject(e) && typeof e.name === "string" && Array.isArray(e.params) && "result" in e,
      );
    if (!ok)
      throw new ExamplesError(`${path}: ${method}: expected a list of {name, params, result}`, {
        details: { path, method },
      });
  }
  return parsed as unknown as RecordedExamples;
}

function exampleDecl(method: MethodDecl, example: RecordedExample): ExampleDecl {
  const where = `${method.name} example "${example.name}"`;
  if (example.params.length > method.params.length)
    throw new ExamplesError(
      `${where}: ${example.params.length} params, the method takes ${method.params.length}`,
      {
        details: { method: method.name, example: example.name },
      },
    );
  const missing = method.params.slice(example.params.length).find((p) => p.required);
  if (missing !== undefined)
    throw new ExamplesError(`${where}: the required param ${missing.name} is missing`, {
      details: { method: method.name, example: example.name },
    });
  return {
    name: example.name,
    params: example.params.map((value, i) => ({ name: method.params[i]!.name, value })),
    result: example.result,
  };
}

/** The spec with each service's recorded examples appended to its methods' examples. */
export function mergeRecordedExamples(
  spec: RpcSpec,
  read: (serviceId: string) => RecordedExamples | undefined = readRecordedExamples,
): RpcSpec {
  return {
    ...spec,
    services: spec.services.map((service) => {
      const recorded = read(service.id);
      if (recorded === undefined) return service;
      const unknown = Object.keys(recorded.methods).filter((m) => !service.methods.some((d) => d.name === m));
      if (unknown.length > 0)
        throw new ExamplesError(`${service.id} examples: no such methods: ${unknown.join(", ")}`, {
          details: { service: service.id, methods: unknown },
        });
      return {
        ...service,
        methods: service.methods.map((method) => ({
          ...method,
          examples: [
            ...method.examples,
            ...(recorded.methods[method.name] ?? []).map((e) => exampleDecl(method, e)),
          ],
        })),
      };
    }),
  };
}
