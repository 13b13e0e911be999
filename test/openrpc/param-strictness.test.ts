/**
 * "Param schemas exactly as strict as the server": a property test over every method of both
 * published documents against a started node and a started prover host with a local enclave.
 *
 * - Params generated FROM the param schemas (schema-arbitrary.ts) are sent as they are: every answer
 *   must be a result valid per the method's result schema, or an error whose code the method lists,
 *   and -32602 (which every method lists) only where the document says why in words
 *   (DOCUMENTED_REFUSALS: rules JSON Schema cannot state, such as two fields being equal).
 * - The same params mutated (a param, a field or a nested value replaced by any JSON value, a field or
 *   param dropped, an extra param): whenever the server refuses them with -32602, they must be
 *   outside the document (more params than listed, or a param invalid per its schema, checked as
 *   @open-rpc/schema-utils-js's MethodCallValidator checks it) or match a documented refusal.
 *
 * Runs RUNS cases per method and direction (PARAM_FUZZ_RUNS overrides; PARAM_FUZZ_SEED replays).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dereferenceDocument } from "@open-rpc/schema-utils-js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEnclave, startEnclave } from "../../enclave/test/enclave-process.js";
import { hostArgs, type RunningHost, startHost } from "../host/spawn-host.js";
import { type NodeProcess, startNodeProcess } from "../node/spawn-node.js";
import { anyJson, arbitraryOf, type JsonSchema } from "./schema-arbitrary.js";

const RUNS = Number(process.env.PARAM_FUZZ_RUNS ?? 10);
const SEED = process.env.PARAM_FUZZ_SEED === undefined ? undefined : Number(process.env.PARAM_FUZZ_SEED);

interface Param {
  name: string;
  required?: boolean;
  description?: string;
  schema: JsonSchema;
}
interface Method {
  name: string;
  description?: string;
  paramStructure?: "by-position" | "by-name" | "either";
  params: Param[];
  result: { schema: JsonSchema };
  errors?: { code: number; message: string }[];
}
interface Document {
  methods: Method[];
}

// The ajv @open-rpc/schema-utils-js validates with (draft-07, as OpenRPC 1.2.6 schemas are).
const schemaUtilsRequire = createRequire(createRequire(import.meta.url).resolve("@open-rpc/schema-utils-js"));
const Ajv = schemaUtilsRequire("ajv") as new (options?: object) => { compile(schema: object): Validate };

function load(id: "node" | "prover"): Document {
  return JSON.parse(
    readFileSync(new URL(`../../generated/openrpc/${id}.openrpc.json`, import.meta.url), "utf8"),
  ) as Document;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Refusals of params the schemas accept, each stated in the document (the phrase must appear in the
 * method's description, a param's or one of its schemas' descriptions): rules JSON Schema cannot say.
 */
const DOCUMENTED_REFUSALS: {
  methods: readonly string[];
  phrase: string;
  applies: (params: unknown[]) => boolean;
}[] = [
  {
    methods: ["eth_call", "eth_estimateGas", "eth_createAccessList"],
    phrase: "different values are InvalidParams",
    applies: ([tx]) =>
      isObject(tx) &&
      typeof tx.input === "string" &&
      typeof tx.data === "string" &&
      tx.input.toLowerCase() !== tx.data.toLowerCase(),
  },
  {
    methods: ["eth_call", "eth_estimateGas", "eth_createAccessList"],
    phrase: "at most 50,000,000",
    applies: ([tx]) => isObject(tx) && typeof tx.gas === "string" && BigInt(tx.gas) > 50_000_000n,
  },
  {
    methods: ["eth_feeHistory"],
    phrase: "a decreasing pair is InvalidParams",
    applies: ([, , percentiles]) =>
      Array.isArray(percentiles) &&
      percentiles.some((p, i) => i > 0 && (p as number) < (percentiles[i - 1] as number)),
  },
  {
    methods: ["eth_getLogs"],
    phrase: "fromBlock resolves after its toBlock is InvalidParams",
    applies: ([filter]) =>
      isObject(filter) && filter.blockHash == null && (filter.fromBlock != null || filter.toBlock != null),
  },
  {
    methods: ["eth_newFilter"],
    phrase: "A fromBlock after the toBlock, both numbers or `earliest` (block 0), is InvalidParams",
    applies: ([filter]) => {
      if (!isObject(filter)) return false;
      const bound = (tag: unknown): bigint | undefined =>
        tag === "earliest"
          ? 0n
          : typeof tag === "string" && /^0x[0-9a-f]+$/i.test(tag)
            ? BigInt(tag)
            : undefined;
      const [from, to] = [bound(filter.fromBlock), bound(filter.toBlock)];
      return from !== undefined && to !== undefined && from > to;
    },
  },
  {
    methods: ["eth_subscribe"],
    phrase: "a filter with another kind is InvalidParams",
    applies: ([kind, filter]) => kind !== "logs" && filter != null,
  },
];

