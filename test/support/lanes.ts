/**
 * The two test lanes (vitest.config.ts's projects). The unit lane (`npm run test:unit`) runs the tests that start no
 * process; the process lane runs those that do (nodes, hosts, enclaves, anvil, PostgreSQL, CLIs), from the bundles
 * the run builds first. `npm test` runs both.
 *
 * By location: tests beside the code are unit tests, tests under test/ start processes; the two lists below name
 * the exceptions. In the unit lane, starting a process throws (no-processes.setup.ts), so a unit-lane file that
 * starts one fails and has to be listed here (or better, moved). lanes.test.ts checks that every listed file exists.
 */

/** Tests beside the code they test. */
export const BESIDE_CODE =
  "{src,enclave,codegen,generated,conformance,contracts,scripts,native}/**/*.test.ts";

/** Tests under test/. */
export const UNDER_TEST = "test/**/*.test.ts";

/** Tests beside the code that start processes: they run in the process lane. */
export const PROCESS_TESTS_BESIDE_CODE: readonly string[] = [
  "conformance/forms.test.ts",
  "conformance/nonconforming-peers.test.ts",
  "conformance/own-implementations.test.ts",
  "enclave/enclave-process.test.ts",
  "enclave/main.test.ts",
  "scripts/execute-fixture.test.ts",
  "scripts/layers/check.test.ts",
  "src/batcher/batcher.e2e.test.ts",
  "src/batcher/brief-error.test.ts",
  "src/batcher/tx-sender.test.ts",
  "src/chain-rpc/anvil.test.ts",
  "src/chain-rpc/http-deadline.test.ts",
  "src/chain-rpc/node.test.ts",
  "src/derive/cli/inspect.test.ts",
  "src/devnet/worker-hosts.test.ts",
  "src/proof-jobs/queue.test.ts",
  "src/proof-jobs/worker.test.ts",
  "src/proof-jobs/workers.test.ts",
  "src/rpc/server-close.test.ts",
];

/** Tests under test/ that start no process: they run in the unit lane (and belong beside the code they test). */
export const UNIT_TESTS_UNDER_TEST: readonly string[] = [
  "test/evm/eip3009-token.test.ts",
  "test/evm/tee-prover-registry.test.ts",
  "test/evm/tee-verifier.test.ts",
  "test/host/boot-preimages.test.ts",
  "test/host/config.test.ts",
  "test/host/l2-output-boundary.test.ts",
  "test/host/proof-errors.test.ts",
  "test/host/proof-result.test.ts",
  "test/host/witness-fixtures.test.ts",
  "test/host/witness-missing.test.ts",
  "test/merchant/config.test.ts",
  "test/node/units.test.ts",
  "test/proof/program-units.test.ts",
  "test/proposer/step-loop.test.ts",
  "test/support/lanes.test.ts",
];

/** A test of the unit lane tried to start a process. */
export class ProcessInUnitLaneError extends Error {
  constructor(readonly call: string) {
    super(
      `child_process.${call} in a unit-lane test: a test that starts a process belongs to the process lane ` +
        "(test/, or test/support/lanes.ts's PROCESS_TESTS_BESIDE_CODE)",
    );
    this.name = "ProcessInUnitLaneError";
  }
}
