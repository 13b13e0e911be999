/**
 * The load generator (application; docs/load.md): a mix of transactions modelled on Base mainnet's traffic sent to
 * a node at a target gas rate, and its report. `npm run load` is its command line (src/load/main.ts);
 * `npm run bench:load` runs it against a devnet node.
 *
 * Public surface: `runLoad` with its options, progress and report (`chainFigures`: what the chain itself recorded),
 * the transaction mix (`BASE_LIKE_MIX`, `LOAD_KINDS`, `parseMix`, `formatMix`), the contracts the mix calls
 * (`LoadContracts`, `STORAGE_SLOTS_PER_CALL`), `SeenBlock`, `percentile`, and the errors (`LoadError` root).
 *
 * Concepts owned: a load mix (kinds of transaction and their shares), the target gas rate and how senders are paced
 * to it, and the load report (sent, included, latency percentiles, the chain's gas per second).
 */
export { type SeenBlock } from "./blocks.js";
export { type LoadContracts, STORAGE_SLOTS_PER_CALL } from "./calls.js";
export { LoadError, type LoadErrorKind, LoadRpcError, LoadSetupError, LoadUsageError } from "./errors.js";
export { BASE_LIKE_MIX, formatMix, LOAD_KINDS, type LoadKind, type LoadMix, parseMix } from "./mix.js";
export { chainFigures, type LoadProgress, type LoadReport, type LoadRunOptions, runLoad } from "./run.js";
export { percentile } from "./stats.js";
