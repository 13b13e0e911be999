import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { fixtureFiles } from "../src/chain/fixture-paths.test-support.js";

const tmp = mkdtempSync(join(tmpdir(), "execute-fixture-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function runner(file: string) {
  const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/execute-fixture.ts", file], {
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("npm run execute-fixture", () => {
  const file = fixtureFiles()[0]!;

  it("prints one JSON line with match:true and exits 0 on a real block", () => {
    const r = runner(file);
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines.length).toBe(1);
    const out = JSON.parse(lines[0]!);
    expect(out).toMatchObject({ block: 26207960, match: true, gasUsed: 953624 });
    expect(out.blockHash).toBe(out.expectedBlockHash);
    expect(out.stateRoot).toMatch(/^0x[0-9a-f]{64}$/);
    expect(typeof out.ms).toBe("number");
  });

  it("exits 1 with match:false when the expected hash differs", () => {
    const json = JSON.parse(gunzipSync(readFileSync(file)).toString("utf8"));
    json.expected_block_hash = `0x${"00".repeat(32)}`;
    const wrong = join(tmp, "wrong.json.gz");
    writeFileSync(wrong, gzipSync(JSON.stringify(json)));
    const r = runner(wrong);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout.trim()).match).toBe(false);
  });

  it("exits non-zero with a named error when a preimage is missing", () => {
    const json = JSON.parse(gunzipSync(readFileSync(file)).toString("utf8"));
    delete json.preimages[json.parent_header.stateRoot];
    const pruned = join(tmp, "pruned.json.gz");
    writeFileSync(pruned, gzipSync(JSON.stringify(json)));
    const r = runner(pruned);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("MissingPreimageError");
    expect(r.stderr).toContain(json.parent_header.stateRoot.slice(4));
  });
});
