/**
 * Witness strategies (docs/proof.md "Witness collection"): where the host gets the L2 state a block's execution
 * reads. Each strategy answers the same two questions, and every value it answers is keyed by its own keccak256
 * by the oracle, so no strategy can make a value stand for another:
 *
 * - `blockWitness(n)`: the values executing L2 block n on its parent reads (fetched ahead, concurrently);
 * - `valueByHash(h)`: one value by its keccak256, for what a block witness lacked.
 *
 * | strategy | block witness | by hash | clients |
 * | --- | --- | --- | --- |
 * | `execute-payload` | `debug_executePayload(parentHash, attributes)` | code: `debug_dbGet(0x63‖h)` | Base's node, op-reth |
 * | `execution-witness` | `debug_executionWitness(n)` (reth's lists, geth's ExtWitness, the map form) | code: as above | reth, op-reth, geth ≥ 1.16.4, op-geth |
 * | `proofs` | the block executed here, every account and slot it reads fetched with `eth_getProof` at the parent | code: as above, else `eth_getCode` | reth with `--rpc.eth-proof-window`, archive geth |
 * | `db-get` | nothing ahead | `debug_dbGet(h)` by bare hash | this project's node (`--rpc-surface full`), hash-scheme geth archives |
 *
 * `auto` probes the endpoint once (cheap calls that a client lacking the method refuses with -32601) and takes
 * the first strategy in that order that answers.
 */
import { type PayloadAttributes, type RollupConfig, fromHex } from "../../chain/index.js";
import {
  ChainRpcError,
  EndpointUnavailableError,
  type JsonRpcClient,
  RemoteCallError,
  RpcL2Provider,
  parseExecutionWitness,
  witnessValues,
} from "../../chain-rpc/index.js";
import { debug_executePayload } from "../../../generated/rpc/index.js";
import { HostError } from "../errors.js";
import { codeByHash, payloadAttributesOf, valueByBareHash } from "./l2-reads.js";
import { ProofsExecutor } from "./proofs.js";
import { DispatchOrder } from "./requests.js";

/** The strategies, in the order `auto` tries them. */
export const WITNESS_STRATEGIES = ["execute-payload", "execution-witness", "proofs", "db-get"] as const;
export type WitnessStrategyName = (typeof WITNESS_STRATEGIES)[number];
export type WitnessStrategyChoice = "auto" | WitnessStrategyName;
export const WITNESS_STRATEGY_CHOICES: readonly WitnessStrategyChoice[] = ["auto", ...WITNESS_STRATEGIES];

/** The method each strategy needs (what a start-up refusal names). */
export const STRATEGY_METHODS: Readonly<Record<WitnessStrategyName, string>> = {
  "execute-payload": "debug_executePayload",
  "execution-witness": "debug_executionWitness",
  proofs: "eth_getProof",
  "db-get": "debug_dbGet",
};

/** The L2 state source of one strategy (see the table above). */
export interface L2StateSource {
  readonly name: WitnessStrategyName;
  /** False when `blockWitness` never fetches anything (db-get): the oracle then fetches nothing ahead. */
  readonly prefetches: boolean;
  /** Values (unchecked: the oracle keys each by its keccak256) that executing L2 block `number` reads. */
  blockWitness(number: bigint): Promise<Uint8Array[]>;
  /**
   * Values (unchecked) that building the payload `attributes` and `transactions` on the block `parentHash` reads,
   * for a caller that has the payload already (a derived block): the block itself is not fetched. Only a strategy
   * whose method takes a payload (execute-payload) has it.
   */
  payloadWitness?(
    parentHash: Uint8Array,
    attributes: PayloadAttributes,
    transactions: readonly Uint8Array[],
  ): Promise<Uint8Array[]>;
  /** The value whose keccak256 is `hash`, or undefined when the endpoint has none (unchecked). */
  valueByHash(hash: Uint8Array): Promise<Uint8Array | undefined>;
}

