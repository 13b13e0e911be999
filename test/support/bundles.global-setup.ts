/**
 * Global setup of the test run: builds the service and worker bundles (src/bundles) into a fresh folder and provides
 * its path to the test files, whose setup (bundles.setup.ts) names it in OP_SERVICE_BUNDLES, so every spawn helper
 * starts services, and every worker pool its threads, from bundles built from the code under test. Vitest calls this
 * once per project (and once for the root): the first call builds, the others reuse its folder. The folder is
 * removed when the run ends.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { buildBundles, REPO_ROOT } from "../../src/bundles/index.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The folder of this run's service bundles. */
    serviceBundles: string;
  }
}

/** This run's build, shared by the calls for each project (they run in one process). */
const RUN_BUILD = Symbol.for("op-enclave-suite.test-bundles");
type WithRunBuild = typeof globalThis & { [RUN_BUILD]?: Promise<string> };

async function build(): Promise<string> {
  const parent = join(REPO_ROOT, ".build");
  mkdirSync(parent, { recursive: true });
  // Inside the repository: the bundles import packages from its node_modules.
  const dir = mkdtempSync(join(parent, "test-run-"));
  await buildBundles(dir);
  return dir;
}

export default async function setup(project: TestProject): Promise<() => void> {
  const shared = globalThis as WithRunBuild;
  const first = shared[RUN_BUILD] === undefined;
  if (first) shared[RUN_BUILD] = build();
  const dir = await shared[RUN_BUILD]!;
  project.provide("serviceBundles", dir);
  return () => {
    if (first) rmSync(dir, { recursive: true, force: true });
  };
}
