/**
 * The contract between generated method descriptors and the JSON-RPC server core (request context,
 * subscriptions, method specs, handlers and method tables). It is defined by the generated runtime
 * (codegen/rpc/runtime/method-contract.ts), which may not import src/; the server core uses it from there.
 */
export {
  type BoundMethod,
  bindMethod,
  type MethodTable,
  type RequestContext,
  type RpcHandler,
  type RpcMethodSpec,
  type Subscription,
  type SubscriptionHost,
} from "../../generated/rpc/index.js";
