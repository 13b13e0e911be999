/**
 * --rpc-surface: the node answers the witness-related methods exactly as one real client does, so a
 * prover host can be tested against each client's surface (docs/node-surfaces.md cites each rule's
 * source). `full` is the node's own surface (every method, debug_dbGet by bare hash too); the others
 * replace or refuse methods in the server's method table:
 *
 * - `reth`: paradigmxyz/reth's debug namespace (crates/rpc/rpc/src/debug.rs): debug_dbGet only for
 *   `0x63‖codeHash`, answering the code or null; no debug_executePayload (jsonrpsee's "Method not
 *   found"); eth_getProof only within --rpc-eth-proof-window blocks of the head
 *   (crates/rpc/rpc-eth-api/src/helpers/state.rs).
 * - `base`: Base's node (base/base), reth's rules plus debug_executePayload
 *   (crates/execution/rpc/handlers/src/witness.rs), whose failures are internal errors (-32603).
 * - `geth`: go-ethereum 1.16.4+ / op-geth on the path scheme, archive: debug_executionWitness as
 *   ExtWitness (core/stateless/encoding.go: headers as JSON header objects, parent first; `keys` empty),
 *   no debug_executePayload, debug_dbGet a raw read of geth's key schema (core/rawdb/schema.go: code
 *   under `c‖hash`, headers under `h‖number‖hash`; no trie node under a bare hash), eth_getProof at any
 *   block.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import {
  BlockNotFoundError,
  debug_executePayload as executePayloadSpec,
  debug_executionWitness as executionWitnessSpec,
  eth_getProof as getProofSpec,
} from "../../../generated/rpc/index.js";
import {
  type BlockHeader,
  bytesEqual,
  bytesToBigInt,
  decodeHeader,
  encodeHeader,
  fromHex,
  toHex,
} from "../../chain/index.js";
import { type BoundMethod, InternalError, InvalidParamsError, RpcError } from "../../rpc/index.js";
import type { ChainNode } from "../chain-node.js";
import type { BlockWitness } from "../execution-witness.js";
import type { WitnessService } from "./witness-handlers.js";
import { findSelected } from "./shared.js";

export const RPC_SURFACES = ["full", "reth", "geth", "base"] as const;
export type RpcSurface = (typeof RPC_SURFACES)[number];

export interface SurfaceOptions {
  readonly surface: RpcSurface;
  /** reth's --rpc.eth-proof-window: how far behind the head eth_getProof still answers (reth and base). */
  readonly ethProofWindow: number;
}

export const DEFAULT_SURFACE_OPTIONS: SurfaceOptions = { surface: "full", ethProofWindow: 0 };

/** geth's code key prefix 'c' and header prefix 'h' (core/rawdb/schema.go). */
const CODE_PREFIX = 0x63;
const HEADER_PREFIX = 0x68;

/** A method the client does not serve, refused with that client's code and text. */
function refused(name: string, error: () => RpcError): BoundMethod {
  return {
    name,
    invoke: () => Promise.reject(error()),
  };
}

/** geth's answer to a method it lacks (rpc/errors.go methodNotFoundError). */
const gethMethodNotFound = (name: string) => () =>
  new RpcError(-32601, `the method ${name} does not exist/is not available`);

/** jsonrpsee's answer to a method reth lacks (ErrorCode::MethodNotFound). */
const rethMethodNotFound = () => new RpcError(-32601, "Method not found");

/** The params array a positional call carries (the node takes positional params only). */
function positional(raw: unknown): unknown[] {
  return Array.isArray(raw) ? raw : [];
}

/**
 * debug_dbGet's one param as reth and geth read it: 0x-prefixed hex, else the string's own bytes;
 * undefined for bad hex. `typeError` is the client's answer to a param that is not a string.
 */
function dbKey(raw: unknown, typeError: string): Uint8Array | undefined {
  const key = positional(raw)[0];
  if (typeof key !== "string") throw new InvalidParamsError(typeError);
  if (!key.startsWith("0x")) return new TextEncoder().encode(key);
  try {
    return fromHex(key);
  } catch {
    return undefined;
  }
}

/** The value the store holds under a code hash, if it hashes to it. */
function codeByHash(node: ChainNode, hash: Uint8Array): Uint8Array | undefined {
  const value = node.store.getNodeByHash(hash);
  return value !== undefined && bytesEqual(keccak_256(value), hash) ? value : undefined;
}

/** reth's debug_dbGet: a hex or raw-string key of 33 bytes, 0x63 ‖ code hash; the code or null. */
function rethDbGet(node: ChainNode): BoundMethod {
  return {
    name: "debug_dbGet",
    async invoke(raw) {
      const bytes = dbKey(raw, "invalid type: expected a string");
      if (bytes === undefined) throw new InvalidParamsError("Invalid hex key");
      if (bytes.length !== 33) throw new InvalidParamsError(`Key must be 33 bytes, got ${bytes.length}`);
      if (bytes[0] !== CODE_PREFIX) throw new InvalidParamsError("Key prefix must be 0x63");
      const code = codeByHash(node, bytes.subarray(1));
      return code === undefined ? null : toHex(code);
    },
  };
}

