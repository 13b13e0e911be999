/**
 * Execution witnesses as L2 clients answer `debug_executionWitness` and `debug_executePayload`, in the three forms
 * they use (docs/chain-rpc.md "Execution witnesses"):
 *
 * - reth's list form (alloy `ExecutionWitness`): `{state, codes, keys, headers}`, lists of hex bytes, headers RLP;
 * - geth's `ExtWitness` (go-ethereum 1.16.4 and later, `core/stateless/encoding.go`): `headers` as JSON header
 *   objects (with `hash`), `codes` and `state` lists, `keys` empty or absent;
 * - the map form (op-geth's 2024 answer, reth's before alloy moved to lists): `state`, `codes` and `keys` as maps
 *   from the keccak256 of a value to the value, headers as a list.
 *
 * Every value comes back with nothing but its bytes: the caller keys each by its own keccak256, so a value can
 * only ever answer for its own hash. What is checked here is what a form itself claims: a map's key must be the
 * keccak256 of its value, and a JSON header must hash to its `hash` field (a forged header is refused, not
 * silently re-keyed). Lists are capped before anything is decoded.
 */
import { bytesEqual, encodeHeader, keccak256 } from "../chain/index.js";
import { checkedHeader } from "./blocks.js";
import { DataMismatchError, MalformedResponseError } from "./errors.js";
import { isRecord } from "./http.js";
import { hexData, hexDataList } from "./json.js";

/** Which form the answer had. */
export type WitnessForm = "reth" | "geth" | "map";

export interface ParsedWitness {
  readonly form: WitnessForm;
  /** Trie nodes (account and storage tries). */
  readonly state: Uint8Array[];
  readonly codes: Uint8Array[];
  /** Key preimages (addresses and storage slots); empty in geth's form. */
  readonly keys: Uint8Array[];
  /** RLP-encoded headers (JSON headers re-encoded after their hash was checked). */
  readonly headers: Uint8Array[];
}

/** Most items one witness may carry, per list (a block's witness holds thousands at most). */
export const MAX_WITNESS_ITEMS = 1_000_000;

function items(value: unknown, field: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) {
    if (value.length > MAX_WITNESS_ITEMS)
      throw new MalformedResponseError(`${field} has ${value.length} items, more than ${MAX_WITNESS_ITEMS}`, {
        details: { field, count: value.length },
      });
    return value;
  }
  throw new MalformedResponseError(`${field} is not a list`, { details: { field } });
}

/** A list's values, views of one buffer (hexDataList). */
function hexList(value: unknown, field: string): Uint8Array[] {
  return hexDataList(items(value, field), field);
}

/** A map from keccak256(value) to value; each key is checked against its value. */
function hashMap(value: unknown, field: string): Uint8Array[] {
  if (value === undefined || value === null) return [];
  if (!isRecord(value)) throw new MalformedResponseError(`${field} is not a map`, { details: { field } });
  const entries = Object.entries(value);
  if (entries.length > MAX_WITNESS_ITEMS)
    throw new MalformedResponseError(
      `${field} has ${entries.length} entries, more than ${MAX_WITNESS_ITEMS}`,
      {
        details: { field, count: entries.length },
      },
    );
  return entries.map(([key, item]) => {
    const hash = hexData(key, `${field} key`, 32);
    const bytes = hexData(item, `${field}[${key}]`);
    if (!bytesEqual(keccak256(bytes), hash))
      throw new DataMismatchError("witness-value", `${field}: the value under ${key} does not hash to it`, {
        field,
        key,
      });
    return bytes;
  });
}

/** Headers as RLP hex or as JSON header objects (each must hash to its own `hash`). */
function headerList(value: unknown, field: string): { headers: Uint8Array[]; json: boolean } {
  let json = false;
  const headers = items(value, field).map((item, i) => {
    if (typeof item === "string") return hexData(item, `${field}[${i}]`);
    json = true;
    return encodeHeader(checkedHeader(item, {}, `${field}[${i}]`).header);
  });
  return { headers, json };
}

/** Parses a witness answer in any of the three forms; `what` names the method for errors. */
export function parseExecutionWitness(answer: unknown, what: string): ParsedWitness {
  if (!isRecord(answer)) throw new MalformedResponseError(`${what}: the witness is not an object`);
  const { headers, json } = headerList(
    isRecord(answer.headers) ? Object.values(answer.headers) : answer.headers,
    `${what}.headers`,
  );
  if (isRecord(answer.state) || isRecord(answer.codes) || isRecord(answer.keys)) {
    return {
      form: "map",
      state: hashMap(answer.state, `${what}.state`),
      codes: hashMap(answer.codes, `${what}.codes`),
      keys: hashMap(answer.keys, `${what}.keys`),
      headers,
    };
  }
  return {
    form: json ? "geth" : "reth",
    state: hexList(answer.state, `${what}.state`),
    codes: hexList(answer.codes, `${what}.codes`),
    keys: hexList(answer.keys, `${what}.keys`),
    headers,
  };
}

/** Every value of a witness whose keccak256 names it (trie nodes, code, headers). */
export function witnessValues(witness: ParsedWitness): Uint8Array[] {
  return [...witness.state, ...witness.codes, ...witness.headers];
}
