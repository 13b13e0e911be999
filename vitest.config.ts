import { configDefaults, defineConfig } from "vitest/config";
import {
  BESIDE_CODE,
  PROCESS_TESTS_BESIDE_CODE,
  UNDER_TEST,
  UNIT_TESTS_UNDER_TEST,
} from "./test/support/lanes.js";
import LongestFirstSequencer from "./test/support/sequencer.js";

export default defineConfig({
  test: {
    reporters: ["default", "./test/support/summary-reporter.ts", "./test/support/duration-table.ts"],
    // The process lane, then the unit lane, each longest file first (test/support/sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: true,
    // Three workers on the two-core CI machine: most of a process file's time is spent waiting for blocks, slots
    // and child processes, not on the test worker's own CPU.
    maxWorkers: 3,
    // Inherited by every process a test starts: the native vsock addon refuses AF_VSOCK before socket(2).
    // The vsock device on development and CI machines belongs to the sandbox host.
    env: { OP_ENCLAVE_FORBID_VSOCK: "1" },
    // Services and worker threads start from bundles built for this run (src/bundles).
    globalSetup: ["./test/support/bundles.global-setup.ts"],
    setupFiles: ["./test/support/bundles.setup.ts"],
    // Two lanes (test/support/lanes.ts): `vitest run --project unit` is `npm run test:unit`.
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: [BESIDE_CODE, ...UNIT_TESTS_UNDER_TEST],
          exclude: [...configDefaults.exclude, ...PROCESS_TESTS_BESIDE_CODE],
          setupFiles: ["./test/support/no-processes.setup.ts"],
          // One module graph per worker, not per file: the unit files import the same libraries (viem, the EVM,
          // the codecs), which a fresh graph per file imported again each time. They keep no state between files.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "process",
          // One module graph per worker here too: a process file's own import (the host, the node, viem, the EVM)
          // cost 2-5 s of CPU each time on a loaded machine, for ~150 files. Their state lives in the processes they
          // start and in their own module's variables, which are fresh per file; the spawn helpers keep none.
          isolate: false,
          include: [UNDER_TEST, ...PROCESS_TESTS_BESIDE_CODE],
          // After each file, children its spawn helpers started and nobody stopped are killed.
          setupFiles: ["./test/support/leftover-children.setup.ts"],
          exclude: [...configDefaults.exclude, ...UNIT_TESTS_UNDER_TEST],
        },
      },
    ],
  },
});
