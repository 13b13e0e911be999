/**
 * The repository's declared layers (docs/layers.md): every folder of code is one package, every package sits in
 * one layer, and imports only point down. `scripts/layers/check.ts` enforces this table; `npm run lint` and
 * `npm test` run it.
 */

/** The four layers, bottom to top. */
export type Layer = "foundation" | "library" | "service" | "application";

export interface PackageDeclaration {
  /** The package's folder, relative to the repository root, `/`-separated. */
  readonly path: string;
  readonly layer: Layer;
  /**
   * Order among libraries: a library may import libraries of a lower rank only. Foundation packages have rank 0,
   * services 10, applications 20; a package never imports one of its own rank (no sideways imports).
   */
  readonly rank: number;
  /** What the package is, for the README's table and the check's messages. */
  readonly role: string;
}

const foundation = (path: string, role: string): PackageDeclaration => ({
  path,
  layer: "foundation",
  rank: 0,
  role,
});
const library = (path: string, rank: number, role: string): PackageDeclaration => ({
  path,
  layer: "library",
  rank,
  role,
});
const service = (path: string, role: string): PackageDeclaration => ({
  path,
  layer: "service",
  rank: 10,
  role,
});
const application = (path: string, role: string): PackageDeclaration => ({
  path,
  layer: "application",
  rank: 20,
  role,
});

/** Every package of the repository. A source file outside all of them fails the check. */
export const PACKAGES: readonly PackageDeclaration[] = [
  // Below the other foundation packages: every package's root error extends SuiteError, foundation ones included.
  { ...foundation("src/errors", "the root error class every package's errors extend"), rank: -1 },
  foundation("src/log", "structured JSON logging"),
  foundation(
    "src/bundles",
    "esbuild bundles of the services and worker threads that tests and the devnet start",
  ),
  foundation("src/metrics", "Prometheus metrics registry"),
  foundation("native", "node-gyp addons: AWS Nitro NSM device and vsock sockets"),
  foundation("contracts", "Solidity sources, solc-compiled artifacts and ABIs"),
  foundation("generated/rpc", "generated JSON-RPC types, codecs, clients and handler binders (from spec/)"),
  // Above generated/rpc: the frames carry the prover's data model, generated once there.
  {
    ...foundation("generated/protocol", "generated bincode frames of the host-enclave protocol (from spec/)"),
    rank: 0.5,
  },
  foundation("generated/journal", "generated journal packer (from spec/)"),
  library("src/chain", 1, "OP Stack block execution, headers, tries, preimages, rollup configs"),
  library("src/rpc", 1, "JSON-RPC 2.0 server core on uWebSockets.js"),
  library("src/attestation", 1, "AWS Nitro attestation document verification"),
  library(
    "src/proof-jobs",
    1,
    "the queue of L2 range proofs provers share (PostgreSQL or SQLite) and its worker loop",
  ),
  library("src/payments", 2, "EIP-3009 authorizations: signing, verification, relaying"),
  library("src/derive", 2, "derivation: L2 payload attributes from L1 data"),
  library(
    "src/proof/transport",
    1,
    "the TEE transport host and enclave share: addresses, the vsock port, frame writes",
  ),
  library("src/service-kit", 1, "flags with environment twins, usage text, process start, the back-off loop"),
  library(
    "src/service-queue",
    2,
    "the proof job queue as services use it: its flags, opened on first use, the /metrics listener",
  ),
  library("src/proof/preimages", 2, "preimage keys (one 32-byte type), the verified store, boot information"),
  library(
    "src/proof/onchain",
    3,
    "onchain encodings: journals and proposal signatures, config hashes, AggregateVerifier arguments",
  ),
  library("src/proof/program", 4, "the proof program: prologue, derivation and execution, epilogue"),
  library(
    "src/chain-rpc",
    3,
    "derivation data providers over JSON-RPC and the beacon API, every value checked against the hash that names it",
  ),
  service("src/node", "the OP Stack dev chain node (sequencer, flashblocks, JSON-RPC)"),
  service("src/host", "the prover host: prover_*, enclave_*, routing, witness"),
  service("enclave", "the enclave process: verifies preimages, proves, signs"),
  service("src/batcher", "posts L2 batches to L1"),
  service("src/merchant", "the merchant order service"),
  service("src/registrar", "registers attested enclave signers onchain"),
  service("src/proposer", "proves L2 output ranges through the host and proposes them to AggregateVerifier"),
  service("src/challenger", "checks AggregateVerifier proposals against the node and nullifies wrong ones"),
  application("src/devnet", "`npm start`: node, token and merchant service together"),
  application(
    "src/load",
    "`npm run load`: transactions modelled on Base mainnet's traffic at a target gas rate",
  ),
  application("conformance", "black-box conformance suite for prover implementations"),
  application("bench", "benchmarks"),
  application("scripts", "developer scripts (this check included)"),
  application("codegen", "compiles spec/ into generated/"),
  {
    path: "test",
    layer: "application",
    rank: 30,
    role: "end-to-end tests and the process helpers they share",
  },
];

/** Files at the repository root that belong to no package (tool configuration). */
export const ROOT_FILES: readonly string[] = ["vitest.config.ts", "eslint.config.js"];

/** Folders the check does not read. */
export const IGNORED_FOLDERS: readonly string[] = [
  "node_modules",
  ".git",
  ".build",
  ".data",
  "coverage",
  "tmp",
  "spec",
];
