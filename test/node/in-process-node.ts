/**
 * A real node opened in this process (ChainNode, its own temporary data directory, sequencer running, logs silent,
 * no call workers), for tests that watch the block builder or the pool directly rather than over RPC.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { initKeccak } from "../../src/chain/index.js";
import { createLogger } from "../../src/log/index.js";
import { ChainNode } from "../../src/node/index.js";

export interface InProcessNode {
  node: ChainNode;
  dataDir: string;
  /** Closes the node and removes its data directory (unless the options named one). */
  close(): Promise<void>;
}

export interface InProcessNodeOptions {
  blockTimeMs: number;
  flashblockIntervalMs: number;
  devAccountCount: number;
  /** ChainNodeOptions.witnessWindow (default: the node's). */
  witnessWindow?: number;
  /** ChainNodeOptions.follow: a read replica of the node at this websocket URL. */
  follow?: { leaderUrl: string };
  /** A data directory to open (kept by close: another node may reopen it); default a new temporary one. */
  dataDir?: string;
}

/** Opens a dev chain 901 node named `name` with the given block and flashblock times and dev accounts. */
export async function openInProcessNode(name: string, options: InProcessNodeOptions): Promise<InProcessNode> {
  await initKeccak();
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), `${name}-`));
  const node = await ChainNode.open({
    ...options,
    dataDir,
    chainId: 901n,
    preconfirmedReceipts: true,
    callWorkers: 0,
    callTimeoutMs: 5000,
    logger: createLogger({ name: `${name}-test`, level: "silent" }),
  });
  return {
    node,
    dataDir,
    close: async () => {
      await node.close();
      if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Opens the file's node before its tests (handing it to `use`) and closes it after them: the beforeAll/afterAll pair
 * of a test file that shares one in-process node.
 */
export function inProcessNodeForFile(
  name: string,
  options: InProcessNodeOptions,
  use: (node: ChainNode) => void,
  openTimeoutMs = 120_000,
): void {
  let opened: InProcessNode | undefined;
  beforeAll(async () => {
    opened = await openInProcessNode(name, options);
    use(opened.node);
  }, openTimeoutMs);
  afterAll(() => opened?.close());
}
