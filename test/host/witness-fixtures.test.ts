/**
 * The witness parsers against the answers real clients give, captured as fixtures in their shapes
 * (test/host/fixtures/witness/README.md names each client source): reth's `debug_executionWitness` lists, geth's
 * ExtWitness (JSON headers, no `keys`), op-geth's 2024 map form, and reth's `debug_dbGet` answers and refusals.
 *
 * - every form parses, to the same values, each keyed by its own keccak256: the parent header hashes to its
 *   recorded hash, the account with code reads from the header's state root, its code and a storage slot follow;
 * - a tampered fixture is refused: a JSON header whose field changed and a map value under another hash by the
 *   parser; a changed trie node in reth's form (which carries no claim of its own) by the trie walk, which misses it;
 * - reth's debug_dbGet: code by `0x63 ‖ codeHash`, null for unknown code, and its refusals of any other key read as
 *   "no value" by the host's reads and by the db-get probe, which then names the refusal.
 */
import { readFileSync } from "node:fs";
import { RLP } from "@ethereumjs/rlp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bigIntToWord,
  decodeHeader,
  FastTrie,
  fromHex,
  keccak256,
  MissingPreimageError,
  PreimageStore,
  toHex,
} from "../../src/chain/index.js";
import {
  DataMismatchError,
  JsonRpcClient,
  parseExecutionWitness,
  type ParsedWitness,
  witnessValues,
} from "../../src/chain-rpc/index.js";
import { startTamperProxy, type TamperProxy } from "../../src/chain-rpc/proxy.test-support.js";
import type { RollupConfig } from "../../src/chain/index.js";
import { chooseWitnessStrategy, NoWitnessStrategyError } from "../../src/host/index.js";
import { codeByHash, valueByBareHash } from "../../src/host/witness/l2-reads.js";

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`./fixtures/witness/${name}`, import.meta.url), "utf8")) as unknown;
const result = (name: string) => (fixture(name) as { result: Record<string, unknown> }).result;

/** What the fixtures were made of (printed by fixtures/witness/generate.ts). */
const PARENT_HASH = "0x4eb943273fa3664015e32c73697ff306eb74d0fc586aea147f988a0995415df3";
const STATE_ROOT = "0xb0a7329b50e3db3b33df389a12a7f9d22478d9267991c827a533c0b7250e60a2";
const CODE_HASH = "0x9f0e235aad4d341018fb4ffbbacf74cad3e152ba1b84c5002335e7897be5a405";
const ACCOUNT = "0x64676a6d707376797c7f8285888b8e9194979a9d";

const FORMS = [
  ["reth-execution-witness.json", "reth"],
  ["geth-execution-witness.json", "geth"],
  ["op-geth-execution-witness.json", "map"],
] as const;

/** The witness's values in a store keyed by their own keccak256. */
function storeOf(witness: ParsedWitness): PreimageStore {
  const store = new PreimageStore();
  for (const value of witnessValues(witness)) store.putKeccak256(value);
  return store;
}

/** The account's fields, read from `root` through the trie over `store`. */
function account(store: PreimageStore, root: Uint8Array, address: string) {
  const trie = new FastTrie({
    getNode: (hash) => store.get(keccak256KeyOf(hash)),
    putNode() {},
  });
  const leaf = trie.get(root, keccak256(fromHex(address)));
  if (leaf === undefined) throw new Error("no such account");
  const [nonce, balance, storageRoot, codeHash] = RLP.decode(leaf) as Uint8Array[];
  return { nonce: nonce!, balance: balance!, storageRoot: storageRoot!, codeHash: codeHash!, trie };
}
const keccak256KeyOf = (hash: Uint8Array) => Uint8Array.of(2, ...hash.subarray(1));

describe("debug_executionWitness answers in each client's form", () => {
  const parsed = new Map(FORMS.map(([file, form]) => [form, parseExecutionWitness(result(file), form)]));

  it.each(FORMS)("%s parses as the %s form", (_file, form) => {
    expect(parsed.get(form)!.form).toBe(form);
  });

  it("reth's keys are the preimages of the hashed keys; geth's and op-geth's carry none", () => {
    expect(parsed.get("reth")!.keys.map(toHex)).toContain(ACCOUNT);
    expect(parsed.get("geth")!.keys).toEqual([]);
    expect(parsed.get("map")!.keys).toEqual([]);
  });

  it("the three forms hold the same values", () => {
    const sorted = (w: ParsedWitness) => witnessValues(w).map(toHex).sort();
    expect(sorted(parsed.get("geth")!)).toEqual(sorted(parsed.get("reth")!));
    expect(sorted(parsed.get("map")!)).toEqual(sorted(parsed.get("reth")!));
  });

  it.each(FORMS)(
    "%s: the parent header hashes to its hash, and the state under its root reads",
    (_file, form) => {
      const witness = parsed.get(form)!;
      const store = storeOf(witness);
      const parent = decodeHeader(store.get(keccak256KeyOf(fromHex(PARENT_HASH))));
      expect(toHex(parent.stateRoot)).toBe(STATE_ROOT);
      const { codeHash, storageRoot, trie } = account(store, parent.stateRoot, ACCOUNT);
      expect(toHex(codeHash)).toBe(CODE_HASH);
      expect(toHex(keccak256(store.get(keccak256KeyOf(codeHash))))).toBe(CODE_HASH);
      const slot = trie.get(storageRoot, keccak256(bigIntToWord(7n)));
      expect(toHex(RLP.decode(slot!) as Uint8Array)).toBe("0x123b");
    },
  );
});

