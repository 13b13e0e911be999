/**
 * JSON-RPC errors as named classes. The classes are defined by the generated runtime
 * (codegen/rpc/runtime/rpc-errors.ts, their root extending src/errors' SuiteError), because generated method specs
 * throw them; the server core re-exports them and converts anything else a handler throws.
 */
import { InternalError, RpcError } from "../../generated/rpc/index.js";

export {
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  MethodNotFoundError,
  ParseError,
  RpcError,
  type RpcErrorDetails,
  type RpcErrorOptions,
  RpcRuntimeError,
} from "../../generated/rpc/index.js";

/** Converts anything thrown by a handler into an RpcError (unknown errors become InternalError). */
export function toRpcError(error: unknown): RpcError {
  if (error instanceof RpcError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new InternalError(`internal error: ${message}`, { cause: error });
}
