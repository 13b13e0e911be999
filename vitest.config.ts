import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["{src,enclave,codegen,generated,conformance,test,contracts,scripts}/**/*.test.ts"],
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: true,
    maxWorkers: 2,
  },
});
