/**
 * `npm run build:enclave` (scripts/build-enclave.ts): a build from a separate copy of the repository at another path
 * gives the same bytes as a build of the working tree. The copy has its own tracked sources, its own copy of every
 * installed package the bundle is built from (the packages of the working tree's build inputs, copied into the copy's
 * node_modules), and its own native addons, compiled in it by native/build.mjs. What the two share: the build tools
 * (esbuild, node-gyp and its compiler, run from the working tree's node_modules and the machine), the Node.js runtime
 * and its headers, and the installed packages' bytes themselves (copied from one npm ci, not installed twice), c-kzg's
 * compiled addon among them. The bundle runs alone from a folder of its own, logs its hash at boot, recovers senders
 * on the libsecp256k1 addon it embeds (the `secp256k1` package's prebuilt binary), checks blobs on the c-kzg addon and
 * trusted setup it embeds (the KZG backend forced to c-kzg), passes the conformance suite's enclave checks in both
 * frame forms and both message forms, and loads its embedded nsm addon on the Nitro path.
 */
import { execFileSync, execFile as execFileCallback, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import nodeGypBuild from "node-gyp-build";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE_ROLLUP_PATH, recordedWitness } from "../../conformance/fixture.js";
import { runConformance } from "../../conformance/suite.js";
import {
  buildEnclaveImage,
  ENCLAVE_BASE_IMAGE,
  ENCLAVE_NODE_VERSION,
  type EnclaveBuild,
} from "../../scripts/build-enclave.js";
import { toHex } from "../../src/chain/index.js";
import { callEnclave } from "../../src/host/index.js";
import { withChainWitness } from "../../src/proof/program/parallel/chain-witness.test-support.js";
import { trackChild } from "../support/child-start.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

const execFile = promisify(execFileCallback);

/**
 * The installed package folders a build read, from its inputs: `node_modules/<name>` or
 * `node_modules/@scope/<name>`, nested ones with their full path.
 */
function packageFolders(inputs: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const input of inputs) {
    const parts = input.split("/");
    const last = parts.lastIndexOf("node_modules");
    if (last < 0) continue;
    const nameParts = parts[last + 1]?.startsWith("@") === true ? 2 : 1;
    folders.add(parts.slice(0, last + 1 + nameParts).join("/"));
  }
  return [...folders].sort();
}

/**
 * A clean-clone-like copy at `dir`, first part: the tracked sources the enclave build reads and the native addons
 * compiled in it. Needs nothing from a build of the working tree, so it runs while that build does.
 */
async function cloneSourcesInto(dir: string): Promise<void> {
  const tracked = execFileSync(
    "git",
    ["ls-files", "-z", "enclave", "src", "native", "generated", "contracts"],
    {
      cwd: repoRoot,
      encoding: "utf8",
    },
  )
    .split("\0")
    .filter((path) => path !== "");
  for (const path of [...tracked, "package.json", "tsconfig.json"]) {
    await mkdir(join(dir, dirname(path)), { recursive: true });
    await cp(join(repoRoot, path), join(dir, path));
  }
  // What npm ci's `prepare` does: the addons compiled from this copy's sources (node-gyp and node-addon-api's
  // headers found through NODE_PATH, since the copy holds only the bundle's packages).
  await execFile(process.execPath, ["native/build.mjs"], {
    cwd: dir,
    env: { ...process.env, NODE_PATH: join(repoRoot, "node_modules") },
    maxBuffer: 16 * 1024 * 1024,
  });
}

/**
 * c-kzg's addon, as npm ci built it in the working tree: the image embeds it, and the copy takes its bytes rather
 * than compiling c-kzg and blst again (tens of seconds of CPU), as it takes the packages' bytes.
 */
const CKZG_ADDON = join("node_modules", "c-kzg", "build", "Release", "kzg.node");

/** Second part: the copy's own `packages` (the installed package folders a build reads, as npm ci left them). */
async function clonePackagesInto(dir: string, packages: readonly string[]): Promise<void> {
  // One after the other: a nested package's folder lies inside its parent's.
  for (const folder of packages)
    await cp(join(repoRoot, folder), join(dir, folder), { recursive: true, dereference: true });
  await mkdir(join(dir, dirname(CKZG_ADDON)), { recursive: true });
  await cp(join(repoRoot, CKZG_ADDON), join(dir, CKZG_ADDON));
}

