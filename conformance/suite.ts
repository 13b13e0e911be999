/**
 * The conformance suite: the checks that apply to the targets given, run in order, one result each.
 * Black-box: it takes only addresses (and optionally a witness the enclave can prove; by default the recorded
 * devnet witness of conformance/fixtures).
 */
import type { Preimage } from "../generated/protocol/index.js";
import type { RollupConfig } from "../src/chain/index.js";
import { claimScheduleId, type JournalVersion } from "../src/proof/onchain/index.js";
import {
  DEFAULT_FRAME_LENGTH_PREFIX,
  DEFAULT_MESSAGE_FORM,
  type FrameLengthPrefix,
  type MessageForm,
  type ListenAddress,
} from "../src/proof/transport/index.js";
import { type Check, type CheckResult, runCheck, type TargetKind } from "./check.js";
import { type EnclaveContext, enclaveChecks } from "./checks/enclave.js";
import { type HostContext, hostChecks } from "./checks/host.js";
import { type NodeContext, nodeChecks } from "./checks/node.js";
import { type RecordedManifest, recordedWitness } from "./fixture.js";
import { ConformanceError } from "./errors.js";

export interface ConformanceTargets {
  /** A prover host's JSON-RPC URL. */
  readonly host?: string;
  /** An enclave speaking the framed bincode protocol on a Unix socket or 127.0.0.1 port. */
  readonly enclave?: ListenAddress;
  /** A chain node's JSON-RPC URL. */
  readonly node?: string;
}

export interface ConformanceOptions {
  /**
   * The control witness. Default: the recorded devnet witness (conformance/fixtures, chain 901: the enclave under
   * test must be given the fixture's rollup.json as its development chain). `syntheticWitness()` is one no
   * prover can prove (the proof-dependent checks then SKIP).
   */
  readonly witness?: readonly Preimage[];
  /** How the control witness is named in details; default "recorded devnet", or "given" with `witness`. */
  readonly witnessSource?: string;
  /** Per-check time limit; default 60 000 ms. */
  readonly checkTimeoutMs?: number;
  /** Time limit for one enclave response; default 30 000 ms. */
  readonly responseTimeoutMs?: number;
  /** The host has a registry under which no configured signer is valid (enables host.registry-fail-closed). */
  readonly expectNoValidSigner?: boolean;
  /** The number of enclaves behind the host, when known: host.signer-public-key then checks the count. */
  readonly hostEnclaves?: number;
  /** Called with each result as soon as it is known. */
  readonly onResult?: (result: CheckResult) => void;
  /** The enclave frames' length-prefix width the suite speaks (default: the spec's 4). */
  readonly frameLengthPrefix?: FrameLengthPrefix;
  /** The enclave messages' form the suite speaks, whatever the frames (default: the spec's). */
  readonly messageForm?: MessageForm;
  /**
   * The journal the enclave signs: the spec's (default) or the schedule-id version, whose schedule id the suite
   * computes from `rollupConfig` (default: the recorded witness's rollup config).
   */
  readonly journalVersion?: JournalVersion;
  /** The enclave's chain, for the schedule-id journal version when the witness is not the recorded one. */
  readonly rollupConfig?: RollupConfig;
  /** Only checks whose id starts with one of these prefixes. */
  readonly only?: readonly string[];
}

async function runAll<Context>(
  target: TargetKind,
  checks: readonly Check<Context>[],
  context: Context,
  options: ConformanceOptions,
  results: CheckResult[],
): Promise<void> {
  for (const check of checks) {
    if (options.only !== undefined && !options.only.some((prefix) => check.id.startsWith(prefix))) continue;
    const result = await runCheck(target, check, context, options.checkTimeoutMs ?? 60_000);
    results.push(result);
    options.onResult?.(result);
  }
}

/** The recorded range's per-block output roots, as the manifest gives them. */
function expectedRangeOf(manifest: RecordedManifest): NonNullable<EnclaveContext["expectedRange"]> {
  return {
    startBlock: BigInt(manifest.startBlock),
    outputRoots: manifest.outputRoots.map((root) => new Uint8Array(Buffer.from(root.slice(2), "hex"))),
  };
}

/** The schedule-id version needs the chain's rollup config to know what a verifier pins. */
class MissingRollupConfigError extends ConformanceError<"usage"> {
  override readonly name = "MissingRollupConfigError";
  constructor() {
    super("the schedule-id journal version with a given witness needs the chain's rollup config", {
      kind: "usage",
    });
  }
}

function scheduleIdAtOf(
  options: ConformanceOptions,
  recordedConfig: RollupConfig | undefined,
): ((claimedBlock: bigint) => Uint8Array) | undefined {
  if (options.journalVersion !== "schedule-id") return undefined;
  const config = options.rollupConfig ?? recordedConfig;
  if (config === undefined) throw new MissingRollupConfigError();
  return (claimedBlock) => claimScheduleId(config, claimedBlock);
}

export async function runConformance(
  targets: ConformanceTargets,
  options: ConformanceOptions = {},
): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  if (targets.enclave !== undefined) {
    const recorded = options.witness === undefined ? recordedWitness() : undefined;
    const scheduleIdAt = scheduleIdAtOf(options, recorded?.rollupConfig);
    const context: EnclaveContext = {
      address: targets.enclave,
      frameLengthPrefix: options.frameLengthPrefix ?? DEFAULT_FRAME_LENGTH_PREFIX,
      messageForm: options.messageForm ?? DEFAULT_MESSAGE_FORM,
      ...(scheduleIdAt === undefined ? {} : { scheduleIdAt }),
      witness: options.witness ?? recorded?.preimages ?? [],
      ...(recorded === undefined ? {} : { expectedRange: expectedRangeOf(recorded.manifest) }),
      witnessSource: options.witnessSource ?? (options.witness === undefined ? "recorded devnet" : "given"),
      responseTimeoutMs: options.responseTimeoutMs ?? 30_000,
      proofs: [],
    };
    await runAll("enclave", enclaveChecks, context, options, results);
  }
  if (targets.host !== undefined) {
    const context: HostContext = {
      url: targets.host,
      expectNoValidSigner: options.expectNoValidSigner ?? false,
      ...(options.hostEnclaves === undefined ? {} : { enclaveCount: options.hostEnclaves }),
    };
    await runAll("host", hostChecks, context, options, results);
  }
  if (targets.node !== undefined) {
    const context: NodeContext = { url: targets.node };
    await runAll("node", nodeChecks, context, options, results);
  }
  return results;
}

export const allCheckIds: readonly string[] = [...enclaveChecks, ...hostChecks, ...nodeChecks].map(
  (c) => c.id,
);
