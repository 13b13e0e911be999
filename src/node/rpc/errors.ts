/**
 * Where the node's domain errors become JSON-RPC errors (docs/errors.md): by class and kind, never by
 * message text. Handler groups pass what they catch through `toNodeRpcError`; what it does not know is
 * rethrown as is (the server core answers it with -32603).
 */
import {
  ExecutionFailedError,
  LimitExceededError,
  TransactionRejectedError,
} from "../../../generated/rpc/index.js";
import { NodeError } from "../errors.js";

/** The JSON-RPC error a node error is answered with; any other value is returned unchanged. */
export function toNodeRpcError(error: unknown): unknown {
  if (!(error instanceof NodeError)) return error;
  switch (error.kind) {
    case "transaction-not-admitted":
      return new TransactionRejectedError(error.message, { cause: error });
    case "limit-exceeded":
      return new LimitExceededError(error.message, { cause: error });
    case "intrinsic-gas":
      return new ExecutionFailedError(error.message, { cause: error });
    default:
      return error;
  }
}
