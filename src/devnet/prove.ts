/**
 * `npm run prove`: the README's one-command proof on a running devnet (docs/devnet.md "Proving a range"). It reads
 * the devnet's URLs and verifier addresses from `<data-dir>/devnet.json` (or flags), picks a range of safe L2
 * blocks, builds the `prover_prove` request from `optimism_outputAtBlock` and the L1 head, prints the request (and
 * the curl that sends it), calls the prover host, prints the proposals, checks every per-block root against the
 * node, and verifies the aggregate proposal on the L1: `TEEVerifier.verify` over the aggregate journal rebuilt here
 * (followed by the schedule id the verifier pins, for a schedule-id verifier),
 * and, when the range is the AggregateVerifier's next one (`--blocks` = its BLOCK_INTERVAL), an `eth_call` of
 * `AggregateVerifier.propose` from the proposer account. Exit 0 when everything checked is accepted.
 */
import { parseArgs } from "node:util";
import {
  type Address,
  BaseError,
  bytesToHex,
  concatHex,
  ContractFunctionRevertedError,
  createPublicClient,
  getAddress,
  type Hex,
  hexToBytes,
  http,
  isAddress,
  numberToHex,
} from "viem";
import {
  aggregateVerifierAbi,
  pinnedScheduleId,
  teeVerifierAbi,
  verifierVersionOf,
} from "../../contracts/index.js";
import type { Journal } from "../../generated/journal/index.js";
import {
  aggregateJournal,
  journalDigest,
  perBlockJournals,
  type ProposalContext,
} from "../proof/onchain/index.js";
import { type BootInfo } from "../proof/preimages/index.js";
import { runCli } from "./cli.js";
import { DevnetProveError, DevnetUsageError } from "./errors.js";
import { readRecord } from "./record.js";

const USAGE = `Usage: npm run -s prove -- [options]

Proves a range of the running devnet's safe L2 blocks with its prover host, prints the prover_prove request and the
proposals, and verifies the aggregate proposal on the L1 (TEEVerifier.verify; AggregateVerifier.propose as an
eth_call from the proposer account when the range is the verifier's next one). Everything it needs is in the
devnet's <data-dir>/devnet.json, written by \`npm start\`; a flag replaces what the record says.

Options (each has an environment variable):
  --data-dir <dir>               PROVE_DATA_DIR            the devnet's state directory (default .data)
  --blocks <n>                   PROVE_BLOCKS              L2 blocks to prove (default 4). Equal to the
                                                           AggregateVerifier's BLOCK_INTERVAL: its next range, from
                                                           its latest block, also checked with propose; otherwise
                                                           the newest safe blocks
  --l1-rpc-url <url>             PROVE_L1_RPC_URL          the devnet's L1
  --l2-rpc-url <url>             PROVE_L2_RPC_URL          the devnet's L2 node
  --prover-url <url>             PROVE_PROVER_URL          the prover host
  --tee-verifier <address>       PROVE_TEE_VERIFIER        TEEVerifier on the L1
  --aggregate-verifier <address> PROVE_AGGREGATE_VERIFIER  AggregateVerifier on the L1
  --proposer <address>           PROVE_PROPOSER            the account the proof is for (on the registry's proposer
                                                           list; default the devnet's proposer, account 5)
  --timeout-s <s>                PROVE_TIMEOUT_S           how long to wait for the safe head and the proof (default 900)
  -h, --help                     this text
`;

interface ProveConfig {
  l1RpcUrl: string;
  l2RpcUrl: string;
  proverUrl: string;
  teeVerifier: Address;
  aggregateVerifier: Address;
  proposer: Address;
  blocks: number;
  timeoutMs: number;
}

