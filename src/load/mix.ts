/**
 * What the generator sends: five kinds of transaction and their shares of the count. The default is modelled on
 * Base mainnet's traffic as we read it (an estimate, not a measurement): token transfers and DEX swaps make most
 * of the transactions, NFT mints and storage-heavy contract calls (indexers, games, bots writing fresh state) a
 * good part of the gas, contract deployments a few.
 */
import { LoadUsageError } from "./errors.js";

export const LOAD_KINDS = ["transfer", "swap", "mint", "storage", "deploy"] as const;
export type LoadKind = (typeof LOAD_KINDS)[number];

/** Relative weights by transaction count (need not sum to 100). */
export type LoadMix = Readonly<Record<LoadKind, number>>;

export const BASE_LIKE_MIX: LoadMix = { transfer: 45, swap: 25, mint: 12, storage: 15, deploy: 3 };

/** Parses `transfer=45,swap=25,…`; kinds not named get weight 0; at least one weight must be positive. */
export function parseMix(text: string): LoadMix {
  const mix: Record<LoadKind, number> = { transfer: 0, swap: 0, mint: 0, storage: 0, deploy: 0 };
  for (const part of text.split(",")) {
    const [name, weight, ...rest] = part.split("=").map((s) => s.trim());
    if (!LOAD_KINDS.includes(name as LoadKind) || weight === undefined || rest.length > 0)
      throw new LoadUsageError(
        `--mix: "${part}" is not <kind>=<weight> with kind one of ${LOAD_KINDS.join(", ")}`,
        {
          flag: "mix",
          value: text,
        },
      );
    const value = Number(weight);
    if (!/^\d+(\.\d+)?$/.test(weight) || !Number.isFinite(value))
      throw new LoadUsageError(`--mix: the weight of ${name} must be a non-negative number, got ${weight}`, {
        flag: "mix",
        value: text,
      });
    mix[name as LoadKind] = value;
  }
  if (LOAD_KINDS.every((kind) => mix[kind] === 0))
    throw new LoadUsageError("--mix: at least one weight must be positive", { flag: "mix", value: text });
  return mix;
}

export function formatMix(mix: LoadMix): string {
  return LOAD_KINDS.filter((kind) => mix[kind] > 0)
    .map((kind) => `${kind}=${mix[kind]}`)
    .join(",");
}

/** Draws kinds with the mix's weights. */
export function mixPicker(mix: LoadMix, random: () => number = Math.random): () => LoadKind {
  const total = LOAD_KINDS.reduce((sum, kind) => sum + mix[kind], 0);
  return () => {
    let r = random() * total;
    for (const kind of LOAD_KINDS) {
      r -= mix[kind];
      if (r < 0 && mix[kind] > 0) return kind;
    }
    return LOAD_KINDS.findLast((kind) => mix[kind] > 0)!;
  };
}
