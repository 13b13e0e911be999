/** The one-line description of an error that a service's logs carry. */
import { BaseError, ContractFunctionRevertedError } from "viem";

/** A short description of an error for one log line: a revert by the contract's error name, never viem's pages. */
export function briefError(error: unknown): { name: string; message: string; kind?: string } {
  if (error instanceof BaseError) {
    const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError && reverted.data !== undefined)
      return {
        name: reverted.name,
        message: `${reverted.data.errorName}(${(reverted.data.args ?? []).map(String).join(",")})`,
      };
    return { name: error.name, message: error.shortMessage };
  }
  if (error instanceof Error) {
    const kind = (error as { kind?: unknown }).kind;
    return { name: error.name, message: error.message, ...(typeof kind === "string" ? { kind } : {}) };
  }
  return { name: "unknown", message: String(error) };
}