function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv): ProveConfig | "help" {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      "data-dir": { type: "string" },
      blocks: { type: "string" },
      "l1-rpc-url": { type: "string" },
      "l2-rpc-url": { type: "string" },
      "prover-url": { type: "string" },
      "tee-verifier": { type: "string" },
      "aggregate-verifier": { type: "string" },
      proposer: { type: "string" },
      "timeout-s": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help === true) return "help";
  const record = readRecord(values["data-dir"] ?? env.PROVE_DATA_DIR ?? ".data");
  const need = <T>(value: T | undefined, flag: string): T => {
    if (value === undefined)
      throw new DevnetUsageError(
        `${flag} is needed: no running devnet's devnet.json names it (start one with npm start)`,
      );
    return value;
  };
  const address = (text: string | undefined, flag: string): Address | undefined => {
    if (text === undefined) return undefined;
    if (!isAddress(text, { strict: false }))
      throw new DevnetUsageError(`${flag} must be an address, got ${text}`);
    return getAddress(text);
  };
  const integer = (text: string, flag: string, max: number): number => {
    if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > max)
      throw new DevnetUsageError(`${flag} must be an integer from 1 to ${max}, got ${text}`);
    return Number(text);
  };
  const { endpoints, verifiers } = record;
  return {
    l1RpcUrl: need(values["l1-rpc-url"] ?? env.PROVE_L1_RPC_URL ?? endpoints?.l1RpcUrl, "--l1-rpc-url"),
    l2RpcUrl: need(values["l2-rpc-url"] ?? env.PROVE_L2_RPC_URL ?? endpoints?.l2RpcUrl, "--l2-rpc-url"),
    proverUrl: need(values["prover-url"] ?? env.PROVE_PROVER_URL ?? endpoints?.proverUrl, "--prover-url"),
    teeVerifier: need(
      address(values["tee-verifier"] ?? env.PROVE_TEE_VERIFIER, "--tee-verifier") ?? verifiers?.teeVerifier,
      "--tee-verifier",
    ),
    aggregateVerifier: need(
      address(values["aggregate-verifier"] ?? env.PROVE_AGGREGATE_VERIFIER, "--aggregate-verifier") ??
        verifiers?.aggregateVerifier,
      "--aggregate-verifier",
    ),
    proposer: need(
      address(values.proposer ?? env.PROVE_PROPOSER, "--proposer") ?? endpoints?.proposer,
      "--proposer",
    ),
    blocks: integer(values.blocks ?? env.PROVE_BLOCKS ?? "4", "--blocks", 10_000),
    timeoutMs: integer(values["timeout-s"] ?? env.PROVE_TIMEOUT_S ?? "900", "--timeout-s", 86_400) * 1000,
  };
}

/** One JSON-RPC call; a JSON-RPC error becomes DevnetProveError (its code and message in the details). */
async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { code: number; message: string } };
  if (body.error !== undefined)
    throw new DevnetProveError(`${method} failed: ${body.error.message}`, {
      step: "rpc",
      url,
      method,
      code: body.error.code,
      rpcMessage: body.error.message,
    });
  return body.result as T;
}

interface OutputAtBlock {
  outputRoot: Hex;
  blockRef: { hash: Hex; number: number };
  syncStatus: { safe_l2: { number: number } };
}

interface RpcProposal {
  output_root: Hex;
  signature: Hex;
  l1_origin_hash: Hex;
  l1_origin_number: number;
  l2_block_number: number;
  prev_output_root: Hex;
  config_hash: Hex;
}

const print = (value: unknown): void => {
  process.stdout.write(
    `${JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? Number(v) : v))}\n`,
  );
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The enclave signs with v ∈ {0, 1}; the contracts take 27/28. */
function normalisedSignature(signature: Hex): Hex {
  const bytes = hexToBytes(signature);
  if (bytes.length === 65 && bytes[64]! < 27) bytes[64] = bytes[64]! + 27;
  return bytesToHex(bytes);
}

/** "accepted", or the decoded revert (e.g. `InvalidSigner(0x…)`); other failures are thrown. */
async function outcome(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
    return "accepted";
  } catch (e) {
    const reverted =
      e instanceof BaseError ? e.walk((x) => x instanceof ContractFunctionRevertedError) : null;
    if (reverted instanceof ContractFunctionRevertedError) {
      if (reverted.data !== undefined)
        return `${reverted.data.errorName}(${(reverted.data.args ?? []).map(String).join(",")})`;
      return `reverted: ${reverted.shortMessage}`;
    }
    throw e;
  }
}

