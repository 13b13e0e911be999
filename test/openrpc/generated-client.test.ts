/**
 * A third party generates a TypeScript client from the published documents with
 * @open-rpc/generator (the pinned devDependency, run through its CLI exactly as docs/spec.md says),
 * the client compiles under `strict` with our TypeScript, its types are our TypeSpec models (code using
 * them type-checks, misuse does not), and it calls a real node.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpc } from "../node/helpers.js";
import { type NodeProcess, startNodeProcess } from "../node/spawn-node.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = join(ROOT, "node_modules", ".bin");

/** The generated client's class, as far as this test uses it. */
interface GeneratedNodeClient {
  eth_getBlockByNumber(block: string, full: boolean): Promise<Record<string, unknown> | null>;
  eth_getBalance(address: string, block?: string): Promise<string>;
  eth_chainId(): Promise<string>;
}
type ClientClass = new (options: {
  transport: { type: "http"; host: string; port: number };
}) => GeneratedNodeClient;

/** Runs the generator CLI on one published document; returns the generated package's directory. */
async function generate(dir: string, id: "node" | "prover"): Promise<string> {
  const config = join(dir, `${id}.config.json`);
  writeFileSync(
    config,
    JSON.stringify({
      openrpcDocument: join(ROOT, "generated", "openrpc", `${id}.openrpc.json`),
      outDir: join(dir, id),
      components: [{ type: "client", name: `${id}-client`, language: "typescript" }],
    }),
  );
  await run(join(BIN, "open-rpc-generator"), ["generate", "-c", config], { cwd: dir, timeout: 120_000 });
  const pkg = join(dir, id, "client", "typescript");
  // The client's dependencies (@open-rpc/client-js, meta-schema, schema-utils-js, lodash) are our
  // devDependencies: resolve them from our node_modules instead of installing.
  symlinkSync(join(ROOT, "node_modules"), join(pkg, "node_modules"), "dir");
  // The client is compiled against the versions it pins (a third party's `npm install` gets these):
  // meta-schema 1.14.2 types `openrpc` as a 1.2.x literal, so a 1.3 document would not compile.
  const pins = (
    JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as { dependencies: Record<string, string> }
  ).dependencies;
  for (const name of ["@open-rpc/client-js", "@open-rpc/meta-schema"]) {
    const installed = JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")) as {
      version: string;
    };
    expect(installed.version, name).toBe(pins[name]);
  }
  return pkg;
}

/**
 * Compiles `files` (relative to `root`) in one tsc program with our TypeScript, strict, to CommonJS in
 * `root`/build/; returns tsc's output. One program per set of documents: each tsc start loads the standard library
 * and Node's types again, which cost more than the generated files themselves.
 */
async function compile(
  root: string,
  name: string,
  files: string[],
  types: string[] = ["node"],
): Promise<string> {
  const config = `tsconfig.${name}.json`;
  writeFileSync(
    join(root, config),
    JSON.stringify({
      compilerOptions: {
        module: "commonjs",
        target: "es2020",
        strict: true,
        noImplicitReturns: true,
        esModuleInterop: true,
        resolveJsonModule: true,
        types,
        outDir: "build",
      },
      files,
    }),
  );
  try {
    const { stdout } = await run(join(BIN, "tsc"), ["-p", config], { cwd: root, timeout: 180_000 });
    return stdout;
  } catch (error) {
    const { stdout } = error as { stdout?: string };
    throw new Error(`tsc failed in ${root} (${files.join(", ")}):\n${stdout ?? String(error)}`, {
      cause: error,
    });
  }
}

/** Code a third party writes against the node client: must type-check as it is. */
const USE_NODE_CLIENT = `
import { OPStackChainNodeJSONRPC, BlockCount, BlockNumberOrTag, Block, FeeHistory } from "./src/index";

export async function use(client: OPStackChainNodeJSONRPC): Promise<void> {
  const count: BlockCount = 4; // a JSON number is a block count (eth_feeHistory(4, ...) as viem sends it)
  const tag: BlockNumberOrTag = "pending";
  const history: FeeHistory = await client.eth_feeHistory(count, tag, [25, 75]);
  const oldest: string = history.oldestBlock;
  const block = await client.eth_getBlockByNumber("pending", true);
  if (block !== null) {
    const b: Block = block;
    const txs: unknown[] = b.transactions;
    void txs;
  }
  const balance: string = await client.eth_getBalance("0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", "pending");
  void oldest;
  void balance;
  // Misuse does not type-check: the types are not \`any\`.
  // @ts-expect-error an address is a string
  await client.eth_getBalance(1, "pending");
  // @ts-expect-error fullTransactions is a boolean
  await client.eth_getBlockByNumber("latest", "yes");
  // @ts-expect-error eth_feeHistory's percentiles are numbers
  await client.eth_feeHistory(4, "latest", ["25"]);
}
`;

