/**
 * Before the load: the funder (a development account) deploys the load contracts (two tokens, their pool, the NFT
 * collection, the storage contract), seeds the pool, mints both tokens to every sender and sends each sender
 * ether; then every sender approves the pool for both tokens. Last, each kind's gas is estimated with
 * eth_estimateGas from a sender: the pacing's starting figures.
 */
import {
  type Address,
  encodeDeployData,
  encodeFunctionData,
  getContractAddress,
  type Hex,
  maxUint256,
} from "viem";
import { loadLoadArtifact, loadPoolAbi, loadTokenAbi } from "../../contracts/index.js";
import type { BlockFollower } from "./blocks.js";
import { type LoadCall, type LoadContracts, loadCall, tokenDeployData } from "./calls.js";
import { LoadSetupError } from "./errors.js";
import { LOAD_KINDS, type LoadKind } from "./mix.js";
import type { LoadRpc } from "./rpc.js";
import { feesFor, type LoadSender, sendBatch, type SignedLoadTransaction, signNext } from "./senders.js";

/** Below the node's per-sender pool limit (64): the funder's transactions go in chunks this size. */
const FUNDER_CHUNK = 48;
/** Addresses per mintBatch call. */
const MINT_BATCH = 100;
const TOKEN_SUPPLY = 10n ** 30n;
const POOL_LIQUIDITY = 10n ** 27n;
const SENDER_TOKENS = 10n ** 24n;
const INCLUSION_TIMEOUT_MS = 120_000;

export interface LoadSetupOptions {
  readonly rpc: LoadRpc;
  readonly follower: BlockFollower;
  readonly chainId: number;
  readonly funder: LoadSender;
  readonly senders: readonly LoadSender[];
  /** Wei each sender receives for its fees. */
  readonly senderFunding: bigint;
}

export interface LoadSetup {
  readonly contracts: LoadContracts;
  /** eth_estimateGas of each kind's call. */
  readonly gas: Readonly<Record<LoadKind, bigint>>;
}

interface Step {
  readonly call: LoadCall & { readonly value?: bigint };
  readonly gas: bigint;
}

const deployStep = (data: Hex): Step => ({ call: { to: undefined, data }, gas: 3_000_000n });
const callStep = (to: Address, data: Hex, gas: bigint, value?: bigint): Step => ({
  call: { to, data, ...(value === undefined ? {} : { value }) },
  gas,
});

function fees(follower: BlockFollower) {
  return feesFor(follower.latest?.baseFeePerGas ?? 0n);
}

/** Signs and sends `steps` from one account, `chunk` at a time, each chunk included with success before the next. */
async function runSteps(
  options: LoadSetupOptions,
  sender: LoadSender,
  steps: readonly Step[],
  step: string,
  chunk: number,
): Promise<void> {
  for (let i = 0; i < steps.length; i += chunk) {
    const signed: SignedLoadTransaction[] = [];
    for (const s of steps.slice(i, i + chunk))
      signed.push(await signNext(sender, s.call, s.gas, fees(options.follower), options.chainId));
    await sendAndConfirm(options, signed, step);
  }
}

async function sendAndConfirm(
  options: LoadSetupOptions,
  signed: readonly SignedLoadTransaction[],
  step: string,
): Promise<void> {
  const included = options.follower.waitFor(
    signed.map((tx) => tx.hash),
    INCLUSION_TIMEOUT_MS,
  );
  included.catch(() => undefined);
  const answers = await sendBatch(options.rpc, signed);
  const refused = answers.findIndex((a) => !a.ok);
  if (refused >= 0) {
    const a = answers[refused]!;
    throw new LoadSetupError(`${step}: a transaction was refused: ${a.ok ? "" : a.message}`, {
      step,
      index: refused,
    });
  }
  let receipts;
  try {
    receipts = await included;
  } catch (e) {
    throw new LoadSetupError(`${step}: ${(e as Error).message}`, { step }, { cause: e });
  }
  const failed = [...receipts.values()].filter((r) => !r.success);
  if (failed.length > 0)
    throw new LoadSetupError(`${step}: ${failed.length} transactions reverted`, {
      step,
      transaction: failed[0]!.transactionHash,
    });
}

