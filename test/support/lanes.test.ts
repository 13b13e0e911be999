import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/bundles/index.js";
import { PROCESS_TESTS_BESIDE_CODE, ProcessInUnitLaneError, UNIT_TESTS_UNDER_TEST } from "./lanes.js";

/** A call of vitest's module-graph reset, in a test file's text. */
const RESETS_MODULES = /\bvi\s*\.\s*resetModules\s*\(/;

/** Every test file of the repository (relative paths), outside node_modules and dot-folders. */
function testFiles(dir = ""): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(join(REPO_ROOT, dir), { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) files.push(...testFiles(path));
    else if (entry.name.endsWith(".test.ts")) files.push(path);
  }
  return files;
}

describe("test lanes", () => {
  it("lists only test files that exist, each an exception to its folder's lane", () => {
    for (const file of [...PROCESS_TESTS_BESIDE_CODE, ...UNIT_TESTS_UNDER_TEST]) {
      expect(existsSync(join(REPO_ROOT, file)), file).toBe(true);
      expect(file, file).toMatch(/\.test\.ts$/);
    }
    for (const file of PROCESS_TESTS_BESIDE_CODE) expect(file.startsWith("test/"), file).toBe(false);
    for (const file of UNIT_TESTS_UNDER_TEST) expect(file.startsWith("test/"), file).toBe(true);
  });

  it("refuses to start a process in the unit lane (this file runs there)", () => {
    expect(() => spawn(process.execPath, ["--version"])).toThrow(ProcessInUnitLaneError);
    expect(() => execFileSync(process.execPath, ["--version"])).toThrow(ProcessInUnitLaneError);
  });

  it("hold no test that resets a worker's module graph (both lanes share their workers between files)", () => {
    // What the check finds: a reset, however spaced.
    expect(RESETS_MODULES.test(["vi", "resetModules();"].join("."))).toBe(true);
    expect(RESETS_MODULES.test(["vi", " resetModules ()"].join("."))).toBe(true);
    const files = testFiles();
    expect(files).toContain("test/support/lanes.test.ts");
    expect(files.length).toBeGreaterThan(250);
    // A test that needs a fresh copy of a module imports it under a query on its URL (docs/decisions.md).
    const resetting = files.filter((file) =>
      RESETS_MODULES.test(readFileSync(join(REPO_ROOT, file), "utf8")),
    );
    expect(resetting).toEqual([]);
  });
});
