/**
 * The fork horizon built into the image: the L1 forks (the blob-fee schedule through BPO2) and the OP forks
 * (through Jovian) this code implements, and the time up to which it vouches that no other fork is active. Past
 * it the image would derive under old rules and sign roots that are not canonical, so it refuses:
 *
 * - a rollup config or chain registry entry that schedules a fork it does not know (any `<fork>_time` field
 *   outside the known list), wherever it is loaded;
 * - a request whose L1 head (its verified header's timestamp) or claimed block (its L2 timestamp) lies at or
 *   past the horizon time.
 *
 * Decision: the horizon time is a constant of the image, set when it is built to a time before which no fork it
 * does not implement can activate (the next forks were unscheduled when this one was set); an operator rotates to
 * an image with a later horizon, or one implementing the next fork, before it (docs/enclave.md "Fork horizon").
 */
import { OnchainError } from "./errors.js";

/** The image's horizon: the last fork implemented on each layer and the time both are vouched for until. */
export interface ForkHorizon {
  /** The newest L1 fork whose rules (blob-fee schedule) the image implements. */
  readonly l1LastFork: string;
  /** The newest OP fork the image implements. */
  readonly opLastFork: string;
  /** Unix seconds: L1 heads and claimed L2 blocks at or past this time are refused. */
  readonly until: bigint;
}

/** 2027-07-01T00:00:00Z. */
export const IMAGE_FORK_HORIZON: ForkHorizon = {
  l1LastFork: "bpo2",
  opLastFork: "jovian",
  until: 1_814_400_000n,
};

/** The `<fork>_time` fields of a rollup config (op-node's rollup.json) this image implements. */
export const KNOWN_FORK_TIME_FIELDS: readonly string[] = [
  "regolith_time",
  "canyon_time",
  "delta_time",
  "ecotone_time",
  "fjord_time",
  "granite_time",
  "holocene_time",
  "pectra_blob_schedule_time",
  "isthmus_time",
  "jovian_time",
];

/** `*_time` fields that are not forks. */
const NOT_FORK_FIELDS = new Set(["block_time"]);

/** A chain config or request past what this image implements. */
export class ForkHorizonError extends OnchainError<"fork-horizon"> {
  override readonly name = "ForkHorizonError";
  constructor(
    message: string,
    details: {
      readonly fork: string;
      readonly horizon: string;
      readonly source?: string;
      readonly timestamp?: bigint;
      readonly until?: bigint;
    },
  ) {
    super(message, { kind: "fork-horizon", details });
  }
}

/** The last second a JavaScript Date holds (8.64e15 ms after the epoch). */
const LAST_DATE_SECOND = 8_640_000_000_000n;

/** An ISO time, or a plain sentence for a time no Date can hold (a request's time is the requester's choice). */
const isoOf = (seconds: bigint): string =>
  seconds >= -LAST_DATE_SECOND && seconds <= LAST_DATE_SECOND
    ? new Date(Number(seconds) * 1000).toISOString()
    : "a time past year 275760";

function describeHorizon(horizon: ForkHorizon): string {
  return `L1 through ${horizon.l1LastFork}, OP through ${horizon.opLastFork}, until ${isoOf(horizon.until)} (${horizon.until})`;
}

/**
 * Refuses a rollup config (op-node JSON) or a registry entry's hardfork fields that schedule a fork this image
 * does not implement. A field set to null schedules nothing.
 */
export function refuseUnknownForks(
  fields: Readonly<Record<string, unknown>>,
  source: string,
  horizon: ForkHorizon = IMAGE_FORK_HORIZON,
): void {
  for (const [field, value] of Object.entries(fields)) {
    if (!field.endsWith("_time") || NOT_FORK_FIELDS.has(field) || value === null || value === undefined)
      continue;
    if (KNOWN_FORK_TIME_FIELDS.includes(field)) continue;
    const fork = field.slice(0, -"_time".length);
    throw new ForkHorizonError(
      `${source} schedules the fork "${fork}" (${field} ${String(value)}), which this image does not implement ` +
        `(its fork horizon: ${describeHorizon(horizon)}); run an image that implements it`,
      { fork, horizon: horizon.opLastFork, source },
    );
  }
}

/** What a request claims about time: its L1 head's timestamp (from the verified header) and its claim's L2 time. */
export interface RequestTimes {
  readonly l1HeadTimestamp: bigint;
  readonly claimTimestamp: bigint;
  readonly claimedBlock: bigint;
}

/** Refuses a request whose L1 head or claimed block lies at or past the image's horizon time. */
export function refusePastHorizon(times: RequestTimes, horizon: ForkHorizon = IMAGE_FORK_HORIZON): void {
  const past = (what: string, fork: string, timestamp: bigint): ForkHorizonError =>
    new ForkHorizonError(
      `${what} at ${isoOf(timestamp)} (${timestamp}) lies past this image's fork horizon ` +
        `(${describeHorizon(horizon)}): a fork after ${fork} may be active there; rotate to an image whose horizon covers it`,
      { fork, horizon: fork, timestamp, until: horizon.until },
    );
  if (times.l1HeadTimestamp >= horizon.until)
    throw past("the L1 head", horizon.l1LastFork, times.l1HeadTimestamp);
  if (times.claimTimestamp >= horizon.until)
    throw past(`the claimed block ${times.claimedBlock}`, horizon.opLastFork, times.claimTimestamp);
}
