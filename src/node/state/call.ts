/**
 * eth_call and eth_estimateGas: run a message on a state root in a block's environment with the
 * execution engine's EVM configuration (same fork rules and precompiles as block building).
 */
import { createEVM, type EVM, EVMError } from "@ethereumjs/evm";
import { Address } from "@ethereumjs/util";
import {
  BlockStateManager,
  calldataGas,
  commonFor,
  fastEipLookup,
  floorDataGas,
  fromHex,
  installEngineFastPaths,
  type OpFork,
  opPrecompiles,
  PreimageHeaderChain,
  PreimageTrieDB,
  toHexRaw,
} from "../../chain/index.js";
import { NodeError } from "../errors.js";
import type { HashSource } from "./sources.js";

/** The block a call runs in. */
export interface CallEnvironment {
  chainId: bigint;
  fork: OpFork;
  number: bigint;
  timestamp: bigint;
  coinbase: Uint8Array;
  prevRandao: Uint8Array;
  gasLimit: bigint;
  baseFee: bigint;
  parentHash: Uint8Array;
  grandparentHash: Uint8Array;
  stateRoot: Uint8Array;
}

export interface CallMessage {
  from: Uint8Array;
  to: Uint8Array | undefined;
  value: bigint;
  data: Uint8Array;
  /** Total gas including intrinsic gas. */
  gas: bigint;
  gasPrice: bigint;
  accessList: AccessListEntry[];
  /** Record the addresses and slots the execution touches (eth_createAccessList), in `CallOutcome.accessList`. */
  recordAccessList?: boolean;
}

export interface AccessListEntry {
  address: Uint8Array;
  storageKeys: Uint8Array[];
}

export interface CallOutcome {
  success: boolean;
  reverted: boolean;
  returnData: Uint8Array;
  /** Total gas used (intrinsic + execution − refund, at least the EIP-7623 floor). */
  gasUsed: bigint;
  error: string | undefined;
  /**
   * With `recordAccessList`: the message's access list plus every address and slot the execution
   * touched, except the sender, the recipient's address and the precompiles (geth's rule: the
   * recipient's slots are listed).
   */
  accessList?: AccessListEntry[];
}

/** The message's gas does not cover its intrinsic cost: nothing was executed. */
export class IntrinsicGasError extends NodeError {
  constructor(
    readonly gas: bigint,
    readonly intrinsic: bigint,
  ) {
    super(`intrinsic gas too low: gas ${gas}, minimum needed ${intrinsic}`, "intrinsic-gas", {
      details: { gas, intrinsic },
    });
  }
}

export function intrinsicGas(msg: Pick<CallMessage, "to" | "data" | "accessList">): bigint {
  let gas = 21_000n + calldataGas(msg.data);
  if (msg.to === undefined) gas += 32_000n + 2n * ((BigInt(msg.data.length) + 31n) / 32n);
  for (const entry of msg.accessList) gas += 2_400n + 1_900n * BigInt(entry.storageKeys.length);
  return gas;
}

async function newEvm(
  source: HashSource,
  env: CallEnvironment,
): Promise<{ evm: EVM; state: BlockStateManager }> {
  // The same replacements of the library's hot spots as block execution.
  await installEngineFastPaths();
  const common = fastEipLookup(commonFor(env.chainId, env.fork));
  const state = BlockStateManager.create(new PreimageTrieDB(source), env.stateRoot, common);
  const blockchain = new PreimageHeaderChain(source, env.number - 1n, env.parentHash, env.grandparentHash);
  const evm = await createEVM({
    common,
    stateManager: state,
    blockchain,
    customPrecompiles: opPrecompiles(common, env.fork),
  });
  return { evm, state };
}

/** Something that runs messages: a CallRunner, or one wrapped to observe each execution. */
export interface MessageRunner {
  run(msg: CallMessage): Promise<CallOutcome>;
}

/** Runs calls against one state; each call is reverted afterwards. */
export class CallRunner implements MessageRunner {
  private constructor(
    private readonly evm: EVM,
    private readonly state: BlockStateManager,
    private readonly env: CallEnvironment,
  ) {}

  static async create(source: HashSource, env: CallEnvironment): Promise<CallRunner> {
    const { evm, state } = await newEvm(source, env);
    return new CallRunner(evm, state, env);
  }

