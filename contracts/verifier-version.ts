/**
 * Which journal version a deployed AggregateVerifier checks, read from the contract itself (docs/contracts.md
 * "ScheduleIdAggregateVerifier"): the spec's (AggregateVerifier: 196 + 32·N bytes) or the schedule-id version
 * (ScheduleIdAggregateVerifier: the journal followed by the schedule id it pins from ProtocolVersions). The services
 * that submit proofs check it against the version they are configured for, and the devnet's `npm run prove` reads
 * the schedule id a proposal would pin to rebuild the journal it verifies.
 */
import { type Address, BaseError, ContractFunctionRevertedError, type Hex, type PublicClient } from "viem";
import { protocolVersionsAbi, scheduleIdAggregateVerifierAbi } from "./artifacts.js";

/** The verifier versions, named as the journal versions they check. */
export type VerifierVersion = "spec" | "schedule-id";

export const VERIFIER_VERSIONS: readonly VerifierVersion[] = ["spec", "schedule-id"];

type Reader = Pick<PublicClient, "readContract">;

/**
 * "schedule-id" when the verifier names a PROTOCOL_VERSIONS contract, "spec" when that call reverts (the spec's
 * AggregateVerifier has no such function). Transport failures are thrown.
 */
export async function verifierVersionOf(client: Reader, verifier: Address): Promise<VerifierVersion> {
  try {
    await client.readContract({
      address: verifier,
      abi: scheduleIdAggregateVerifierAbi,
      functionName: "PROTOCOL_VERSIONS",
    });
    return "schedule-id";
  } catch (e) {
    if (e instanceof BaseError && e.walk((x) => x instanceof ContractFunctionRevertedError) !== null)
      return "spec";
    throw e;
  }
}

/**
 * The schedule id a schedule-id verifier would pin now for a proposal ending at `endingBlock`:
 * `PROTOCOL_VERSIONS.activatedScheduleId(l2Timestamp(endingBlock))`.
 */
export async function pinnedScheduleId(client: Reader, verifier: Address, endingBlock: bigint): Promise<Hex> {
  const [protocolVersions, claimTimestamp] = await Promise.all([
    client.readContract({
      address: verifier,
      abi: scheduleIdAggregateVerifierAbi,
      functionName: "PROTOCOL_VERSIONS",
    }),
    client.readContract({
      address: verifier,
      abi: scheduleIdAggregateVerifierAbi,
      functionName: "l2Timestamp",
      args: [endingBlock],
    }),
  ]);
  return client.readContract({
    address: protocolVersions,
    abi: protocolVersionsAbi,
    functionName: "activatedScheduleId",
    args: [claimTimestamp],
  });
}