async function prove(config: ProveConfig): Promise<number> {
  const deadline = Date.now() + config.timeoutMs;
  const l1 = createPublicClient({ transport: http(config.l1RpcUrl, { timeout: 60_000 }) });
  const abi = [...aggregateVerifierAbi, ...teeVerifierAbi.filter((item) => item.type === "error")];
  const read = <T>(functionName: string): Promise<T> =>
    l1.readContract({ address: config.aggregateVerifier, abi, functionName } as never) as Promise<T>;
  const [blockInterval, intermediateInterval, latestBlock, configHash, teeImageHash] = await Promise.all([
    read<bigint>("BLOCK_INTERVAL"),
    read<bigint>("INTERMEDIATE_BLOCK_INTERVAL"),
    read<bigint>("latestBlock"),
    read<Hex>("CONFIG_HASH"),
    read<Hex>("TEE_IMAGE_HASH"),
  ]);
  const output = (n: number) =>
    rpc<OutputAtBlock>(config.l2RpcUrl, "optimism_outputAtBlock", [numberToHex(n)]);

  // The range: the AggregateVerifier's next one when it has the verifier's length, else the newest safe blocks.
  const nextRange = BigInt(config.blocks) === blockInterval;
  let safe = (await output(0)).syncStatus.safe_l2.number;
  const wanted = nextRange ? Number(latestBlock) + config.blocks : config.blocks;
  while (safe < wanted) {
    if (Date.now() > deadline)
      throw new DevnetProveError(`the safe head stayed at ${safe}, below block ${wanted}`, {
        step: "safe-head",
        safe,
        wanted,
      });
    await sleep(500);
    safe = (await output(0)).syncStatus.safe_l2.number;
  }
  const end = nextRange ? wanted : safe;
  const start = end - config.blocks;
  const interval =
    nextRange || BigInt(config.blocks) % intermediateInterval === 0n ? intermediateInterval : 1n;
  const l1Head = await l1.getBlock({ blockTag: "latest" });
  const agreed = await output(start);
  const roots: Hex[] = [];
  for (let n = start + 1; n <= end; n++) roots.push((await output(n)).outputRoot);
  const request = {
    l1_head: l1Head.hash,
    l1_head_number: Number(l1Head.number),
    agreed_l2_head_hash: agreed.blockRef.hash,
    agreed_l2_output_root: agreed.outputRoot,
    claimed_l2_output_root: roots.at(-1)!,
    claimed_l2_block_number: end,
    proposer: config.proposer,
    intermediate_block_interval: Number(interval),
  };
  const body = { jsonrpc: "2.0", id: 1, method: "prover_prove", params: [request] };
  print({ msg: "prover_prove request", range: { start, end }, request });
  process.stdout.write(
    `curl -s -H 'content-type: application/json' ${config.proverUrl} -d '${JSON.stringify(body)}'\n`,
  );

  const began = Date.now();
  const result = await rpc<{ Tee: { aggregate_proposal: RpcProposal; proposals: RpcProposal[] } }>(
    config.proverUrl,
    "prover_prove",
    [request],
  );
  const { aggregate_proposal: aggregate, proposals } = result.Tee;
  print({ msg: "proposals", seconds: (Date.now() - began) / 1000, aggregate, proposals });
  const wrong = proposals.flatMap((p, i) => (p.output_root === roots[i] ? [] : [p.l2_block_number]));
  if (proposals.length !== roots.length || wrong.length > 0)
    throw new DevnetProveError("the proposals' roots are not the node's optimism_outputAtBlock roots", {
      step: "roots",
      blocks: wrong,
      proposals: proposals.length,
    });

  // The journal the aggregate signature covers, rebuilt here (docs/protocol.md "Signed journal").
  const boot: BootInfo = {
    l1Head: hexToBytes(l1Head.hash),
    l1HeadNumber: l1Head.number,
    agreedOutputRoot: hexToBytes(agreed.outputRoot),
    claimedOutputRoot: hexToBytes(roots.at(-1)!),
    claimedL2BlockNumber: BigInt(end),
    chainId: BigInt(await rpc<Hex>(config.l2RpcUrl, "eth_chainId", [])),
    proposer: hexToBytes(config.proposer),
    intermediateBlockInterval: interval,
  };
  const ctx: ProposalContext = {
    boot,
    configHash: hexToBytes(configHash),
    teeImageHash: hexToBytes(teeImageHash),
  };
  const range = { startBlock: BigInt(start), outputRoots: roots.map((root) => hexToBytes(root)) };
  // A one-block range's aggregate is its per-block proposal (docs/contracts.md "Known divergences" 1).
  const journal: Journal =
    config.blocks === 1 ? perBlockJournals(ctx, range)[0]! : aggregateJournal(ctx, range);
  const signature = normalisedSignature(aggregate.signature);
  // A schedule-id verifier's journal ends with the schedule id it pins for the range's end (the enclave signs the
  // same id, computed from its own upgrade schedule).
  const journalVersion = await verifierVersionOf(l1, config.aggregateVerifier);
  const scheduleId =
    journalVersion === "schedule-id"
      ? hexToBytes(await pinnedScheduleId(l1, config.aggregateVerifier, BigInt(end)))
      : undefined;

  // AggregateVerifier checks that the L1 origin is a past block: wait for the next L1 block.
  while ((await l1.getBlockNumber()) <= l1Head.number) await sleep(250);
  const teeVerifier = await outcome(() =>
    l1.readContract({
      address: config.teeVerifier,
      abi: teeVerifierAbi,
      functionName: "verify",
      args: [
        concatHex([config.proposer, signature]),
        teeImageHash,
        bytesToHex(journalDigest(journal, scheduleId)),
      ],
    }),
  );
  const aggregateVerifier = nextRange
    ? await outcome(() =>
        l1.simulateContract({
          address: config.aggregateVerifier,
          abi,
          functionName: "propose",
          args: [
            BigInt(end),
            roots.at(-1)!,
            journal.intermediateRoots.map((root) => bytesToHex(root)),
            concatHex(["0x00", l1Head.hash, numberToHex(l1Head.number, { size: 32 }), signature]),
          ],
          account: config.proposer,
        } as never),
      )
    : `not tried: ${config.blocks} blocks from ${start}, its next proposal is ${blockInterval} blocks from ${latestBlock}`;
  const accepted = teeVerifier === "accepted" && (!nextRange || aggregateVerifier === "accepted");
  print({
    msg: accepted ? "proof accepted" : "proof refused",
    range: { start, end },
    journalVersion,
    teeVerifier,
    aggregateVerifier,
    accepted,
  });
  return accepted ? 0 : 1;
}

runCli({ usage: USAGE, parse: parseConfig, run: prove, failurePrefix: "prove failed" });