/** geth's debug_dbGet: a raw read of its database; what the node holds under geth's schema is served. */
function gethDbGet(node: ChainNode): BoundMethod {
  const notFound = () => new RpcError(-32000, "pebble: not found");
  return {
    name: "debug_dbGet",
    async invoke(raw) {
      const bytes = dbKey(raw, "invalid argument 0: expected a string");
      if (bytes === undefined) throw new RpcError(-32000, "invalid hex string");
      if (bytes.length === 33 && bytes[0] === CODE_PREFIX) {
        const code = codeByHash(node, bytes.subarray(1));
        if (code === undefined) throw notFound();
        return toHex(code);
      }
      if (bytes.length === 41 && bytes[0] === HEADER_PREFIX) {
        const number = bytesToBigInt(bytes.subarray(1, 9));
        const block = node.store.blockByNumber(number);
        if (block === undefined || !bytesEqual(block.hash, bytes.subarray(9))) throw notFound();
        return toHex(encodeHeader(block.header));
      }
      throw notFound();
    },
  };
}

/** A header as geth's JSON marshalling writes it (core/types/gen_header_json.go). */
function gethHeaderJson(h: BlockHeader): Record<string, string> {
  const q = (n: bigint) => `0x${n.toString(16)}`;
  const json: Record<string, string> = {
    parentHash: toHex(h.parentHash),
    sha3Uncles: toHex(h.ommersHash),
    miner: toHex(h.beneficiary),
    stateRoot: toHex(h.stateRoot),
    transactionsRoot: toHex(h.transactionsRoot),
    receiptsRoot: toHex(h.receiptsRoot),
    logsBloom: toHex(h.logsBloom),
    difficulty: q(h.difficulty),
    number: q(h.number),
    gasLimit: q(h.gasLimit),
    gasUsed: q(h.gasUsed),
    timestamp: q(h.timestamp),
    extraData: toHex(h.extraData),
    mixHash: toHex(h.mixHash),
    nonce: toHex(h.nonce),
  };
  if (h.baseFeePerGas !== undefined) json.baseFeePerGas = q(h.baseFeePerGas);
  if (h.withdrawalsRoot !== undefined) json.withdrawalsRoot = toHex(h.withdrawalsRoot);
  if (h.blobGasUsed !== undefined) json.blobGasUsed = q(h.blobGasUsed);
  if (h.excessBlobGas !== undefined) json.excessBlobGas = q(h.excessBlobGas);
  if (h.parentBeaconBlockRoot !== undefined) json.parentBeaconBlockRoot = toHex(h.parentBeaconBlockRoot);
  if (h.requestsHash !== undefined) json.requestsHash = toHex(h.requestsHash);
  json.hash = toHex(keccak_256(encodeHeader(h)));
  return json;
}

/** geth's ExtWitness: headers as JSON objects from the parent back, codes and state, keys empty. */
export function gethWitness(witness: BlockWitness): Record<string, unknown> {
  return {
    headers: witness.headers.map((h) => gethHeaderJson(decodeHeader(h))).reverse(),
    codes: witness.codes.map(toHex),
    state: witness.state.map(toHex),
    keys: [],
  };
}

/** geth's debug_executionWitness (eth/api_debug.go): a missing block is -32000 "block number N not found". */
function gethExecutionWitness(service: WitnessService): BoundMethod {
  return {
    name: "debug_executionWitness",
    async invoke(raw) {
      const { block } = executionWitnessSpec.decodeParams(raw);
      try {
        return gethWitness((await service.executionWitness(block)).witness);
      } catch (e) {
        if (!(e instanceof BlockNotFoundError)) throw e;
        const n = typeof block === "bigint" ? block.toString() : block;
        throw new RpcError(-32000, `block number ${n} not found`, { cause: e });
      }
    },
  };
}

/** Base's debug_executePayload: a missing parent or a failed build is -32603 with the provider's text. */
function baseExecutePayload(service: WitnessService): BoundMethod {
  return {
    name: "debug_executePayload",
    async invoke(raw) {
      const { parentHash, attributes } = executePayloadSpec.decodeParams(raw);
      try {
        return executePayloadSpec.encodeResult(
          (await service.executePayload(parentHash, attributes)).witness,
        );
      } catch (e) {
        if (e instanceof BlockNotFoundError)
          throw new InternalError(`no header found for Hash(${toHex(parentHash)})`, { cause: e });
        if (e instanceof InvalidParamsError) throw e;
        throw new InternalError(e instanceof Error ? e.message : String(e), { cause: e });
      }
    },
  };
}

/** reth's eth_getProof: -32602 when the block is more than `window` blocks behind the head. */
function rethGetProof(node: ChainNode, inner: BoundMethod, window: number): BoundMethod {
  return {
    name: "eth_getProof",
    async invoke(raw, ctx) {
      const { block } = getProofSpec.decodeParams(raw);
      const resolved = findSelected(node, block ?? "latest");
      if (resolved !== undefined && resolved.kind === "sealed") {
        const distance = node.head.header.number - resolved.block.header.number;
        if (distance > BigInt(window))
          throw new InvalidParamsError("distance to target block exceeds maximum proof window");
      }
      return inner.invoke(raw, ctx);
    },
  };
}

/** Replaces and refuses methods of `methods` so that the node answers as `options.surface` does. */
export function applySurface(
  methods: Map<string, BoundMethod>,
  node: ChainNode,
  service: WitnessService,
  options: SurfaceOptions,
): void {
  const set = (m: BoundMethod) => methods.set(m.name, m);
  const getProof = methods.get("eth_getProof");
  switch (options.surface) {
    case "full":
      return;
    case "reth":
    case "base":
      set(rethDbGet(node));
      if (getProof !== undefined) set(rethGetProof(node, getProof, options.ethProofWindow));
      set(
        options.surface === "base"
          ? baseExecutePayload(service)
          : refused("debug_executePayload", rethMethodNotFound),
      );
      return;
    case "geth":
      set(gethDbGet(node));
      set(gethExecutionWitness(service));
      set(refused("debug_executePayload", gethMethodNotFound("debug_executePayload")));
      return;
  }
}
