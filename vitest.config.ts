import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["{src,enclave,codegen,generated,conformance,test,contracts,scripts,native}/**/*.test.ts"],
    reporters: ["default", "./test/support/summary-reporter.ts"],
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: true,
    maxWorkers: 2,
    // Inherited by every process a test starts: the native vsock addon refuses AF_VSOCK before socket(2).
    // The vsock device on development and CI machines belongs to the sandbox host.
    env: { OP_ENCLAVE_FORBID_VSOCK: "1" },
  },
});
