/**
 * The program's prologue (docs/proof.md "The program"): the boot information checked against the chain's
 * config, the agreed output root opened (src/chain's openOutputRootV0) to the agreed L2 head, whose header must
 * carry that state root and message passer root, the claim after the agreed head, and the L1 head header of the
 * boot's number. Everything the driver starts from.
 */
import { RLP } from "@ethereumjs/rlp";
import {
  FastTrie,
  L2_TO_L1_MESSAGE_PASSER,
  OutputRootPreimageError,
  type OutputRootV0Fields,
  type PreimageSource,
  bytesEqual,
  headerMessagePasserRoot,
  keccak256,
  keccak256Key,
  openOutputRootV0,
  toHex,
} from "../../chain/index.js";
import { InvalidBootInfoError } from "../preimages/index.js";
import { AgreedOutputMismatchError, InvalidWitnessError, RangeNotDerivedError } from "./errors.js";
import { type ProgramOracle, readWithFetch } from "./oracle.js";
import { OracleL1Provider } from "./providers.js";
import { readHeader } from "./reads.js";
import type { AgreedHead, ProgramInput } from "./types.js";

/** What the driver starts from: the agreed L2 head and the L1 chain down from the boot's L1 head. */
export interface Prologue {
  readonly agreed: AgreedHead;
  readonly l1: OracleL1Provider;
}

/**
 * Checks the boot information against the rollup config (InvalidBootInfoError), opens the agreed output
 * (openAgreedOutput), and refuses a claim that is not after the agreed head (RangeNotDerivedError) or an L1 head
 * of another number than the boot's (InvalidBootInfoError).
 */
export async function prologue(
  input: Pick<ProgramInput, "boot" | "oracle" | "rollupConfig">,
): Promise<Prologue> {
  const { boot, oracle } = input;
  if (input.rollupConfig.l2ChainId !== boot.chainId)
    throw new InvalidBootInfoError(
      `the rollup config is chain ${input.rollupConfig.l2ChainId}, the boot information names chain ${boot.chainId}`,
      { key: "L2ChainId" },
    );
  const agreed = await openAgreedOutput(oracle, boot.agreedOutputRoot);
  if (boot.claimedL2BlockNumber <= agreed.number)
    throw new RangeNotDerivedError(
      `the claimed block ${boot.claimedL2BlockNumber} is not after the agreed L2 head ${agreed.number}`,
      { claimedBlock: boot.claimedL2BlockNumber, safeHead: agreed.number },
    );
  const l1 = new OracleL1Provider(oracle);
  const l1Head = await l1.headerByHash(boot.l1Head);
  if (l1Head.number !== boot.l1HeadNumber)
    throw new InvalidBootInfoError(
      `the L1 head ${toHex(boot.l1Head)} is block ${l1Head.number}, the boot information says ${boot.l1HeadNumber}`,
      { key: "L1HeadNumber" },
    );
  return { agreed, l1 };
}

/** The message passer's storage root in the state under `stateRoot` (pre-Isthmus heads). */
function messagePasserStorageRoot(source: PreimageSource, stateRoot: Uint8Array): Uint8Array {
  const trie = new FastTrie({
    getNode: (hash) => source.get(keccak256Key(hash)),
    putNode: () => {
      throw new InvalidWitnessError("a read-only trie was written", { what: "state" });
    },
  });
  const account = trie.get(stateRoot, keccak256(L2_TO_L1_MESSAGE_PASSER.bytes));
  if (account === undefined)
    throw new AgreedOutputMismatchError("the L2ToL1MessagePasser account is absent from the agreed state", {
      field: "messagePasserStorageRoot",
    });
  const fields = RLP.decode(account) as Uint8Array[];
  if (!Array.isArray(fields) || fields.length !== 4 || !(fields[2] instanceof Uint8Array))
    throw new InvalidWitnessError("malformed L2ToL1MessagePasser account", { what: "state" });
  return fields[2];
}

/**
 * The three roots the agreed output root commits to (src/chain's opening): a preimage of another length or hash
 * is an InvalidWitnessError, another version an AgreedOutputMismatchError.
 */
function openAgreedPreimage(outputRoot: Uint8Array, preimage: Uint8Array): OutputRootV0Fields {
  try {
    return openOutputRootV0(outputRoot, preimage);
  } catch (error) {
    if (!(error instanceof OutputRootPreimageError)) throw error;
    if (error.fault === "version")
      throw new AgreedOutputMismatchError("the agreed output root is not version 0", { field: "version" });
    throw new InvalidWitnessError(
      `the agreed output: ${error.message}`,
      { what: "agreed output" },
      { cause: error },
    );
  }
}

/**
 * Opens the agreed output root to the agreed L2 head and checks the head's header against it
 * (AgreedOutputMismatchError); a missing preimage is a MissingWitnessError.
 */
export async function openAgreedOutput(oracle: ProgramOracle, outputRoot: Uint8Array): Promise<AgreedHead> {
  await oracle.hint({ type: "starting-l2-output", outputRoot });
  const preimage = await readWithFetch(oracle, "agreed output root", () =>
    oracle.get(keccak256Key(outputRoot)),
  );
  const {
    stateRoot,
    messagePasserStorageRoot: passerRoot,
    blockHash: hash,
  } = openAgreedPreimage(outputRoot, preimage);
  await oracle.hint({ type: "l2-block-header", hash });
  const header = await readWithFetch(oracle, `agreed L2 header ${toHex(hash)}`, () =>
    readHeader(oracle, hash, "agreed L2 header"),
  );
  if (!bytesEqual(header.stateRoot, stateRoot))
    throw new AgreedOutputMismatchError("the agreed L2 head's state root is not the output root's", {
      field: "stateRoot",
      number: header.number,
    });
  const headerPasserRoot =
    headerMessagePasserRoot(header) ??
    (await readWithFetch(oracle, "agreed L2ToL1MessagePasser account", () =>
      messagePasserStorageRoot(oracle, stateRoot),
    ));
  if (!bytesEqual(headerPasserRoot, passerRoot))
    throw new AgreedOutputMismatchError(
      "the agreed L2 head's message passer storage root is not the output root's",
      { field: "messagePasserStorageRoot", number: header.number },
    );
  return { number: header.number, hash, header };
}
