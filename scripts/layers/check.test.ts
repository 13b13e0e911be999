// The layer check: the repository passes it, and each kind of wrong import is caught (by the function and by
// the command `npm run lint` runs).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { checkLayers, cyclesOf, type SourceFile } from "./check.js";
import { readTree } from "./tree.js";

const REPO = fileURLToPath(new URL("../..", import.meta.url));

/** A small tree that passes: a foundation, two libraries, a service and an application, all through index.ts. */
const CLEAN: readonly SourceFile[] = [
  { path: "src/errors/index.ts", text: "export class SuiteError extends Error {}\n" },
  { path: "src/chain/index.ts", text: 'export * from "./hex.js";\n' },
  {
    path: "src/chain/hex.ts",
    text: 'import { SuiteError } from "../errors/index.js";\nexport const e = SuiteError;\n',
  },
  { path: "src/derive/index.ts", text: 'import { e } from "../chain/index.js";\nexport const d = e;\n' },
  { path: "src/node/index.ts", text: 'import { d } from "../derive/index.js";\nexport const n = d;\n' },
  {
    path: "src/host/index.ts",
    text: 'import type { d } from "../derive/index.js";\nexport type H = typeof d;\n',
  },
  { path: "src/devnet/main.ts", text: 'import { n } from "../node/index.js";\nvoid n;\n' },
  { path: "test/node/spawn.ts", text: 'import { n } from "../../src/node/index.js";\nexport const s = n;\n' },
  {
    path: "src/chain/hex.test.ts",
    text: 'import { e } from "./hex.js";\nimport { n } from "../node/index.js";\nvoid e, n;\n',
  },
  { path: "bench/rpc.ts", text: 'import { s } from "../test/node/spawn.js";\nvoid s;\n' },
];

function withFile(file: SourceFile): SourceFile[] {
  return [...CLEAN.filter((existing) => existing.path !== file.path), file];
}

describe("layer check", () => {
  it("finds nothing wrong in the repository", () => {
    const findings = checkLayers(readTree(REPO));
    expect(findings.map((finding) => `${finding.kind}: ${finding.file} ${finding.specifier}`)).toEqual([]);
  });

  it("passes a clean tree (white-box tests and applications' use of test helpers included)", () => {
    expect(checkLayers(CLEAN)).toEqual([]);
  });

  const wrong: Array<[string, SourceFile, string]> = [
    [
      "a library importing a service",
      { path: "src/chain/bad.ts", text: 'import "../node/index.js";\n' },
      "upward",
    ],
    [
      "a service importing a service",
      { path: "src/host/bad.ts", text: 'import { n } from "../node/index.js";\nvoid n;\n' },
      "sideways",
    ],
    [
      "a deep import into another package",
      { path: "src/derive/bad.ts", text: 'export { e } from "../chain/hex.js";\n' },
      "deep",
    ],
    [
      "a type-only deep import",
      {
        path: "src/node/bad.ts",
        text: 'import type { e } from "../chain/hex.js";\nexport type T = typeof e;\n',
      },
      "deep",
    ],
    [
      "a dynamic upward import",
      { path: "src/derive/bad.ts", text: 'export const m = () => import("../node/index.js");\n' },
      "upward",
    ],
    [
      "non-test code importing test code",
      { path: "src/node/bad.ts", text: 'import "../../test/node/spawn.js";\n' },
      "test-code",
    ],
    ["a file outside every package", { path: "misc/bad.ts", text: "export {};\n" }, "outside-packages"],
    [
      "an import of a missing file",
      { path: "src/chain/bad.ts", text: 'import "./missing.js";\n' },
      "unresolved",
    ],
  ];
  it.each(wrong)("catches %s", (_name, file, kind) => {
    const findings = checkLayers(withFile(file));
    expect(findings.map((finding) => [finding.kind, finding.file])).toEqual([[kind, file.path]]);
  });

  it("catches an import cycle, type-only imports included", () => {
    const findings = checkLayers([
      ...CLEAN,
      { path: "src/chain/a.ts", text: 'import type { B } from "./b.js";\nexport type A = B;\n' },
      { path: "src/chain/b.ts", text: 'import { c } from "./c.js";\nexport type B = number;\nvoid c;\n' },
      { path: "src/chain/c.ts", text: 'import type { A } from "./a.js";\nexport const c: A = 1;\n' },
    ]);
    expect(findings.map((finding) => [finding.kind, finding.specifier])).toEqual([
      ["cycle", "src/chain/a.ts, src/chain/b.ts, src/chain/c.ts"],
    ]);
  });

  it("finds every strongly connected component and self-loops", () => {
    const graph = new Map<string, string[]>([
      ["a", ["b"]],
      ["b", ["a", "c"]],
      ["c", ["c"]],
      ["d", ["a"]],
    ]);
    expect(cyclesOf(graph)).toEqual([["c"], ["a", "b"]]);
  });

  describe("the command npm run lint runs", () => {
    const roots: string[] = [];
    afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));
    const run = (files: readonly SourceFile[]) => {
      const root = mkdtempSync(join(tmpdir(), "layers-"));
      roots.push(root);
      for (const file of files) {
        mkdirSync(dirname(join(root, file.path)), { recursive: true });
        writeFileSync(join(root, file.path), file.text);
      }
      return spawnSync(
        process.execPath,
        ["--import", "tsx", join(REPO, "scripts/layers/main.ts"), "--root", root],
        {
          encoding: "utf8",
          cwd: REPO,
        },
      );
    };

    it("exits 0 on a clean tree", () => {
      const result = run(CLEAN);
      expect(result.stdout).toContain("0 findings");
      expect(result.status).toBe(0);
    });

    it("exits 1 and names a deliberately wrong import", () => {
      const result = run(withFile({ path: "src/chain/bad.ts", text: 'import "../node/index.js";\n' }));
      expect(result.stdout).toContain('upward: src/chain/bad.ts "../node/index.js"');
      expect(result.status).toBe(1);
    });
  });
});
