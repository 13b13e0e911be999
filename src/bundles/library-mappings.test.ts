/**
 * thinLibraryMappings against node:module's own SourceMap: for random maps over a repository source and two package
 * sources, every mapping into the repository's code maps as before, a package mapping is kept where the mapping
 * before it on the line is not into the same package file, and no other package mapping is; so every generated
 * position still maps into the file it mapped into before.
 */
import { SourceMap, type SourceMapPayload } from "node:module";
import { encode, decode, type SourceMapSegment } from "@jridgewell/sourcemap-codec";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { thinLibraryMappings } from "./library-mappings.js";

const SOURCES = [
  "../../src/node/main.ts",
  "../../node_modules/viem/_esm/index.js",
  "../../node_modules/@x/y/a.js",
];
const isLibrary = (source: number): boolean => source > 0;

/** Lines of segments with increasing generated columns, each mapped to one of SOURCES (or unmapped). */
const lines = fc.array(
  fc.array(
    fc.record({
      gap: fc.integer({ min: 1, max: 40 }),
      source: fc.integer({ min: -1, max: 2 }),
      line: fc.integer({ min: 0, max: 500 }),
      column: fc.integer({ min: 0, max: 120 }),
    }),
    { maxLength: 12 },
  ),
  { maxLength: 30 },
);

function mappingsOf(
  generated: { gap: number; source: number; line: number; column: number }[][],
): SourceMapSegment[][] {
  return generated.map((segments) => {
    let column = 0;
    return segments.map((s): SourceMapSegment => {
      column += s.gap;
      return s.source < 0 ? [column] : [column, s.source, s.line, s.column];
    });
  });
}

const payload = (segments: SourceMapSegment[][]): SourceMapPayload => ({
  version: 3,
  file: "main.mjs",
  sourceRoot: "",
  sources: SOURCES,
  sourcesContent: [],
  names: [],
  mappings: encode(segments),
});

describe("thinLibraryMappings", () => {
  it("keeps the repository's mappings and the first of each run of package mappings into one file", () => {
    fc.assert(
      fc.property(lines, (generated) => {
        const segments = mappingsOf(generated);
        const thinned = thinLibraryMappings(payload(segments));
        expect(thinned.sources).toEqual(SOURCES);
        const kept = decode(thinned.mappings);
        const expected = segments.map((line) =>
          line.filter((s, i) => {
            const before = line[i - 1];
            return s.length === 1 || !isLibrary(s[1]!) || before === undefined || before[1] !== s[1];
          }),
        );
        // (the encoding itself keeps no empty lines at the end)
        expect(kept).toEqual(decode(encode(expected)));
        // node:module's SourceMap agrees at every mapping of the repository's code, and every mapped position still
        // maps into the file it mapped into before.
        const map = new SourceMap(thinned);
        const before = new SourceMap(payload(segments));
        for (const [line, segs] of segments.entries())
          for (const s of segs)
            expect((map.findEntry(line, s[0] + 1) as { originalSource?: string }).originalSource).toBe(
              (before.findEntry(line, s[0] + 1) as { originalSource?: string }).originalSource,
            );
        for (const [line, segs] of segments.entries())
          for (const s of segs)
            if (s.length > 1 && !isLibrary(s[1]!))
              expect(map.findEntry(line, s[0])).toMatchObject({
                originalSource: SOURCES[0],
                originalLine: s[2],
                originalColumn: s[3],
              });
      }),
    );
  });

  it("keeps the other fields of the map", () => {
    const thinned = thinLibraryMappings({
      ...payload([[[0, 1, 2, 3]]]),
      names: ["x"],
      sourcesContent: undefined,
    });
    expect(thinned).toMatchObject({ version: 3, file: "main.mjs", names: ["x"] });
  });
});
