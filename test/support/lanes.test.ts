import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/bundles/index.js";
import { PROCESS_TESTS_BESIDE_CODE, ProcessInUnitLaneError, UNIT_TESTS_UNDER_TEST } from "./lanes.js";

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
});