export async function setUpLoad(options: LoadSetupOptions): Promise<LoadSetup> {
  const { funder, senders } = options;
  const at = (offset: bigint): Address =>
    getContractAddress({ from: funder.address, nonce: funder.nonce + offset });
  const contracts: LoadContracts = {
    tokenA: at(0n),
    tokenB: at(1n),
    pool: at(2n),
    nft: at(3n),
    storage: at(4n),
  };
  const senderAddresses = senders.map((s) => s.address);
  const token = (to: Address, functionName: "mint" | "approve", args: readonly [Address, bigint]): Step =>
    callStep(to, encodeFunctionData({ abi: loadTokenAbi, functionName, args }), 100_000n);
  const steps: Step[] = [
    deployStep(tokenDeployData("Load Token A", "LTA")),
    deployStep(tokenDeployData("Load Token B", "LTB")),
    deployStep(
      encodeDeployData({
        abi: loadPoolAbi,
        bytecode: loadLoadArtifact("LoadPool").bytecode,
        args: [contracts.tokenA, contracts.tokenB],
      }),
    ),
    deployStep(loadLoadArtifact("LoadNft").bytecode),
    deployStep(loadLoadArtifact("LoadStorage").bytecode),
    token(contracts.tokenA, "mint", [funder.address, TOKEN_SUPPLY]),
    token(contracts.tokenB, "mint", [funder.address, TOKEN_SUPPLY]),
    token(contracts.tokenA, "approve", [contracts.pool, maxUint256]),
    token(contracts.tokenB, "approve", [contracts.pool, maxUint256]),
    callStep(
      contracts.pool,
      encodeFunctionData({
        abi: loadPoolAbi,
        functionName: "addLiquidity",
        args: [POOL_LIQUIDITY, POOL_LIQUIDITY],
      }),
      300_000n,
    ),
  ];
  for (let i = 0; i < senderAddresses.length; i += MINT_BATCH) {
    const batch = senderAddresses.slice(i, i + MINT_BATCH);
    for (const to of [contracts.tokenA, contracts.tokenB])
      steps.push(
        callStep(
          to,
          encodeFunctionData({ abi: loadTokenAbi, functionName: "mintBatch", args: [batch, SENDER_TOKENS] }),
          100_000n + 40_000n * BigInt(batch.length),
        ),
      );
  }
  for (const to of senderAddresses) steps.push(callStep(to, "0x", 21_000n, options.senderFunding));
  await runSteps(options, funder, steps, "fund", FUNDER_CHUNK);

  // Every sender approves the pool for both tokens: two transactions each, all at once.
  const approvals: SignedLoadTransaction[] = [];
  for (const sender of senders)
    for (const to of [contracts.tokenA, contracts.tokenB]) {
      const step = token(to, "approve", [contracts.pool, maxUint256]);
      approvals.push(await signNext(sender, step.call, step.gas, fees(options.follower), options.chainId));
    }
  for (let i = 0; i < approvals.length; i += 500)
    await sendAndConfirm(options, approvals.slice(i, i + 500), "approve");

  const probe = senders[0]!;
  const recipient = senders[1]?.address ?? funder.address;
  const answers = await options.rpc.batch(
    LOAD_KINDS.map((kind) => {
      const call = loadCall(kind, contracts, recipient);
      return {
        method: "eth_estimateGas",
        params: [{ from: probe.address, ...(call.to === undefined ? {} : { to: call.to }), data: call.data }],
      };
    }),
  );
  const gas = {} as Record<LoadKind, bigint>;
  LOAD_KINDS.forEach((kind, i) => {
    const a = answers[i]!;
    if (!a.ok) throw new LoadSetupError(`estimating ${kind}: ${a.message}`, { step: "estimate", kind });
    gas[kind] = BigInt(a.result as Hex);
  });
  return { contracts, gas };
}