/** The L2 endpoint supports none of the strategies (or not the one forced). */
export class NoWitnessStrategyError extends HostError<"config"> {
  override readonly name = "NoWitnessStrategyError";
  constructor(message: string, details: { readonly url: string; readonly tried: Record<string, string> }) {
    super(message, { kind: "config", details });
  }
}

/** What an operator turns on for each method. */
const ENABLE_HINTS =
  "enable one: reth/op-reth serve debug_executionWitness (and Base's node debug_executePayload) with the debug " +
  "namespace on (--http.api ...,debug); reth answers eth_getProof on past blocks only within " +
  "--rpc.eth-proof-window (default 0); geth and op-geth need an archive node (--gcmode archive --state.scheme " +
  "hash for debug_dbGet by hash) and the debug namespace (--http.api ...,debug)";

const quantity = (n: bigint): string => `0x${n.toString(16)}`;

export interface StrategyContext {
  readonly client: JsonRpcClient;
  readonly rollupConfig: RollupConfig;
}

function executionWitnessSource({ client }: StrategyContext): L2StateSource {
  return {
    name: "execution-witness",
    prefetches: true,
    async blockWitness(number) {
      const answer = await client.call("debug_executionWitness", [quantity(number)]);
      return witnessValues(parseExecutionWitness(answer, "debug_executionWitness"));
    },
    valueByHash: (hash) => codeByHash(client, hash),
  };
}

/** debug_executePayload's params: the payload built on `parentHash`, as the engine API's attributes. */
function executePayloadParams(
  parentHash: Uint8Array,
  attributes: PayloadAttributes,
  transactions: readonly Uint8Array[],
): unknown[] {
  return debug_executePayload.encodeParams({
    parentHash,
    attributes: { ...attributes, withdrawals: [], transactions: [...transactions], noTxPool: true },
  });
}

async function payloadWitnessValues(answer: Promise<unknown>): Promise<Uint8Array[]> {
  return witnessValues(parseExecutionWitness(await answer, "debug_executePayload"));
}

function executePayloadSource({ client, rollupConfig }: StrategyContext): L2StateSource {
  const blocks = new RpcL2Provider(client.url, client.limits);
  // The blocks are fetched ahead several at once; their executions are asked for in block order (see DispatchOrder).
  const order = new DispatchOrder();
  return {
    name: "execute-payload",
    prefetches: true,
    async blockWitness(number) {
      const turn = order.take();
      try {
        const block = await blocks.blockByNumber(number);
        if (block === undefined) return [];
        const params = executePayloadParams(
          block.header.parentHash,
          payloadAttributesOf(rollupConfig, block.header),
          block.transactions,
        );
        await turn.ready;
        const answer = client.call("debug_executePayload", params);
        turn.done();
        return await payloadWitnessValues(answer);
      } finally {
        turn.done();
      }
    },
    payloadWitness: (parentHash, attributes, transactions) =>
      payloadWitnessValues(
        client.call("debug_executePayload", executePayloadParams(parentHash, attributes, transactions)),
      ),
    valueByHash: (hash) => codeByHash(client, hash),
  };
}

function proofsSource(context: StrategyContext): L2StateSource {
  const executor = new ProofsExecutor(context.client, context.rollupConfig);
  return {
    name: "proofs",
    prefetches: true,
    blockWitness: (number) => executor.blockWitness(number),
    valueByHash: (hash) => codeByHash(context.client, hash),
  };
}

/** db-get: nothing ahead, every miss by its bare hash (this project's node). */
export function dbGetSource(client: JsonRpcClient): L2StateSource {
  return {
    name: "db-get",
    prefetches: false,
    async blockWitness() {
      return [];
    },
    valueByHash: (hash) => valueByBareHash(client, hash),
  };
}

export function stateSource(name: WitnessStrategyName, context: StrategyContext): L2StateSource {
  switch (name) {
    case "execute-payload":
      return executePayloadSource(context);
    case "execution-witness":
      return executionWitnessSource(context);
    case "proofs":
      return proofsSource(context);
    case "db-get":
      return dbGetSource(context.client);
  }
}

