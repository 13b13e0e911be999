/**
 * The payload attributes a sealed block was built with, read back from its header: what re-executing the block
 * needs besides its transactions (a replica checking its leader, a prover asking a client to execute a payload).
 */
import { decodeOpExtraData } from "./base-fee.js";
import type { PayloadAttributes } from "./block-builder.js";
import type { BlockHeader } from "./header.js";
import { OpFork, type RollupConfig, isForkActive } from "./rollup-config.js";

/** The header fields the attributes come from. */
export type AttributeFields = Pick<
  BlockHeader,
  "timestamp" | "mixHash" | "beneficiary" | "gasLimit" | "extraData" | "parentBeaconBlockRoot"
>;

/**
 * Time, randomness, fee recipient, beacon root (Ecotone+), gas limit, and the EIP-1559 parameters (Holocene+) and
 * minimum base fee (Jovian+) the header's extraData carries. Re-executing with them must give the header back.
 * Throws decodeOpExtraData's error when a Holocene header's extraData is malformed.
 */
export function payloadAttributesOfHeader(config: RollupConfig, h: AttributeFields): PayloadAttributes {
  const attributes: PayloadAttributes = {
    timestamp: h.timestamp,
    prevRandao: h.mixHash,
    suggestedFeeRecipient: h.beneficiary,
    gasLimit: h.gasLimit,
  };
  if (isForkActive(config, OpFork.Ecotone, h.timestamp) && h.parentBeaconBlockRoot !== undefined)
    attributes.parentBeaconBlockRoot = h.parentBeaconBlockRoot;
  if (isForkActive(config, OpFork.Holocene, h.timestamp)) {
    const p = decodeOpExtraData(h.extraData);
    const params = new Uint8Array(8);
    const view = new DataView(params.buffer);
    view.setUint32(0, Number(p.denominator));
    view.setUint32(4, Number(p.elasticity));
    attributes.eip1559Params = params;
    if (isForkActive(config, OpFork.Jovian, h.timestamp)) attributes.minBaseFee = p.minBaseFee ?? 0n;
  }
  return attributes;
}
