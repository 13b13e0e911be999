/**
 * The order test files start in (vitest.config.ts `sequence.sequencer`): the process lane, then the unit lane, each
 * longest first, so the workers finish together (longest-processing-time scheduling; the unit lane's short files
 * fill the end). Vitest's own order runs the lanes in that order too but, in a clean clone (no results cache), each
 * lane's larger files first: a long process file that happens to be small on disk then starts late and runs alone
 * at the end of the run.
 *
 * The lanes are not interleaved: vitest keeps a worker of a non-isolated project (both lanes, vitest.config.ts) for
 * the next file only when the next file in the queue is of the same project, and otherwise ends it. One queue sorted
 * by duration alone alternated the lanes some 45 times, and every switch started a fresh worker that imported the
 * libraries (viem, the EVM, the codecs) again: 58 workers in one run, 9 in this order.
 *
 * A file's expected duration is, in this order: its seconds in file-durations.json (a clean-clone run on the CI
 * machine; `TEST_DURATIONS_OUT=<file> npx vitest run` writes a fresh table, see duration-table.ts), the duration
 * vitest cached from an earlier run here, or a default for its lane (new files: a process file is assumed to take
 * several seconds, a unit file one).
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** The lanes in the order they run (vitest.config.ts's projects); a project not named here runs last. */
const LANE_ORDER: readonly string[] = ["process", "unit"];

/** Seconds assumed for a file the table and the cache do not know. */
const DEFAULT_SECONDS: Readonly<Record<string, number>> = { process: 8, unit: 1 };

/** The committed table: repository-relative test file → seconds. */
function loadTable(): ReadonlyMap<string, number> {
  const text = readFileSync(new URL("./file-durations.json", import.meta.url), "utf8");
  return new Map(Object.entries(JSON.parse(text) as Record<string, number>));
}

export default class LongestFirstSequencer extends BaseSequencer {
  private readonly table = loadTable();

  /** The expected seconds of `spec`. */
  expectedSeconds(spec: TestSpecification): number {
    const path = relative(this.ctx.config.root, spec.moduleId).split("\\").join("/");
    const known = this.table.get(path);
    if (known !== undefined) return known;
    const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${path}`);
    if (cached !== undefined && cached.duration > 0) return cached.duration / 1000;
    return DEFAULT_SECONDS[spec.project.name] ?? 1;
  }

  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = new Map(files.map((spec) => [spec, this.expectedSeconds(spec)]));
    const lane = (spec: TestSpecification): number => {
      const index = LANE_ORDER.indexOf(spec.project.name);
      return index === -1 ? LANE_ORDER.length : index;
    };
    return Promise.resolve(
      [...files].sort(
        (a, b) =>
          a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
          lane(a) - lane(b) ||
          seconds.get(b)! - seconds.get(a)! ||
          a.moduleId.localeCompare(b.moduleId),
      ),
    );
  }
}
