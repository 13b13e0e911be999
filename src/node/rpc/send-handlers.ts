/**
 * Transaction submission: eth_sendRawTransaction (admission into the pool) and eth_sendRawTransactionSync
 * (answers once the transaction is pre-confirmed in a flashblock snapshot, or sealed in a block when no snapshot
 * showed it first). Admission's refusals are
 * answered with -32000. A read replica forwards the transaction to its leader's pool (the leader's refusal is
 * answered as the leader gave it) and, for the Sync form, answers from its own snapshots of the leader's blocks.
 */
import {
  type NodeHandlers,
  PreconfirmationTimeoutError,
  TransactionRejectedError,
} from "../../../generated/rpc/index.js";
import type * as T from "../../../generated/rpc/index.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { fromHex, toHex, toHexRaw } from "../../chain/index.js";
import { InvalidParamsError, RpcError } from "../../rpc/index.js";
import { admitTransaction } from "../admission.js";
import type { ChainNode } from "../chain-node.js";
import { LeaderRequestError } from "../replica/errors.js";
import type { Replica } from "../replica/replica.js";
import type { PooledTransaction } from "../pool.js";
import { toNodeRpcError } from "./errors.js";
import { formatReceipt } from "./format.js";

/** Default and maximum wait of eth_sendRawTransactionSync. */
export const SYNC_DEFAULT_TIMEOUT_MS = 6_000;
export const SYNC_MAX_TIMEOUT_MS = 60_000;

export type SendHandlers = Pick<NodeHandlers, "eth_sendRawTransaction" | "eth_sendRawTransactionSync">;

/**
 * Admission yields to the event loop once it has run this long without a break: a batch of hundreds of
 * transactions then never holds back the sequencer's flashblock tick or its execution for longer.
 */
const ADMISSION_SLICE_MS = 8;
let sliceStartedAt = 0;

async function admissionTurn(): Promise<void> {
  if (performance.now() - sliceStartedAt < ADMISSION_SLICE_MS) return;
  await new Promise((resolve) => setImmediate(resolve));
  sliceStartedAt = performance.now();
}

export function createSendHandlers(node: ChainNode): SendHandlers {
  const seq = node.producer;
  const admit = (raw: Uint8Array): PooledTransaction => {
    try {
      return admitTransaction(node, raw);
    } catch (e) {
      throw toNodeRpcError(e);
    }
  };
  const mode = node.mode;
  /** A replica: the leader admits the transaction; its hash (the leader's answer, checked) as a hex string. */
  const forward = async (replica: Replica, raw: Uint8Array): Promise<string> => {
    const hashHex = toHexRaw(keccak_256(raw));
    let answer: unknown;
    try {
      answer = await replica.leader.request("eth_sendRawTransaction", [toHex(raw)]);
    } catch (e) {
      if (e instanceof LeaderRequestError) throw new RpcError(e.code, e.message, { data: e.data, cause: e });
      throw new RpcError(-32000, `the replica cannot reach its leader: ${(e as Error).message}`, {
        cause: e,
      });
    }
    if (typeof answer !== "string" || answer.toLowerCase() !== `0x${hashHex}`)
      throw new RpcError(
        -32603,
        `the leader answered ${JSON.stringify(answer)?.slice(0, 80)} for transaction 0x${hashHex}`,
      );
    return hashHex;
  };
  return {
    async eth_sendRawTransaction({ transaction }) {
      if (mode.kind === "replica") return forward(mode.replica, transaction).then(fromHex);
      await admissionTurn();
      const hash = admit(transaction).decoded.hash;
      // Answered once durable: the pool journal writes this turn's transactions together.
      await seq.pool.durable();
      return hash;
    },
    eth_sendRawTransactionSync: async ({ transaction, timeoutMs }, ctx) => {
      const limit = timeoutMs ?? SYNC_DEFAULT_TIMEOUT_MS;
      if (!Number.isInteger(limit) || limit <= 0 || limit > SYNC_MAX_TIMEOUT_MS) {
        throw new InvalidParamsError(
          `invalid params: timeoutMs must be an integer between 1 and ${SYNC_MAX_TIMEOUT_MS}`,
        );
      }
      // The hash is the raw envelope's keccak256 (forward checks the leader's answer against it). The wait starts
      // before the transaction is sent: a replica's leader may pre-confirm it, and that snapshot reach this node,
      // before the forwarding call returns; the block could even be sealed before a later snapshot showed it again.
      const hashHex = toHexRaw(keccak_256(transaction));
      let cancel = (): void => {};
      const preconfirmed = new Promise<T.Receipt>((resolve, reject) => {
        const finish = (fn: () => void) => {
          clearTimeout(timer);
          unsubscribe();
          unsubscribeSealed();
          ctx.signal.removeEventListener("abort", onAbort);
          fn();
        };
        const unsubscribe = seq.onSnapshot((p) => {
          const idx = p.snapshot.transactionHashes.findIndex((h) => toHexRaw(h) === hashHex);
          if (idx >= 0)
            finish(() => resolve(formatReceipt(node.content({ kind: "pending", pending: p }), idx)));
          else {
            const reason = seq.dropped.get(hashHex);
            if (reason !== undefined) finish(() => reject(new TransactionRejectedError(reason)));
          }
        });
        // A replica that fell behind the flashblocks stream (or dropped a block that did not re-execute) may
        // never show the transaction in a snapshot: it answers from the sealed block then.
        const unsubscribeSealed = seq.onSealed((b) => {
          const idx = b.transactionHashes.findIndex((h) => toHexRaw(h) === hashHex);
          if (idx >= 0) finish(() => resolve(formatReceipt(node.content({ kind: "sealed", block: b }), idx)));
        });
        const timer = setTimeout(
          () =>
            finish(() =>
              reject(
                new PreconfirmationTimeoutError(
                  `transaction 0x${hashHex} was not pre-confirmed within ${limit} ms; it stays in the pool`,
                ),
              ),
            ),
          limit,
        );
        const onAbort = () => finish(() => reject(new RpcError(-32000, "request aborted")));
        ctx.signal.addEventListener("abort", onAbort);
        cancel = () => finish(() => {});
      });
      // Settled before it is awaited when sending fails: never an unhandled rejection.
      preconfirmed.catch(() => {});
      try {
        if (mode.kind === "replica") await forward(mode.replica, transaction);
        else {
          admit(transaction);
          await seq.pool.durable();
        }
      } catch (e) {
        cancel();
        throw e;
      }
      return preconfirmed;
    },
  };
}
