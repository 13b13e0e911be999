/**
 * Runs the prover host conformance suite. By default against this repository's host (real processes:
 * local-mode enclaves over Unix sockets and the host, in two deployments); with PROVER_HOST_URL set,
 * against that running host instead (PROVER_HOST_ENCLAVES: its enclave count, optional;
 * PROVER_HOST_EXPECT_HEALTHY: "true"/"false", optional).
 */
import { afterAll, beforeAll } from "vitest";
import { type RunningEnclave, startEnclave } from "../../enclave/test/enclave-process.js";
import { hostArgs, type RunningHost, startHost } from "../../test/host/spawn-host.js";
import { type ProverHostTarget, proverHostConformance } from "./suite.js";

const external = process.env.PROVER_HOST_URL;

function socketPath(enclave: RunningEnclave): string {
  if (enclave.address.kind !== "unix") throw new Error("expected a Unix socket enclave");
  return enclave.address.path;
}

/** Starts `enclaveCount` local enclaves and our host in front of them for the suite's duration. */
function ownHost(enclaveCount: number, registry: string | undefined): () => ProverHostTarget {
  let enclaves: RunningEnclave[] = [];
  let host: RunningHost | undefined;
  beforeAll(async () => {
    enclaves = await Promise.all(Array.from({ length: enclaveCount }, () => startEnclave()));
    host = await startHost(
      hostArgs({ enclaves: enclaves.map(socketPath), ...(registry === undefined ? {} : { registry }) }),
    );
  });
  afterAll(async () => {
    await host?.stop();
    await Promise.all(enclaves.map((enclave) => enclave.stop()));
  });
  return () => {
    if (host === undefined) throw new Error("host not started");
    return { url: host.url, enclaveCount, expectHealthy: registry === undefined };
  };
}

if (external !== undefined) {
  const count = process.env.PROVER_HOST_ENCLAVES;
  const healthy = process.env.PROVER_HOST_EXPECT_HEALTHY;
  proverHostConformance(external, () => ({
    url: external,
    ...(count === undefined ? {} : { enclaveCount: Number(count) }),
    ...(healthy === undefined ? {} : { expectHealthy: healthy === "true" }),
  }));
} else {
  proverHostConformance("this repository's host, one enclave, no registry", ownHost(1, undefined));
  // The registry address points at nothing (the L1 RPC is a closed port): no signer can be confirmed,
  // so this deployment is unhealthy and proofs are NoValidSigner, while enclave_* calls work.
  proverHostConformance(
    "this repository's host, two enclaves, registry unreachable",
    ownHost(2, "0x00000000000000000000000000000000000000aa"),
  );
}