interface StartedBundle {
  readonly lines: Record<string, unknown>[];
  /** Resolves with the first line (already logged or to come) that `matches`. */
  line(matches: (entry: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  readonly exited: Promise<number | null>;
  readonly listening: Promise<Record<string, unknown>>;
  stop(): Promise<number | null>;
}

/** `node <bundle> args` from the bundle's own folder (nothing else there), JSON lines collected. */
function startBundle(
  bundlePath: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): StartedBundle {
  const child = spawn(process.execPath, ["--max-old-space-size=2048", bundlePath, ...args], {
    cwd: dirname(bundlePath),
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  trackChild(child);
  const lines: Record<string, unknown>[] = [];
  const waiting = new Set<(entry: Record<string, unknown>) => void>();
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  createInterface({ input: child.stdout }).on("line", (line) => {
    const entry = JSON.parse(line) as Record<string, unknown>;
    lines.push(entry);
    for (const wait of waiting) wait(entry);
  });
  const line = (matches: (entry: Record<string, unknown>) => boolean) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const found = lines.find(matches);
      if (found !== undefined) return resolve(found);
      const wait = (entry: Record<string, unknown>) => {
        if (!matches(entry)) return;
        waiting.delete(wait);
        resolve(entry);
      };
      waiting.add(wait);
      void exited.then((code) =>
        reject(new Error(`the bundle exited with ${code}: ${JSON.stringify(lines)}`)),
      );
    });
  const listening = line((entry) => entry.msg === "enclave listening");
  listening.catch(() => undefined);
  return {
    lines,
    line,
    exited,
    listening,
    stop: () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

describe("the enclave image bundle", () => {
  let work: string;
  let builds: EnclaveBuild[];

  let workingTree: EnclaveBuild;
  let packages: string[];

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "enclave-image-"));
    // A copy at another path and depth than the working tree: a build that depended on either would differ. Its
    // sources are copied and its addons compiled while the working tree is built.
    const clone = join(work, "b", "deeper", "clone");
    const sources = cloneSourcesInto(clone);
    sources.catch(() => undefined);
    // A build of the working tree names the packages the bundle is built from.
    workingTree = await buildEnclaveImage(repoRoot, join(work, "out-working-tree"));
    packages = packageFolders(workingTree.inputs);
    await sources;
    await clonePackagesInto(clone, packages);
    builds = [await buildEnclaveImage(clone, join(work, "out-clone"))];
  }, 600_000);

  afterAll(async () => {
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  });

  it("builds from separate copies at different paths are byte-identical, as their manifests say", async () => {
    const [first, second] = [builds[0]!, workingTree];
    const [one, two] = await Promise.all([readFile(first.bundlePath), readFile(second.bundlePath)]);
    expect(one.equals(two)).toBe(true);
    // The copy read its own packages and addons, and got the working tree's bytes.
    expect(packages.length).toBeGreaterThan(5);
    expect(first.inputs).toEqual(workingTree.inputs);
    expect(first.manifest).toEqual(workingTree.manifest);
    expect(createHash("sha256").update(one).digest("hex")).toBe(first.manifest.bundleSha256);
    expect(await readFile(first.manifestPath, "utf8")).toBe(await readFile(second.manifestPath, "utf8"));
    expect(first.manifest.bundleSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(first.manifest).toMatchObject({
      nodeVersion: ENCLAVE_NODE_VERSION,
      baseImage: ENCLAVE_BASE_IMAGE,
    });
    // The bundle names no path of the clone it was built from.
    expect(one.includes(work)).toBe(false);
  });

  it("Dockerfile.enclave runs the recorded Node.js version from the pinned digest, in both stages", async () => {
    const dockerfile = await readFile(join(repoRoot, "Dockerfile.enclave"), "utf8");
    const froms = dockerfile.split("\n").filter((line) => line.startsWith("FROM "));
    expect(froms.length).toBe(2);
    for (const from of froms) expect(from).toContain(ENCLAVE_BASE_IMAGE);
    expect(ENCLAVE_BASE_IMAGE.startsWith(`node:${ENCLAVE_NODE_VERSION}-`)).toBe(true);
  });

  it("runs alone, logs its hash at boot and passes the enclave checks in both frame and message forms", async () => {
    const build = builds[0]!;
    const socket = join(work, "enclave.sock");
    // c-kzg required (a forced backend that does not load fails the blob's check, and with it the proof): only the
    // addon and trusted setup the bundle embeds can give it, its folder holding nothing else.
    const enclave = startBundle(
      build.bundlePath,
      ["--local", "--listen", socket, "--rollup-config", FIXTURE_ROLLUP_PATH],
      { OP_KZG_BACKEND: "native" },
    );
    try {
      const listening = await enclave.listening;
      expect(listening.bundleSha256).toBe(build.manifest.bundleSha256);
      // Sender recovery on libsecp256k1 from the addon the bundle carries (its folder has no node_modules), the
      // package's prebuilt binary as node-gyp-build finds it for this platform, byte for byte.
      expect(listening.secp256k1).toBe("libsecp256k1");
      const prebuilt = await readFile(nodeGypBuild.path(join(repoRoot, "node_modules", "secp256k1")));
      expect(build.manifest.addons.secp256k1).toBe(createHash("sha256").update(prebuilt).digest("hex"));
      const ckzg = await readFile(join(repoRoot, CKZG_ADDON));
      expect(build.manifest.addons["c-kzg"]).toBe(createHash("sha256").update(ckzg).digest("hex"));
      for (const frameLengthPrefix of [4, 8] as const) {
        for (const messageForm of ["spec", "base"] as const) {
          const results = await runConformance(
            { enclave: { kind: "unix", path: socket } },
            { frameLengthPrefix, messageForm, only: ["enclave."] },
          );
          expect(results.length).toBeGreaterThan(15);
          expect(results.filter((r) => r.status !== "PASS")).toEqual([]);
        }
      }
    } finally {
      await enclave.stop();
    }
  }, 300_000);

  it("starts its block workers from its own file: checks the preimages and blobs and executes a Prove on them with --workers 2", async () => {
    const socket = join(work, "enclave-workers.sock");
    const enclave = startBundle(builds[0]!.bundlePath, [
      "--local",
      "--listen",
      socket,
      "--rollup-config",
      FIXTURE_ROLLUP_PATH,
      "--workers",
      "2",
    ]);
    try {
      await enclave.listening;
      const { preimages, rollupConfig, manifest } = recordedWitness();
      const { witness } = await withChainWitness(preimages, rollupConfig);
      const response = await callEnclave(
        { kind: "unix", path: socket },
        { kind: "Prove", preimages: witness },
        { responseStartTimeoutMs: Number.POSITIVE_INFINITY },
      );
      if (response.kind !== "Prove") throw new Error(`expected a proof, got ${JSON.stringify(response)}`);
      expect(response.result.Tee.proposals.map((p) => toHex(p.output_root))).toEqual(manifest.outputRoots);
      expect(await enclave.line((entry) => entry.msg === "preimages verified")).toMatchObject({
        preimages: witness.length,
        // The range's blob, its commitment computed on a worker (the image's c-kzg, loaded in the worker thread).
        blobs: 1,
        blobsChecked: 1,
        workers: 2,
      });
      expect(await enclave.line((entry) => entry.msg === "range executed")).toMatchObject({
        mode: "parallel",
        workers: 2,
      });
    } finally {
      await enclave.stop();
    }
  }, 300_000);

  it("on the Nitro path it loads its embedded nsm addon (no build folder beside it) and finds no device here", async () => {
    const addonDir = join(work, "tmp");
    const enclave = startBundle(builds[0]!.bundlePath, [], { TMPDIR: addonDir });
    expect(await enclave.exited).toBe(1);
    const error = String(enclave.lines.at(-1)?.error);
    expect(error).toMatch(/^NitroUnavailableError: /);
    expect(error).not.toMatch(/could not be loaded/);
    const written = await readFile(
      join(addonDir, "op-enclave-addons", `nsm-${builds[0]!.manifest.addons.nsm}.node`),
    );
    expect(written.length).toBeGreaterThan(0);
  }, 120_000);
});
