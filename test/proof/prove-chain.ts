/**
 * Range requests and extra hosts over the proving set-up (test/support/prover-chain.ts: the L1-backed chain with
 * 1 s blocks, the batcher, a local-mode enclave process, a host process, the verifier contracts and the enclave's
 * signer registered), for the end-to-end prove tests and bench:prove. `startHostFor` starts another host process
 * over the same chain whose enclave address is any Unix socket, e.g. a tamper proxy in front of the enclave.
 */
import { Agent, fetch as undiciFetch } from "undici";
import { type Hex, hexToBytes } from "viem";
import type { BootInfo } from "../../src/proof/preimages/index.js";
import {
  type ProverChain,
  type ProverChainOptions,
  startProverChain,
  witnessHostArgs,
} from "../support/prover-chain.js";
import { type RunningHost, startHost } from "../host/spawn-host.js";

/** The enclave process helper, for bench:prove's provers (benchmarks reach test helpers through test/). */
export { type RunningEnclave, startEnclave } from "../../enclave/test/enclave-process.js";

export interface Output {
  outputRoot: Hex;
  blockRef: { hash: Hex; number: number };
  syncStatus: { safe_l2: { number: number } };
}

/** One proposal of prover_prove's JSON result. */
export interface ProposalJson {
  output_root: Hex;
  signature: Hex;
  l1_origin_hash: Hex;
  l1_origin_number: number;
  l2_block_number: number;
  prev_output_root: Hex;
  config_hash: Hex;
}

export interface ProveResultJson {
  Tee: { aggregate_proposal: ProposalJson; proposals: ProposalJson[] };
}

/** A prover_prove request over (agreed, claimed] and what the test knows of it from the node. */
export interface RangeRequest {
  readonly agreed: number;
  readonly claimed: number;
  readonly interval: number;
  readonly l1Head: { readonly hash: Hex; readonly number: bigint };
  /** The node's output roots at agreed + 1 … claimed. */
  readonly roots: Hex[];
  readonly agreedRoot: Hex;
  readonly params: Record<string, unknown>;
  readonly boot: BootInfo;
}

export class RpcCallError extends Error {
  override readonly name = "RpcCallError";
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${code} ${message}`);
  }
}

/**
 * One connection pool for every call, without undici's own waits for response headers and body (300 s each): a
 * 600-block proof's call outlasted them before the host answered. Each call is bounded by its `timeoutMs` instead.
 */
const unboundedWaits = new Agent({ headersTimeout: 0, bodyTimeout: 0 });

/** A JSON-RPC call by undici's fetch, bounded by `timeoutMs` alone (a proof can outlast a client's default timeout). */
export async function rpc<T>(
  url: string,
  method: string,
  params: unknown[],
  timeoutMs = 900_000,
): Promise<T> {
  const response = await undiciFetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
    dispatcher: unboundedWaits,
  });
  const body = (await response.json()) as { result?: T; error?: { code: number; message: string } };
  if (body.error !== undefined) throw new RpcCallError(method, body.error.code, body.error.message);
  return body.result as T;
}

/** Polls `check` every 250 ms until it gives a value. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The node's output at L2 block `n` (optimism_outputAtBlock). */
export function outputAt(l2RpcUrl: string, n: number): Promise<Output> {
  return rpc<Output>(l2RpcUrl, "optimism_outputAtBlock", [`0x${n.toString(16)}`]);
}

/**
 * A request for (agreed, claimed] on a chain whose L1 is `l1` and whose node is at `l2RpcUrl`, with the current L1
 * head, the claim being the node's root at `claimed`.
 */
export async function rangeRequestOn(
  on: {
    readonly l1: { getBlock(args: { blockTag: "latest" }): Promise<{ hash: Hex; number: bigint }> };
    readonly l2RpcUrl: string;
    readonly chainId: bigint;
  },
  agreed: number,
  claimed: number,
  interval: number,
  proposer: Hex,
): Promise<RangeRequest> {
  const head = await on.l1.getBlock({ blockTag: "latest" });
  const agreedOut = await outputAt(on.l2RpcUrl, agreed);
  const roots: Hex[] = [];
  for (let n = agreed + 1; n <= claimed; n++) roots.push((await outputAt(on.l2RpcUrl, n)).outputRoot);
  const claimedRoot = roots.at(-1)!;
  return {
    agreed,
    claimed,
    interval,
    l1Head: { hash: head.hash, number: head.number },
    roots,
    agreedRoot: agreedOut.outputRoot,
    params: {
      l1_head: head.hash,
      l1_head_number: Number(head.number),
      agreed_l2_head_hash: agreedOut.blockRef.hash,
      agreed_l2_output_root: agreedOut.outputRoot,
      claimed_l2_output_root: claimedRoot,
      claimed_l2_block_number: claimed,
      proposer,
      intermediate_block_interval: interval,
    },
    boot: {
      l1Head: hexToBytes(head.hash),
      l1HeadNumber: head.number,
      agreedOutputRoot: hexToBytes(agreedOut.outputRoot),
      claimedOutputRoot: hexToBytes(claimedRoot),
      claimedL2BlockNumber: BigInt(claimed),
      chainId: on.chainId,
      proposer: hexToBytes(proposer),
      intermediateBlockInterval: BigInt(interval),
    },
  };
}

export interface ProveChain {
  readonly prover: ProverChain;
  output(block: number): Promise<Output>;
  /** A request for (agreed, claimed] with the current L1 head, the claim being the node's root at `claimed`. */
  rangeRequest(agreed: number, claimed: number, interval: number, proposer: Hex): Promise<RangeRequest>;
  /** prover_prove on the set-up's host (or on `hostUrl`). */
  prove(request: RangeRequest, hostUrl?: string): Promise<ProveResultJson>;
  /**
   * Another host process over the chain whose enclave is at `enclavePath` (a Unix socket), with `extraArgs` after
   * the set-up's flags; stopped by `stop`.
   */
  startHostFor(enclavePath: string, extraArgs?: readonly string[]): Promise<RunningHost>;
  stop(): Promise<void>;
}

export async function startProveChain(options: ProverChainOptions = {}): Promise<ProveChain> {
  const prover = await startProverChain({ proofTimeoutSeconds: 900, ...options });
  const chain = prover.chain;
  const hosts: RunningHost[] = [];
  const output = (n: number) => outputAt(chain.node.url, n);
  return {
    prover,
    output,
    async startHostFor(enclavePath, extraArgs = []) {
      const host = await startHost([
        ...witnessHostArgs(chain, enclavePath, "127.0.0.1:0"),
        "--proof-request-timeout",
        "900",
        ...extraArgs,
      ]);
      hosts.push(host);
      return host;
    },
    rangeRequest: (agreed, claimed, interval, proposer) =>
      rangeRequestOn(
        { l1: chain.l1.anvil.client, l2RpcUrl: chain.node.url, chainId: chain.rollup.l2ChainId },
        agreed,
        claimed,
        interval,
        proposer,
      ),
    prove: (request, hostUrl = prover.hostUrl) =>
      rpc<ProveResultJson>(hostUrl, "prover_prove", [request.params]),
    async stop() {
      for (const host of hosts.reverse()) await host.stop();
      await prover.stop();
    },
  };
}