/** The typings name the method signatures and our models. */
const USE_NODE_TYPES = `
import type { EthFeeHistory, EthGetBalance, Block, FilterAddress, FeeHistory } from "./index";
declare const feeHistory: EthFeeHistory;
declare const getBalance: EthGetBalance;
export const history: Promise<FeeHistory> = feeHistory(4, "latest", [25, 75]);
export const balance: Promise<string> = getBalance("0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", "pending");
export const one: FilterAddress = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
export const many: FilterAddress = [one];
export const fields: (keyof Block)[] = ["number", "hash", "transactions", "parentBeaconBlockRoot"];
// @ts-expect-error an address is a string
export const wrong = getBalance(1, "pending");
`;
const USE_PROVER_TYPES = `
import type { ProverProve, ProofResult } from "./index";
declare const prove: ProverProve;
export const proof: Promise<ProofResult> = prove({} as Parameters<ProverProve>[0]);
`;

let dir: string;
let node: NodeProcess;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "openrpc-client-"));
  // Compiled together from `dir`, the clients find @types/node and, once built, their dependencies here.
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  node = await startNodeProcess({ blockTimeMs: 1000, flashblockIntervalMs: 100 });
}, 60_000);
afterAll(async () => {
  await node?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe("@open-rpc/typings of the published documents", () => {
  it("node and prover: the TypeScript typings compile strictly", async () => {
    const files: string[] = [];
    for (const id of ["node", "prover"] as const) {
      const out = `typings-${id}`;
      await run(
        join(BIN, "open-rpc-typings"),
        ["-d", join(ROOT, "generated", "openrpc", `${id}.openrpc.json`), "--output-ts", join(dir, out)],
        { cwd: dir, timeout: 120_000 },
      );
      writeFileSync(join(dir, out, "use.ts"), id === "node" ? USE_NODE_TYPES : USE_PROVER_TYPES);
      files.push(`${out}/index.ts`, `${out}/use.ts`);
    }
    // Plain types: no dependencies, not even Node's.
    await compile(dir, "typings", files, []);
  }, 300_000);
});

describe("@open-rpc/generator TypeScript clients of the published documents", () => {
  /** The generated packages, relative to `dir`, compiled in one program in beforeAll. */
  const pkgs = { prover: "", node: "" };
  beforeAll(async () => {
    for (const id of ["prover", "node"] as const) pkgs[id] = await generate(dir, id);
    writeFileSync(join(pkgs.node, "use.ts"), USE_NODE_CLIENT);
    const relative = (path: string) => path.slice(dir.length + 1);
    await compile(dir, "clients", [
      `${relative(pkgs.prover)}/src/index.ts`,
      `${relative(pkgs.node)}/src/index.ts`,
      `${relative(pkgs.node)}/use.ts`,
    ]);
  }, 600_000);

  it("the prover host's client compiles strictly", () => {
    expect(existsSync(join(dir, "build", pkgs.prover.slice(dir.length + 1), "src", "index.js"))).toBe(true);
    const source = readFileSync(join(pkgs.prover, "src", "index.ts"), "utf8");
    expect(/^export class TEEProverHostJSONRPC\b/m.test(source)).toBe(true);
    expect(source.includes('"servers":[{"name":"devnet","url":"http://127.0.0.1:7300"}]')).toBe(true);
  });

  it("the node's client compiles strictly, is typed by our models, and calls a node", async () => {
    const source = readFileSync(join(pkgs.node, "src", "index.ts"), "utf8");
    // Types named after the TypeSpec models; no type shadowing a built-in (the old "number" titles).
    const declared = (name: string): boolean =>
      new RegExp(`^export (type|interface) ${name}\\b`, "m").test(source);
    const models = ["Block", "BlockCount", "BlockNumberOrTag", "FilterAddress", "Transaction", "Receipt"];
    expect(models.filter((name) => !declared(name))).toEqual([]);
    expect(["Number", "String", "Boolean", "Object"].filter(declared)).toEqual([]);
    // The address list is a list of addresses (it was Hash32[] when two unions shared a variant title).
    expect(/^export type FilterAddressOneOf = Address\[\];$/m.test(source)).toBe(true);
    expect(/^export type BlockCount = .*\bBlockCountNumber\b/m.test(source)).toBe(true);
    expect(/^export type BlockCountNumber = number;$/m.test(source)).toBe(true);

    const built = join(dir, "build", pkgs.node.slice(dir.length + 1), "src", "index.js");
    const { OPStackChainNodeJSONRPC } = createRequire(built)(built) as {
      OPStackChainNodeJSONRPC: ClientClass;
    };
    const url = new URL(node.url);
    const client = new OPStackChainNodeJSONRPC({
      transport: { type: "http", host: url.hostname, port: Number(url.port) },
    });
    expect(await client.eth_chainId()).toBe(`0x${node.chainId.toString(16)}`);
    const block = await client.eth_getBlockByNumber("pending", true);
    expect(block).not.toBeNull();
    expect(block?.number).toMatch(/^0x[0-9a-f]+$/);
    expect(Array.isArray(block?.transactions)).toBe(true);
    // Full transactions: the L1 attributes deposit (type 0x7e) comes first in every block.
    expect((block?.transactions as { type: string }[])[0]?.type).toBe("0x7e");
    const account = node.accounts[0]?.address ?? "";
    const balance = await client.eth_getBalance(account, "pending");
    const direct = await rpc(node.url, "eth_getBalance", [account, "pending"]);
    expect(balance).toBe(direct.body?.result);
    expect(BigInt(balance)).toBeGreaterThan(0n);
  }, 300_000);
});