  async run(msg: CallMessage): Promise<CallOutcome> {
    const intrinsic = intrinsicGas(msg);
    const floor = floorDataGas(msg.data);
    const needed = intrinsic > floor ? intrinsic : floor;
    if (msg.gas < needed) throw new IntrinsicGasError(msg.gas, needed);
    const env = this.env;
    const coinbase = new Address(env.coinbase);
    const from = new Address(msg.from);
    const to = msg.to === undefined ? undefined : new Address(msg.to);
    const journal = this.evm.journal;
    await this.state.checkpoint();
    try {
      const record = msg.recordAccessList === true;
      // Reports every address and slot warmed from here on, and those of the message's list.
      if (record) journal.startReportingAccessList();
      for (const p of this.evm.precompiles.keys()) journal.addAlwaysWarmAddress(p);
      journal.addAlwaysWarmAddress(from.toString());
      if (to) journal.addAlwaysWarmAddress(to.toString());
      journal.addAlwaysWarmAddress(coinbase.toString());
      for (const e of msg.accessList) {
        const a = new Address(e.address).toString();
        journal.addAlwaysWarmAddress(a, record);
        for (const k of e.storageKeys)
          journal.addAlwaysWarmSlot(a, `0x${Buffer.from(k).toString("hex")}`, record);
      }
      // A creation whose value exceeds the sender's balance throws (a plain EVMError object, not an
      // Error) where a call returns it as its exceptionError: both are the same failed execution.
      const result = await this.evm
        .runCall({
          block: {
            header: {
              number: env.number,
              coinbase,
              timestamp: env.timestamp,
              difficulty: 0n,
              prevRandao: env.prevRandao,
              gasLimit: env.gasLimit,
              baseFeePerGas: env.baseFee,
              getBlobGasPrice: () => 1n,
            },
          } as Parameters<EVM["runCall"]>[0]["block"],
          caller: from,
          origin: from,
          to,
          value: msg.value,
          data: msg.data,
          gasLimit: msg.gas - intrinsic,
          gasPrice: msg.gasPrice,
        })
        .catch(async (thrown: unknown) => {
          if (!(thrown instanceof EVMError)) throw thrown;
          // The throw left runCall's own checkpoints open (the creator's nonce bump sits below them):
          // close them so the revert below restores the state this runner started from.
          await journal.revert();
          if (this.evm.common.isActivatedEIP(1153)) this.evm.transientStorage.revert();
          return {
            execResult: {
              exceptionError: thrown,
              executionGasUsed: 0n,
              returnValue: new Uint8Array(0),
              gasRefund: 0n,
            },
          };
        });
      const exec = result.execResult;
      let used = intrinsic + exec.executionGasUsed;
      const refund = exec.gasRefund ?? 0n;
      used -= refund < used / 5n ? refund : used / 5n;
      if (used < floor) used = floor;
      const error = exec.exceptionError?.error;
      const outcome: CallOutcome = {
        success: error === undefined,
        reverted: error === "revert",
        returnData: exec.returnValue,
        gasUsed: used,
        error,
      };
      if (record) {
        const excluded = new Set([
          toHexRaw(msg.from),
          ...[...this.evm.precompiles.keys()].map((k) => k.replace(/^0x/, "")),
        ]);
        outcome.accessList = reportedAccessList(journal.accessList ?? new Map(), excluded);
      }
      return outcome;
    } finally {
      await this.state.revert();
      await journal.cleanup();
      this.state.originalStorageCache.clear();
    }
  }
}

/**
 * The journal's report as an access list, in first-touched order: addresses in `excluded`
 * (unprefixed lowercase hex) are left out unless they had slots touched.
 */
function reportedAccessList(
  report: Map<string, Set<string>>,
  excluded: ReadonlySet<string>,
): AccessListEntry[] {
  const out: AccessListEntry[] = [];
  for (const [address, slots] of report) {
    if (slots.size === 0 && excluded.has(address)) continue;
    out.push({
      address: fromHex(address),
      storageKeys: [...slots].map((slot) => fromHex(slot.padStart(64, "0"))),
    });
  }
  return out;
}

function sameAccessList(a: readonly AccessListEntry[], b: readonly AccessListEntry[]): boolean {
  const key = (list: readonly AccessListEntry[]) =>
    list
      .map((e) => `${toHexRaw(e.address)}:${e.storageKeys.map(toHexRaw).sort().join(",")}`)
      .sort()
      .join(";");
  return key(a) === key(b);
}

/** Rounds of eth_createAccessList at most; each adds what the previous list made reachable. */
export const MAX_ACCESS_LIST_ROUNDS = 16;

/**
 * eth_createAccessList (geth's algorithm): run with the list so far, recording what the execution
 * touches, until a run touches nothing new. Returns the list and the outcome of the last run, whose
 * gas includes the list's own cost.
 */
export async function createAccessList(
  runner: MessageRunner,
  msg: CallMessage,
): Promise<{ accessList: AccessListEntry[]; outcome: CallOutcome }> {
  let list = msg.accessList;
  for (let round = 0; ; round++) {
    const outcome = await runner.run({ ...msg, accessList: list, recordAccessList: true });
    const touched = outcome.accessList ?? [];
    if (sameAccessList(touched, list) || round + 1 >= MAX_ACCESS_LIST_ROUNDS) {
      return { accessList: touched, outcome: { ...outcome, accessList: undefined } };
    }
    list = touched;
  }
}

/**
 * Smallest gas limit (within `cap`) at which the message succeeds, by binary search after an
 * optimistic first guess. Returns the failing outcome at `cap` when it cannot succeed.
 */
export async function estimateGas(
  runner: MessageRunner,
  msg: CallMessage,
  cap: bigint,
): Promise<{ gas: bigint } | { failure: CallOutcome }> {
  const full = await runner.run({ ...msg, gas: cap });
  if (!full.success) return { failure: full };
  let lo = full.gasUsed - 1n;
  let hi = cap;
  const optimistic = ((full.gasUsed + 2_300n) * 64n) / 63n;
  if (optimistic < hi) {
    if ((await runner.run({ ...msg, gas: optimistic })).success) hi = optimistic;
    else lo = optimistic;
  }
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n;
    if ((await runner.run({ ...msg, gas: mid }).catch(() => ({ success: false }))).success) hi = mid;
    else lo = mid;
  }
  return { gas: hi };
}