/** The method's descriptions and those of its params' schemas, line breaks as spaces. */
const documentText = (method: unknown): string => JSON.stringify(method).replaceAll("\\n", " ");

function documentedRefusal(method: Method, sent: Params): string | undefined {
  const params = Array.isArray(sent) ? sent : method.params.map((p) => sent[p.name]);
  const text = documentText(method);
  return DOCUMENTED_REFUSALS.find(
    (r) => r.methods.includes(method.name) && r.applies(params) && text.includes(r.phrase),
  )?.phrase;
}

type Validate = ((value: unknown) => boolean) & { errors?: unknown };

/**
 * Why positional params are outside the document, or undefined when the document accepts them: the
 * count, then each param against its schema, as @open-rpc/schema-utils-js's MethodCallValidator does
 * (same ajv, same schemas; that class is not called directly because it builds its error message with
 * `[...].join("")`, which throws on a received object whose `toString` is not a function).
 */
function outsideDocument(
  validators: Map<string, Validate[]>,
  method: Method,
  sent: Params,
): string | undefined {
  if (!Array.isArray(sent)) {
    if (method.paramStructure === "by-position") return "named params to a by-position method";
    const unknown = Object.keys(sent).filter((k) => !method.params.some((p) => p.name === k));
    if (unknown.length > 0) return `no params named ${unknown.join(", ")}`;
  }
  const params = Array.isArray(sent) ? sent : method.params.map((p) => sent[p.name]);
  if (params.length > method.params.length) return `${params.length} params, ${method.params.length} listed`;
  const missing = method.params.find((p, i) => p.required === true && params[i] === undefined);
  if (missing !== undefined) return `required ${missing.name} missing`;
  const checks = validators.get(method.name)!;
  for (let i = 0; i < params.length; i++) {
    if (!checks[i]!(params[i])) return `${method.params[i]!.name}: ${JSON.stringify(checks[i]!.errors)}`;
  }
  return undefined;
}

interface Answer {
  result?: unknown;
  error?: { code: number; message: string };
}

let nextId = 1;
async function call(url: string, method: string, params: Params): Promise<Answer> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }),
  });
  const body = (await response.json()) as Answer & Json;
  if (!("result" in body) && !isObject(body.error))
    throw new Error(`not a JSON-RPC response: ${JSON.stringify(body)}`);
  return body;
}

/** Params as sent: positional, or by name where the method allows it (the prover's "either"). */
type Params = unknown[] | Json;

/** The same params by name: positions become the listed names, any beyond the list get other names. */
function byName(method: Method, params: unknown[]): Json {
  return Object.fromEntries(
    params.flatMap((value, i) =>
      value === undefined ? [] : [[method.params[i]?.name ?? `extra${i}`, value]],
    ),
  );
}

/** Positional params or, for a method that takes either, sometimes the same by name. */
function sendable(method: Method, positional: fc.Arbitrary<unknown[]>): fc.Arbitrary<Params> {
  if (method.paramStructure !== "either") return positional;
  return fc
    .tuple(positional, fc.boolean())
    .map(([params, named]) => (named ? byName(method, params) : params));
}

/** Positional params: the required ones, then a prefix of the optional ones. */
function paramsArbitrary(method: Method): fc.Arbitrary<unknown[]> {
  const required = method.params.filter((p) => p.required === true);
  const optional = method.params.slice(required.length);
  return fc
    .tuple(
      fc.tuple(...required.map((p) => arbitraryOf(p.schema))),
      fc.integer({ min: 0, max: optional.length }),
      fc.tuple(...optional.map((p) => arbitraryOf(p.schema))),
    )
    .map(([req, count, opt]) => [...req, ...opt.slice(0, count)]);
}

/** Replaces a value at least two levels down (picked by `at`) in place; false when there is none. */
function replaceNested(root: unknown, at: number, value: unknown): boolean {
  let container: unknown = root;
  let replaced = false;
  for (let depth = 0, seed = at; depth < 4; depth++, seed = Math.floor(seed / 7) + depth) {
    const keys = Array.isArray(container)
      ? container.map((_, k) => k)
      : isObject(container)
        ? Object.keys(container)
        : [];
    if (keys.length === 0) break;
    const key = keys[seed % keys.length]!;
    const child = (container as Record<string | number, unknown>)[key];
    const deeper =
      (Array.isArray(child) && child.length > 0) || (isObject(child) && Object.keys(child).length > 0);
    if (!deeper || seed % 3 === 0) {
      (container as Record<string | number, unknown>)[key] = value;
      replaced = true;
      break;
    }
    container = child;
  }
  return replaced;
}