describe("a tampered answer is refused", () => {
  it("geth's form: a JSON header whose field changed no longer hashes to its hash", () => {
    const answer = structuredClone(result("geth-execution-witness.json")) as {
      headers: Record<string, string>[];
    };
    answer.headers[0]!.gasUsed = "0x1";
    expect(() => parseExecutionWitness(answer, "geth")).toThrow(DataMismatchError);
  });

  it("op-geth's map form: a value under another value's hash, and a changed JSON header", () => {
    const answer = result("op-geth-execution-witness.json") as {
      state: Record<string, string>;
      headers: Record<string, string>[];
    };
    const [first, second] = Object.keys(answer.state);
    const swapped = { ...answer, state: { ...answer.state, [first!]: answer.state[second!] } };
    expect(() => parseExecutionWitness(swapped, "map")).toThrow(DataMismatchError);
    const headers = structuredClone(answer.headers);
    headers[1]!.timestamp = "0x1";
    expect(() => parseExecutionWitness({ ...answer, headers }, "map")).toThrow(DataMismatchError);
  });

  it("reth's form: a changed trie node stands only for its own hash, so the state walk misses the original", () => {
    const answer = structuredClone(result("reth-execution-witness.json")) as { state: string[] };
    const at = answer.state.findIndex((node) => toHex(keccak256(fromHex(node))) === STATE_ROOT);
    expect(at).toBeGreaterThanOrEqual(0);
    const node = answer.state[at]!;
    answer.state[at] = `${node.slice(0, -2)}${node.endsWith("00") ? "01" : "00"}`;
    const store = storeOf(parseExecutionWitness(answer, "reth"));
    expect(() => account(store, fromHex(STATE_ROOT), ACCOUNT)).toThrow(MissingPreimageError);
  });
});

describe("reth's debug_dbGet answers", () => {
  const exchanges = fixture("reth-db-get.json") as { params: unknown[]; response: Record<string, unknown> }[];
  let endpoint: TamperProxy;
  let client: JsonRpcClient;
  const asked: unknown[] = [];

  beforeAll(async () => {
    endpoint = await startTamperProxy("");
    endpoint.rpc = async (request) => {
      asked.push(request);
      switch (request.method) {
        case "debug_dbGet": {
          // A key of another length or prefix than any recorded one gets reth's length refusal.
          const exchange = exchanges.find((e) => e.params[0] === request.params[0]);
          const key = String(request.params[0]);
          if (exchange !== undefined) return exchange.response;
          return {
            jsonrpc: "2.0",
            error: { code: -32602, message: `Key must be 33 bytes, got ${(key.length - 2) / 2}` },
          };
        }
        // reth's answers to the other strategies' probes (docs/node-surfaces.md cites each source).
        case "eth_blockNumber":
          return { jsonrpc: "2.0", result: "0x1232" };
        case "eth_getBlockByNumber":
          return { jsonrpc: "2.0", result: { number: "0x1232", stateRoot: STATE_ROOT } };
        case "eth_getProof":
          return {
            jsonrpc: "2.0",
            error: { code: -32602, message: "distance to target block exceeds maximum proof window" },
          };
        default:
          return { jsonrpc: "2.0", error: { code: -32601, message: "Method not found" } };
      }
    };
    client = new JsonRpcClient(endpoint.url);
  });
  afterAll(async () => {
    await endpoint?.close();
  });

  it("code by 0x63 ‖ codeHash; null for code it does not have", async () => {
    const code = await codeByHash(client, fromHex(CODE_HASH));
    expect(code === undefined ? undefined : toHex(keccak256(code))).toBe(CODE_HASH);
    const unknown = exchanges[1]!.params[0] as string;
    expect(await codeByHash(client, fromHex(`0x${unknown.slice(4)}`))).toBeUndefined();
  });

  it("a bare hash, another prefix and bad hex are refused with reth's texts, read as no value", async () => {
    expect(await valueByBareHash(client, fromHex(STATE_ROOT))).toBeUndefined();
    for (const { params, response } of exchanges.slice(2)) {
      const reply = (await (
        await fetch(endpoint.url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "debug_dbGet", params }),
        })
      ).json()) as { error: { code: number; message: string } };
      expect(reply.error).toEqual(response.error);
    }
    await expect(client.call("debug_dbGet", [exchanges[3]!.params[0]])).rejects.toThrow(
      "debug_dbGet failed with code -32602: Key prefix must be 0x63",
    );
  });

  it("the db-get probe reads reth's refusal as no trie node by hash, and auto names every refusal", async () => {
    const error = await chooseWitnessStrategy("auto", {
      client,
      rollupConfig: {} as RollupConfig,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoWitnessStrategyError);
    expect((error as NoWitnessStrategyError).details).toMatchObject({
      url: endpoint.url,
      tried: {
        debug_executePayload: "debug_executePayload failed with code -32601: Method not found",
        debug_executionWitness: "debug_executionWitness failed with code -32601: Method not found",
        eth_getProof:
          "eth_getProof failed with code -32602: distance to target block exceeds maximum proof window",
        debug_dbGet: "debug_dbGet does not answer a trie node by its hash",
      },
    });
    expect(asked).toContainEqual({ method: "debug_dbGet", params: [STATE_ROOT] });
  });
});
