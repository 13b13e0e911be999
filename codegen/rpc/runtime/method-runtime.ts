/**
 * Builds RpcMethodSpecs (the contract of method-contract.ts) from per-parameter codecs, and calls
 * methods through a transport on the client side.
 */
import type { RpcMethodSpec } from "./method-contract.js";
import { InvalidParamsError, RpcRuntimeError } from "./rpc-errors.js";
import { type AnyCodec, describeValue, isPlainObject, WireError } from "./wire.js";

export interface ParamDefinition {
  readonly name: string;
  readonly codec: AnyCodec;
  readonly required: boolean;
}

export interface MethodDefinition {
  readonly name: string;
  /** Parameters in positional order; optional ones only at the end. */
  readonly params: readonly ParamDefinition[];
  readonly result: AnyCodec;
  /** "either" also accepts params as an object keyed by parameter name. */
  readonly paramStructure: "by-position" | "either";
}

/** A JSON-RPC result did not match the method's result type (client side). */
export class MalformedResultError extends RpcRuntimeError<"malformed-result"> {
  readonly method: string;

  constructor(method: string, cause: WireError) {
    super(`malformed result of ${method}: ${cause.message}`, {
      kind: "malformed-result",
      details: { method, path: cause.path, expected: cause.expected },
      cause,
    });
    this.method = method;
  }
}

function invalid(message: string, cause?: unknown): InvalidParamsError {
  return new InvalidParamsError(`invalid params: ${message}`, cause === undefined ? undefined : { cause });
}

function paramList(definition: MethodDefinition): string {
  return definition.params.map((p) => (p.required ? p.name : `${p.name}?`)).join(", ");
}

/** Picks each parameter's raw value out of positional or named params, checking the count and names. */
function rawParamValues(definition: MethodDefinition, raw: unknown): unknown[] {
  const { name, params } = definition;
  if (raw === undefined || raw === null) return [];
  if (Array.isArray(raw)) {
    if (raw.length > params.length) {
      throw invalid(
        `${name} takes at most ${params.length} params (${paramList(definition)}), got ${raw.length}`,
      );
    }
    return raw;
  }
  if (isPlainObject(raw)) {
    if (definition.paramStructure !== "either") {
      throw invalid(`${name} takes its params as an array [${paramList(definition)}], got an object`);
    }
    const known = new Set(params.map((p) => p.name));
    const unknown = Object.keys(raw).filter((key) => !known.has(key));
    if (unknown.length > 0) {
      throw invalid(
        `${name} has no parameter named ${unknown.map((k) => JSON.stringify(k)).join(", ")} (params: ${paramList(definition)})`,
      );
    }
    return params.map((p) => raw[p.name]);
  }
  throw invalid(
    `expected params as an array${definition.paramStructure === "either" ? " or an object" : ""}, got ${describeValue(raw)}`,
  );
}

/** The RpcMethodSpec of one method, with exact param count checks and messages naming the parameter. */
export function defineMethod<Params, Result>(definition: MethodDefinition): RpcMethodSpec<Params, Result> {
  const { name, params, result } = definition;
  return {
    name,
    paramNames: params.map((p) => p.name),
    decodeParams(raw) {
      const values = rawParamValues(definition, raw);
      const out: Record<string, unknown> = {};
      for (const [i, param] of params.entries()) {
        const value = values[i];
        if (!param.required && (value === undefined || value === null)) continue;
        try {
          out[param.name] = param.codec.decode(value, param.name);
        } catch (error) {
          if (error instanceof WireError) throw invalid(error.message, error);
          throw error;
        }
      }
      return out as Params;
    },
    encodeParams(typed) {
      const source = typed as Record<string, unknown>;
      const out: unknown[] = params.map((p) => {
        const value = source[p.name];
        if (value === undefined) {
          if (p.required) throw new TypeError(`${name}: missing required param ${p.name}`);
          return null;
        }
        return p.codec.encode(value);
      });
      // Trailing omitted optional params are left out, not sent as null.
      let length = out.length;
      while (length > 0 && source[params[length - 1]?.name ?? ""] === undefined) length--;
      return out.slice(0, length);
    },
    encodeResult: (value) => result.encode(value),
    decodeResult(raw) {
      try {
        return result.decode(raw, "result");
      } catch (error) {
        if (error instanceof WireError) throw new MalformedResultError(name, error);
        throw error;
      }
    },
  };
}

/** Sends one call; a client-side transport (HTTP, WebSocket, in-process) returns the raw `result`. */
export type RpcTransport = (method: string, params: unknown[]) => Promise<unknown>;

/** Encodes typed params, sends them through the transport and decodes the result. */
export async function callMethod<Params, Result>(
  transport: RpcTransport,
  spec: RpcMethodSpec<Params, Result>,
  params: Params,
): Promise<Result> {
  return spec.decodeResult(await transport(spec.name, spec.encodeParams(params)));
}
