/**
 * The source maps of this run's service bundles (bundles.global-setup.ts, src/bundles/build.ts): a stack trace of a
 * bundled service names the TypeScript file and line (its process runs with --enable-source-maps), and the maps hold
 * the mappings without the sources' text, which every process and worker thread would read and parse at load for
 * nothing (docs/decisions.md "Source maps on").
 */
import { readFileSync } from "node:fs";
import { SourceMap, type SourceMapPayload } from "node:module";
import { dirname, join, resolve } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { bundlePath, REPO_ROOT } from "../../src/bundles/index.js";

const BUNDLES = inject("serviceBundles");

/** The bundle of `entry`, its map, and the map's sources as absolute paths. */
function load(entry: string): {
  lines: string[];
  map: SourceMap;
  sourcesContent: unknown;
  sources: string[];
} {
  const file = bundlePath(BUNDLES, entry);
  const payload = JSON.parse(readFileSync(`${file}.map`, "utf8")) as SourceMapPayload & {
    sourcesContent?: unknown;
  };
  return {
    lines: readFileSync(file, "utf8").split("\n"),
    map: new SourceMap(payload),
    sourcesContent: payload.sourcesContent,
    sources: payload.sources.map((source) => resolve(dirname(file), source)),
  };
}

describe("service bundles' source maps", () => {
  it.each([
    ["src/node/main.ts", "async function main(", "src/node/main.ts"],
    ["src/node/calls/call-worker.ts", "async function runJob(", "src/node/calls/call-worker.ts"],
  ])("%s: a line of the bundle maps back to its TypeScript file", (entry, text, source) => {
    const { lines, map, sources } = load(entry);
    const line = lines.findIndex((l) => l.startsWith(text));
    expect(line, `'${text}' in the ${entry} bundle`).toBeGreaterThan(0);
    const found = map.findEntry(line, 0) as { originalSource?: string; originalLine?: number };
    expect(found.originalSource).toBeDefined();
    expect(resolve(dirname(bundlePath(BUNDLES, entry)), found.originalSource!)).toBe(join(REPO_ROOT, source));
    const original = readFileSync(join(REPO_ROOT, source), "utf8").split("\n")[found.originalLine!];
    expect(original).toContain(text.replace(/^async /, ""));
    // Every source the map names is a file of this repository (its own code or an installed package).
    for (const path of sources) expect(path.startsWith(REPO_ROOT)).toBe(true);
  });

  it("map package code to the package's files too (thinned: library-mappings.ts)", () => {
    const { lines, map } = load("src/node/main.ts");
    let library = 0;
    for (let line = 0; line < lines.length; line++) {
      const found = map.findEntry(line, 0) as { originalSource?: string };
      if (found.originalSource?.includes("/node_modules/") === true) library++;
    }
    // viem, the EVM, noble and the rest: thousands of the bundle's lines come from packages (library-mappings.ts).
    expect(library).toBeGreaterThan(10_000);
  });

  it("hold no sources' text", () => {
    for (const entry of ["src/node/main.ts", "src/host/main.ts", "enclave/main.ts"])
      expect(load(entry).sourcesContent, entry).toBeUndefined();
  });
});