/** Params changed in one place: what clients send by mistake. */
function mutated(method: Method): fc.Arbitrary<unknown[]> {
  return fc
    .tuple(paramsArbitrary(method), fc.nat(), anyJson, fc.nat(5), fc.string({ maxLength: 12 }))
    .map(([params, at, value, how, key]) => {
      const out = structuredClone(params);
      const i = out.length === 0 ? 0 : at % out.length;
      const target = out[i];
      switch (how) {
        case 0: // replace a param
          if (out.length > 0) out[i] = value;
          else out.push(value);
          break;
        case 1: // set a field (an existing one or a new one)
          if (isObject(target)) {
            const keys = Object.keys(target);
            target[keys.length > 0 && at % 2 === 0 ? keys[at % keys.length]! : key] = value;
          } else out[i] = value;
          break;
        case 2: // drop a field
          if (isObject(target) && Object.keys(target).length > 0) {
            delete target[Object.keys(target)[at % Object.keys(target).length]!];
          } else out.splice(i, 1);
          break;
        case 3: // drop the last param
          out.pop();
          break;
        case 4: // replace a value nested deeper (a filter's fromBlock, a topic, a list entry)
          if (!replaceNested(target, at, value)) out[i] = value;
          break;
        default: // one more param
          out.push(value);
      }
      return out;
    });
}

function checker(document: Document, url: () => string) {
  const ajv = new Ajv({ allErrors: true });
  const validators = new Map(
    document.methods.map((m) => [m.name, m.params.map((p) => ajv.compile(p.schema))]),
  );
  const results = new Map(document.methods.map((m) => [m.name, ajv.compile(m.result.schema)]));
  return async (method: Method, params: Params): Promise<void> => {
    const answer = await call(url(), method.name, params);
    const outside = outsideDocument(validators, method, params);
    const where = `${method.name}(${JSON.stringify(params).slice(0, 400)})`;
    if (answer.error === undefined) {
      // A result for params outside the schema: the server is more lenient (an optional param as null,
      // upper-case hex), which no client generated from the document sends; not a mismatch.
      if (outside !== undefined) return;
      const valid = results.get(method.name)!;
      if (!valid(answer.result))
        throw new Error(`${where}: result not valid per the schema: ${JSON.stringify(valid.errors)}`);
      return;
    }
    const { code, message } = answer.error;
    const listed = new Set((method.errors ?? []).map((e) => e.code));
    if (!listed.has(code))
      throw new Error(`${where}: error ${code} "${message}" is not listed by the method`);
    if (code === -32602 && outside === undefined && documentedRefusal(method, params) === undefined)
      throw new Error(`${where}: the schema accepts these params but the server refuses them: ${message}`);
  };
}

let node: NodeProcess;
let enclave: RunningEnclave;
let host: RunningHost;
const documents = new Map<"node" | "prover", Document>();
beforeAll(async () => {
  for (const id of ["node", "prover"] as const)
    documents.set(id, (await dereferenceDocument(load(id) as never)) as unknown as Document);
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

for (const id of ["node", "prover"] as const) {
  // The method list is read synchronously (vitest collects the tests before beforeAll runs).
  const methods = load(id).methods.map((m) => m.name);
  describe(`${id}: params as strict as the server`, () => {
    for (const name of methods) {
      it(
        name,
        async () => {
          const document = documents.get(id)!;
          const method = document.methods.find((m) => m.name === name)!;
          const check = checker(document, () => (id === "node" ? node.url : host.url));
          const options = { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) };
          const property = (params: fc.Arbitrary<unknown[]>) =>
            fc.asyncProperty(sendable(method, params), (sent) => check(method, sent));
          await fc.assert(property(paramsArbitrary(method)), options);
          await fc.assert(property(mutated(method)), options);
        },
        120_000,
      );
    }
  });
}

describe("documented refusals", () => {
  it("each phrase appears in the document of every method it names", () => {
    for (const refusal of DOCUMENTED_REFUSALS) {
      for (const name of refusal.methods) {
        const method = [...documents.values()].flatMap((d) => d.methods).find((m) => m.name === name);
        expect(documentText(method), `${name}: "${refusal.phrase}"`).toContain(refusal.phrase);
      }
    }
  });
});
