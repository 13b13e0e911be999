// src/derive is a pure library (docs/derive.md): no network, no files, no clocks, no environment, no randomness.
// Its data comes in through the provider interfaces only. The inspect tool (src/derive/cli/) is the one part that
// reads files, and no library file imports it.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL(".", import.meta.url));

function libraryFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === "cli" || entry.name === "test" ? [] : libraryFiles(full);
    const isTest = /\.test\.ts$|\.test-support\.ts$/.test(entry.name);
    return entry.name.endsWith(".ts") && !isTest ? [full] : [];
  });
}

/** Node built-ins a pure library may use: decompression works on bytes in memory. */
const ALLOWED_BUILTINS = new Set(["node:zlib"]);
/** Globals that reach the outside world or make results depend on when or where they run. */
const IMPURE =
  /\b(process\.|Date\.now|new Date\(|fetch\(|setTimeout|setInterval|Math\.random|getRandomValues|performance\.now)/;

describe("src/derive is pure", () => {
  const files = libraryFiles(ROOT);

  it("has library files to check", () => {
    expect(files.length).toBeGreaterThan(30);
  });

  it("imports no node built-in but zlib, and not its own command-line tool", () => {
    const offending = files.flatMap((file) =>
      ts
        .preProcessFile(readFileSync(file, "utf8"), true, true)
        .importedFiles.map((reference) => reference.fileName)
        .filter(
          (name) =>
            (name.startsWith("node:") && !ALLOWED_BUILTINS.has(name)) ||
            ["fs", "net", "http", "https", "child_process", "os"].includes(name) ||
            /(^|\/)cli\//.test(name),
        )
        .map((name) => `${relative(ROOT, file)} imports ${name}`),
    );
    expect(offending).toEqual([]);
  });

  it("reads no clock, environment, network or randomness", () => {
    const offending = files.flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .map((line, index) => ({ line, index }))
        .filter(({ line }) => !/^\s*(\/\/|\*|\/\*)/.test(line) && IMPURE.test(line))
        .map(({ line, index }) => `${relative(ROOT, file)}:${index + 1}: ${line.trim()}`),
    );
    expect(offending).toEqual([]);
  });
});
