/**
 * The proposer's errors (the project's error model, src/errors): `ProposerError` is the root, each concrete class
 * has one `kind`; callers branch on the class or the kind, never on the message.
 */
import { type ErrorDetails, SuiteError } from "../errors/index.js";

export type ProposerErrorKind =
  "config" | "parent-mismatch" | "propose-reverted" | "l1-reorg" | "journal-version-mismatch";

/** Root of the proposer's errors. */
export abstract class ProposerError extends SuiteError<ProposerErrorKind> {
  readonly package = "proposer";

  constructor(
    message: string,
    kind: ProposerErrorKind,
    details?: ErrorDetails,
    options?: { cause?: unknown },
  ) {
    super(message, { kind, details, cause: options?.cause });
  }
}

/** A flag or environment variable is missing or malformed (`details.flag` names it). */
export class ProposerConfigError extends ProposerError {
  constructor(message: string, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(message, "config", details, options);
  }
}

/**
 * The contract's parent root (latest proposal or anchor) is not the node's output root at that block: proposing on
 * it would sign a journal the enclave refuses. A challenger's business; the proposer waits.
 */
export class ParentMismatchError extends ProposerError {
  constructor(details: { readonly block: bigint; readonly onchainRoot: string; readonly nodeRoot: string }) {
    super(
      `the onchain root at block ${details.block} is not the node's output root`,
      "parent-mismatch",
      details,
    );
  }
}

/** propose() was mined and reverted. */
export class ProposeRevertedError extends ProposerError {
  constructor(details: { readonly transactionHash: string; readonly endingBlock: bigint }) {
    super(
      `propose(${details.endingBlock}) reverted in ${details.transactionHash}`,
      "propose-reverted",
      details,
    );
  }
}

/** The L1 block chosen as the proof's L1 head is no longer canonical. */
export class L1HeadReorgedError extends ProposerError {
  constructor(details: { readonly number: bigint; readonly expected: string; readonly actual: string }) {
    super(`L1 block ${details.number} changed while it was the proof's L1 head`, "l1-reorg", details);
  }
}

/**
 * The verifier checks another journal version than the proposer's --journal-version: every proof the host returns
 * would be refused (the signature recovers to no registered signer). Logged on every attempt until reconfigured.
 */
export class JournalVersionMismatchError extends ProposerError {
  constructor(details: {
    readonly verifier: string;
    readonly configured: string;
    readonly deployed: string;
  }) {
    super(
      `the verifier ${details.verifier} checks ${details.deployed} journals, the proposer is configured for ${details.configured} (--journal-version)`,
      "journal-version-mismatch",
      details,
    );
  }
}
