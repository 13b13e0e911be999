/**
 * A viem `custom` transport that answers the read-only JSON-RPC methods a library needs
 * (eth_chainId, eth_blockNumber, eth_call, eth_getCode) by executing on an {@link EvmHarness}.
 * Lets code written against a viem PublicClient run against the real compiled contracts before a
 * chain node exists. Reverts come back as JSON-RPC error 3 with the revert data, as nodes answer.
 */
import { type Address, custom, type CustomTransport, type Hex, numberToHex } from "viem";
import type { EvmHarness } from "./harness.js";

export class HarnessRpcError extends Error {
  override readonly name = "HarnessRpcError";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Hex,
  ) {
    super(message);
  }
}

interface CallParams {
  from?: Address;
  to?: Address;
  data?: Hex;
  input?: Hex;
}

export function harnessTransport(harness: EvmHarness): CustomTransport {
  return custom(
    {
      async request({ method, params }: { method: string; params?: unknown }) {
        const args = (params ?? []) as unknown[];
        switch (method) {
          case "eth_chainId":
            return numberToHex(harness.chainId);
          case "eth_blockNumber":
            return numberToHex(harness.blockNumber);
          case "eth_getCode":
            return harness.getCode(args[0] as Address);
          case "eth_call": {
            const call = args[0] as CallParams;
            if (call.to === undefined) throw new HarnessRpcError(-32602, "eth_call without `to`");
            const outcome = await harness.simulate(call.to, call.data ?? call.input ?? "0x", [], {
              ...(call.from === undefined ? {} : { from: call.from }),
            });
            if (!outcome.success) throw new HarnessRpcError(3, "execution reverted", outcome.returnData);
            return outcome.returnData;
          }
          default:
            throw new HarnessRpcError(-32601, `the method ${method} does not exist/is not available`);
        }
      },
    },
    { retryCount: 0 },
  );
}
