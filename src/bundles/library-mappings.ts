/**
 * Thins a bundle's source map where it maps installed packages: of the mappings of a generated line into one
 * `node_modules` file in a row, only the first is kept; every mapping into the repository's own sources is kept. A process started with
 * `--enable-source-maps` reads a bundle's map at load and parses its mappings on the first stack trace it prepares
 * (an error logged, a library that reads an error's stack): for the node's bundle 1.5 MB of mappings, two thirds
 * of them for package code, ~170 ms of CPU on a quiet machine and up to ~400 ms in a busy test run, in every
 * service process. A stack frame in package code still names the package file and a line of it (the line
 * where that run of mappings starts); one in the repository's code keeps its exact line and column (docs/decisions.md "Source maps on").
 */
import { decode, encode, type SourceMapSegment } from "@jridgewell/sourcemap-codec";

/** `map` (version 3) with its package-code mappings thinned; its other fields as they were. */
export function thinLibraryMappings<
  Map extends { readonly sources: readonly string[]; readonly mappings: string },
>(map: Map): Map {
  const library = map.sources.map((source) => source.split(/[\\/]/).includes("node_modules"));
  const lines = decode(map.mappings).map((segments) =>
    segments.filter((segment: SourceMapSegment, i) => {
      if (segment.length === 1 || !library[segment[1]]) return true;
      // A package mapping right after another into the same file adds only a column: dropped.
      const before = segments[i - 1];
      return before === undefined || before.length === 1 || before[1] !== segment[1];
    }),
  );
  return { ...map, mappings: encode(lines) };
}
