/** L1 traversal: the anchored L1 chain from the derivation start to the L1 head, with system config updates. */
export {
  type ConfigUpdater,
  type L1BlockData,
  L1Traversal,
  MAX_TRAVERSAL_BLOCKS,
  l1BlockRef,
  receiptsOf,
  verifiedHeader,
} from "./l1-traversal.js";
