/**
 * Calls in the selected block's environment (pending: the block being built): eth_call, eth_estimateGas
 * (against pending unless told otherwise, like reth) and eth_createAccessList. They run on the node's call
 * executor (worker threads with a deadline, or in the thread).
 */
import { decodeAbiParameters } from "viem";
import {
  ExecutionFailedError,
  ExecutionRevertedError,
  type NodeHandlers,
} from "../../../generated/rpc/index.js";
import type * as T from "../../../generated/rpc/index.js";
import { bytesEqual, toHex, toHexRaw } from "../../chain/index.js";
import { InvalidParamsError } from "../../rpc/index.js";
import type { ChainNode } from "../chain-node.js";
import { type CallMessage, IntrinsicGasError } from "../state/call.js";
import { toNodeRpcError } from "./errors.js";
import { resolveSelector, tagSnapshot } from "./shared.js";

/** Upper bound of gas for eth_call / eth_estimateGas. */
export const RPC_GAS_CAP = 50_000_000n;

export type CallHandlers = Pick<NodeHandlers, "eth_call" | "eth_estimateGas" | "eth_createAccessList">;

function revertMessage(data: Uint8Array): string {
  if (data.length >= 4 && toHexRaw(data.subarray(0, 4)) === "08c379a0") {
    try {
      const [reason] = decodeAbiParameters([{ type: "string" }], toHex(data.subarray(4)));
      return `execution reverted: ${reason}`;
    } catch {
      return "execution reverted";
    }
  }
  return "execution reverted";
}

function callMessage(req: T.CallRequest, gasCap: bigint): CallMessage {
  if (req.input !== undefined && req.data !== undefined && !bytesEqual(req.input, req.data)) {
    throw new InvalidParamsError("transaction: both input and data given with different values");
  }
  const gas = req.gas ?? gasCap;
  if (gas > RPC_GAS_CAP) throw new InvalidParamsError(`transaction.gas: at most ${RPC_GAS_CAP}`);
  return {
    from: req.from ?? new Uint8Array(20),
    to: req.to ?? undefined,
    value: req.value ?? 0n,
    data: req.input ?? req.data ?? new Uint8Array(0),
    gas,
    gasPrice: req.gasPrice ?? 0n,
    accessList: (req.accessList ?? []).map((e) => ({ address: e.address, storageKeys: e.storageKeys })),
  };
}

export function createCallHandlers(node: ChainNode): CallHandlers {
  return {
    async eth_call({ transaction, block }, ctx) {
      const r = resolveSelector(node, block);
      tagSnapshot(ctx, r);
      const context = node.callContext(r);
      const { gasLimit } = context.env;
      const msg = callMessage(transaction, gasLimit < RPC_GAS_CAP ? gasLimit : RPC_GAS_CAP);
      let outcome;
      try {
        outcome = await node.calls.call(context, msg, ctx.signal);
      } catch (e) {
        throw toNodeRpcError(e);
      }
      if (outcome.reverted)
        throw new ExecutionRevertedError(revertMessage(outcome.returnData), { data: outcome.returnData });
      if (!outcome.success) throw new ExecutionFailedError(`execution failed: ${outcome.error}`);
      return outcome.returnData;
    },
    async eth_estimateGas({ transaction, block }, ctx) {
      // Like reth, estimate against the pending block unless told otherwise.
      const r = resolveSelector(node, block, "pending");
      tagSnapshot(ctx, r);
      const context = node.callContext(r);
      // Without a gas allowance: the block gas limit, capped like eth_call's (a chain's limit may exceed the cap).
      const { gasLimit } = context.env;
      let cap = transaction.gas ?? (gasLimit < RPC_GAS_CAP ? gasLimit : RPC_GAS_CAP);
      const msg = callMessage(transaction, cap);
      const feeCap = transaction.maxFeePerGas ?? transaction.gasPrice ?? 0n;
      if (feeCap > 0n) {
        const balance = node.stateOf(r).balance(msg.from);
        const affordable = balance > msg.value ? (balance - msg.value) / feeCap : 0n;
        if (affordable < cap) cap = affordable;
      }
      let result;
      try {
        result = await node.calls.estimate(context, { ...msg, gas: cap }, cap, ctx.signal);
      } catch (e) {
        // Too little gas for the intrinsic cost is, for an estimate, an allowance the call cannot run in.
        if (e instanceof IntrinsicGasError)
          throw new ExecutionFailedError(`gas required exceeds allowance (${cap})`, { cause: e });
        throw toNodeRpcError(e);
      }
      if ("failure" in result) {
        const f = result.failure;
        if (f.reverted) throw new ExecutionRevertedError(revertMessage(f.returnData), { data: f.returnData });
        throw new ExecutionFailedError(
          f.error === "out of gas"
            ? `gas required exceeds allowance (${cap})`
            : `execution failed: ${f.error}`,
        );
      }
      return result.gas;
    },
    async eth_createAccessList({ transaction, block }, ctx) {
      const r = resolveSelector(node, block);
      tagSnapshot(ctx, r);
      const context = node.callContext(r);
      const { gasLimit } = context.env;
      const msg = callMessage(transaction, gasLimit < RPC_GAS_CAP ? gasLimit : RPC_GAS_CAP);
      let result;
      try {
        result = await node.calls.accessList(context, msg, ctx.signal);
      } catch (e) {
        throw toNodeRpcError(e);
      }
      const { accessList, outcome } = result;
      const out: T.AccessListResult = { accessList, gasUsed: outcome.gasUsed };
      if (outcome.reverted) out.error = revertMessage(outcome.returnData);
      else if (!outcome.success) out.error = `execution failed: ${outcome.error}`;
      return out;
    },
  };
}
