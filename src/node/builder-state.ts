/**
 * Reads the trie nodes a BlockBuilder has written so far, so the node can serve state (balances,
 * nonces, code, calls) at a snapshot's state root before the block is sealed.
 *
 * BlockBuilder keeps these nodes in its PreimageTrieDB's `written` map and has no public accessor
 * yet; this wrapper reads the field and fails loudly (BuilderInternalsChangedError) if the engine's
 * shape changes, rather than serving wrong state. A public `BlockBuilder.writtenNodes` in
 * src/chain would replace it.
 */
import type { BlockBuilder } from "../chain/block-builder.js";

export class BuilderInternalsChangedError extends Error {
  constructor() {
    super("BlockBuilder no longer exposes db.written: the pending state view needs updating");
    this.name = "BuilderInternalsChangedError";
  }
}

export function builderWrittenNodes(builder: BlockBuilder): ReadonlyMap<string, Uint8Array> {
  const db = (builder as unknown as { db?: { written?: unknown } }).db;
  const written = db?.written;
  if (!(written instanceof Map)) throw new BuilderInternalsChangedError();
  return written as ReadonlyMap<string, Uint8Array>;
}
