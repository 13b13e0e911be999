/** Test support: TEEProverRegistry deployed on a dev chain node process, owned by development account 0. */
import { type Address, pad } from "viem";
import { deployArtifact } from "../../contracts/deploy.js";
import { clients, waitFor } from "../node/helpers.js";
import type { NodeProcess } from "../node/spawn-node.js";

/** Local-mode enclaves have no PCR0: their image hash is zero. */
export const LOCAL_IMAGE_HASH = pad("0x00", { size: 32 });

/**
 * Deploys the registry with `activeImageHash` (default: the local image) and returns its address once
 * its code is in `latest` (the node answers receipts at pre-confirmation, before the seal).
 */
export async function deployRegistry(
  node: NodeProcess,
  activeImageHash = LOCAL_IMAGE_HASH,
): Promise<Address> {
  const { publicClient, walletClient } = clients(node);
  const { address } = await deployArtifact(
    { publicClient, walletClient },
    "TEEProverRegistry",
    [walletClient.account.address, activeImageHash],
    { pollingIntervalMs: 50 },
  );
  await waitFor(
    async () => ((await publicClient.getCode({ address })) !== undefined ? true : undefined),
    "registry code on latest",
  );
  return address;
}
