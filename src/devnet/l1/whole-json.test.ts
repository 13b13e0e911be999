import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { holdsWholeJsonDocument } from "./whole-json.js";

const dir = mkdtempSync(join(tmpdir(), "whole-json-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function check(text: string): boolean {
  const file = join(dir, "doc.json");
  writeFileSync(file, text);
  return holdsWholeJsonDocument(file);
}

/** Top-level objects and arrays, as anvil's state file is, with strings full of brackets, quotes and escapes. */
const documents = fc
  .oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.array(fc.jsonValue()))
  .chain((value) => fc.tuple(fc.constant(value), fc.constantFrom(undefined, 2)))
  .map(([value, indent]) => JSON.stringify(value, null, indent));

describe("holdsWholeJsonDocument", () => {
  it("accepts every whole document, with whitespace around it", () => {
    fc.assert(
      fc.property(documents, (text) => check(text) && check(`\n ${text}\n\t`)),
      { numRuns: 200 },
    );
  });

  it("refuses every strict prefix (a write torn by a kill)", () => {
    fc.assert(
      fc.property(
        documents.chain((text) => fc.tuple(fc.constant(text), fc.integer({ min: 0, max: text.length - 1 }))),
        ([text, cut]) => !check(text.slice(0, cut)),
      ),
      { numRuns: 300 },
    );
  });

  it("refuses trailing bytes after the document and non-container top levels", () => {
    expect(check('{"a":1}x')).toBe(false);
    expect(check('{"a":1}{}')).toBe(false);
    expect(check("123")).toBe(false);
    expect(check("")).toBe(false);
  });

  it("reads documents longer than its chunk", () => {
    const big = JSON.stringify({ blocks: Array.from({ length: 20_000 }, (_, i) => ({ n: i, s: '}]\\"{' })) });
    expect(big.length).toBeGreaterThan(1 << 17);
    expect(check(big)).toBe(true);
    expect(check(big.slice(0, big.length - 1))).toBe(false);
    expect(check(big.slice(0, 70_000))).toBe(false);
  });
});
