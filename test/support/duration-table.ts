/**
 * A vitest reporter that, when TEST_DURATIONS_OUT names a file, writes each test file's seconds (import plus tests
 * and hooks) into it as the table the sequencer reads (test/support/file-durations.json): the files of this run
 * replace their entries, the others are kept. Run it on the CI machine, a clean clone, the whole suite:
 * `TEST_DURATIONS_OUT=test/support/file-durations.json npx vitest run`.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { relative } from "node:path";
import type { Reporter, TestModule, Vitest } from "vitest/node";

export default class DurationTableReporter implements Reporter {
  private root = process.cwd();

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const out = process.env.TEST_DURATIONS_OUT;
    if (out === undefined || out === "") return;
    const table: Record<string, number> = existsSync(out)
      ? (JSON.parse(readFileSync(out, "utf8")) as Record<string, number>)
      : {};
    for (const module of testModules) {
      const { collectDuration, duration } = module.diagnostic();
      const path = relative(this.root, module.moduleId).split("\\").join("/");
      table[path] = Math.round((collectDuration + duration) / 100) / 10;
    }
    const sorted = Object.entries(table).sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
    writeFileSync(out, `${JSON.stringify(Object.fromEntries(sorted), null, 2)}\n`);
  }
}