/** A method is served unless the client says it does not exist (-32601). */
async function served(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
    return "ok";
  } catch (error) {
    if (error instanceof RemoteCallError) return error.code === -32601 ? error.message : "ok";
    throw error;
  }
}

const ZERO_HASH = `0x${"00".repeat(32)}`;
const ZERO_ADDRESS = `0x${"00".repeat(20)}`;

/** Cheap calls that tell whether a strategy's method is served; "ok" or the client's refusal. */
const PROBES: Readonly<Record<WitnessStrategyName, (client: JsonRpcClient) => Promise<string>>> = {
  // An unknown parent: a client with the method answers "no such parent", one without it -32601.
  "execute-payload": (client) =>
    served(() =>
      client.call("debug_executePayload", [
        ZERO_HASH,
        { timestamp: "0x1", prevRandao: ZERO_HASH, suggestedFeeRecipient: ZERO_ADDRESS, gasLimit: "0x1" },
      ]),
    ),
  // A block far past any head: "not found" from a client with the method.
  "execution-witness": (client) => served(() => client.call("debug_executionWitness", [quantity(2n ** 48n)])),
  // A proof one block behind the head (reth's default window of 0 refuses it).
  proofs: async (client) => {
    const head = (await client.call("eth_blockNumber", [])) as unknown;
    if (typeof head !== "string" || !/^0x[0-9a-fA-F]{1,16}$/.test(head))
      return "eth_blockNumber is not a quantity";
    const at = BigInt(head) > 0n ? BigInt(head) - 1n : 0n;
    const proof = (await client.call("eth_getProof", [ZERO_ADDRESS, [], quantity(at)])) as {
      accountProof?: unknown;
    };
    return Array.isArray(proof?.accountProof) ? "ok" : "eth_getProof answered without an account proof";
  },
  // The head's state root by its bare hash: only a hash-keyed trie database answers it.
  "db-get": async (client) => {
    const head = (await client.call("eth_getBlockByNumber", ["latest", false])) as { stateRoot?: unknown };
    if (typeof head?.stateRoot !== "string") return "eth_getBlockByNumber answered no state root";
    const root = fromHex(head.stateRoot);
    if ((await valueByBareHash(client, root)) === undefined)
      return "debug_dbGet does not answer a trie node by its hash";
    return "ok";
  },
};

export interface ChosenStrategy {
  readonly source: L2StateSource;
  /** The probe's outcome per strategy tried ("ok" or the client's refusal); empty when forced. */
  readonly probed: Readonly<Record<string, string>>;
  readonly forced: boolean;
}

/**
 * The strategy for `choice`: a forced one as is, `auto` the first whose probe answers. None: a
 * NoWitnessStrategyError naming the methods tried, their refusals and the client flags that enable them. A
 * network failure is thrown as is (the caller may try again later).
 */
export async function chooseWitnessStrategy(
  choice: WitnessStrategyChoice,
  context: StrategyContext,
): Promise<ChosenStrategy> {
  if (choice !== "auto") return { source: stateSource(choice, context), probed: {}, forced: true };
  const probed: Record<string, string> = {};
  for (const name of WITNESS_STRATEGIES) {
    let outcome: string;
    try {
      outcome = await PROBES[name](context.client);
    } catch (error) {
      // A refusal or an answer of the wrong shape rules the strategy out; no answer at all is thrown.
      if (error instanceof EndpointUnavailableError || !(error instanceof ChainRpcError)) throw error;
      outcome = error.message;
    }
    probed[STRATEGY_METHODS[name]] = outcome;
    if (outcome === "ok") return { source: stateSource(name, context), probed, forced: false };
  }
  const tried = Object.entries(probed)
    .map(([method, outcome]) => `${method} (${outcome})`)
    .join(", ");
  throw new NoWitnessStrategyError(
    `the L2 endpoint ${context.client.url} serves no witness strategy: tried ${tried}; ${ENABLE_HINTS}`,
    { url: context.client.url, tried: probed },
  );
}
