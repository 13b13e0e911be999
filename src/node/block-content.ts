/** What the node knows of a block, in one shape for sealed blocks and pending (pre-confirmed) snapshots. */
import type { BlockHeader, Receipt, ReceiptDetails } from "../chain/index.js";

/** A block's content in one shape for sealed blocks and pending snapshots. */
export interface BlockContent {
  header: BlockHeader;
  hash: Uint8Array;
  size: bigint;
  transactions: readonly Uint8Array[];
  transactionHashes: readonly Uint8Array[];
  receipts: readonly Receipt[];
  details: readonly ReceiptDetails[];
}
