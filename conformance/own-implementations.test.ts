/**
 * The conformance suite against this repository's implementations, started as real processes: a
 * local-mode enclave on a Unix socket given the recorded devnet's rollup.json (--rollup-config, its
 * development chain), the prover host in front of it, and a dev chain node. Every check passes against the
 * recorded witness as the control (the enclave proves it; every refusal is attributed to its defect), except
 * host.registry-fail-closed, which needs a registry-gated host and is run separately. With the synthetic
 * control (nobody can prove it) the proof-dependent checks SKIP for the documented reason.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatListenAddress } from "../src/proof/transport/index.js";
import { type RunningEnclave, startEnclave } from "../enclave/test/enclave-process.js";
import { hostArgs, type RunningHost, startHost } from "../test/host/spawn-host.js";
import { type NodeProcess, startNodeProcess } from "../test/node/spawn-node.js";
import type { CheckResult } from "./check.js";
import { FIXTURE_ROLLUP_PATH } from "./fixture.js";
import { allCheckIds, runConformance } from "./suite.js";
import { syntheticWitness } from "./witness.js";

/** The one check skipped in the default run: a black-box client cannot know whether a host has a registry. */
const DOCUMENTED_SKIPS: Readonly<Record<string, RegExp>> = {
  "host.registry-fail-closed": /needs a host whose registry confirms no configured signer/,
};

/** With the synthetic control: the checks that need a proof, and the reason they give. */
const SYNTHETIC_SKIPS: Readonly<Record<string, RegExp>> = {
  "enclave.proves-control": /the unmodified synthetic witness was not proved \(Error "MissingWitnessError/,
  "enclave.wrong-claimed-root": /produced no proof for the unmodified synthetic witness/,
  "enclave.journal-image-hash": /no request of this run produced a proof/,
  "enclave.withheld-preimage.l1-header": /the synthetic witness holds no L1 head header/,
  "enclave.withheld-preimage.l2-state-node": /the synthetic witness holds no agreed L2 state root node/,
  "enclave.withheld-preimage.blob": /the synthetic witness holds no blob field element/,
  "enclave.tampered-blob-element": /the synthetic witness holds no blob field element/,
  "enclave.schedule-block": /the unmodified synthetic witness was not proved/,
  "enclave.aggregate": /the unmodified synthetic witness was not proved/,
};

/** Every check that sends a Prove the enclave must refuse. */
const REFUSAL_CHECKS = [
  "enclave.content-verification.keccak256",
  "enclave.content-verification.sha256",
  "enclave.unknown-chain",
  "enclave.missing-boot-key",
  "enclave.withheld-preimage.l1-header",
  "enclave.withheld-preimage.l2-state-node",
  "enclave.withheld-preimage.blob",
  "enclave.tampered-blob-element",
  "enclave.precompile-key",
];

describe("conformance suite against this repository's enclave, host and node", () => {
  let enclave: RunningEnclave;
  let secondEnclave: RunningEnclave;
  let host: RunningHost;
  let gatedHost: RunningHost;
  let node: NodeProcess;
  let results: CheckResult[];

  beforeAll(async () => {
    [enclave, secondEnclave, node] = await Promise.all([
      startEnclave(["--rollup-config", FIXTURE_ROLLUP_PATH]),
      startEnclave(),
      startNodeProcess({ blockTimeMs: 500, flashblockIntervalMs: 100 }),
    ]);
    const paths = [enclave, secondEnclave].map(({ address }) => formatListenAddress(address));
    // The gated host has two enclaves and a registry whose L1 RPC is a closed port: no signer can ever be
    // confirmed valid.
    [host, gatedHost] = await Promise.all([
      startHost(hostArgs({ enclaves: paths.slice(0, 1) })),
      startHost(hostArgs({ enclaves: paths, registry: "0x00000000000000000000000000000000000000aa" })),
    ]);
    results = await runConformance(
      { enclave: enclave.address, host: host.url, node: node.url },
      { hostEnclaves: 1 },
    );
  }, 300_000);

  afterAll(async () => {
    await host?.stop();
    await gatedHost?.stop();
    await enclave?.stop();
    await secondEnclave?.stop();
    await node?.stop();
  });

  it("runs every check once", () => {
    expect(results.map((r) => r.id)).toEqual(allCheckIds);
  });

  it("passes every check but the registry one, the proof-dependent ones included", () => {
    const notPassed = results.filter((r) => r.status !== "PASS" && !(r.id in DOCUMENTED_SKIPS));
    expect(notPassed).toEqual([]);
    for (const [id, reason] of Object.entries(DOCUMENTED_SKIPS)) {
      const result = results.find((r) => r.id === id);
      expect(result?.status, id).toBe("SKIP");
      expect(result?.detail).toMatch(reason);
    }
  });

  it("proves the recorded range: the control is signed and its journals recover to the enclave's signer", () => {
    expect(results.find((r) => r.id === "enclave.wrong-claimed-root")?.detail).toMatch(
      /refused \("OutputRootMismatchError: .*"\) while the correct root was proved/,
    );
    expect(results.find((r) => r.id === "enclave.proves-control")?.detail).toBe(
      "3 per-block proposals from the agreed root to the claim, each root the recorded chain's",
    );
    expect(results.find((r) => r.id === "enclave.journal-image-hash")?.detail).toMatch(
      /^2 proof\(s\), every journal embeds 0x0{64} and recovers to the signer/,
    );
  });

  it("attributes every prove refusal to its defect against the proved control, each with its own error", () => {
    for (const id of REFUSAL_CHECKS) {
      const result = results.find((r) => r.id === id);
      expect(result?.status, id).toBe("PASS");
      expect(result?.detail, id).toMatch(/^refused \(".+"\); the unmodified request was proved$/);
    }
    const detail = (id: string) => results.find((r) => r.id === id)?.detail ?? "";
    expect(detail("enclave.unknown-chain")).toMatch(/UnsupportedChain/);
    expect(detail("enclave.content-verification.keccak256")).toMatch(/PreimageMismatchError/);
    expect(detail("enclave.withheld-preimage.l1-header")).toMatch(/MissingWitnessError/);
    expect(detail("enclave.withheld-preimage.l2-state-node")).toMatch(/MissingWitnessError/);
    expect(detail("enclave.withheld-preimage.blob")).toMatch(/MissingWitnessError/);
    expect(detail("enclave.tampered-blob-element")).toMatch(/InvalidWitnessError/);
    expect(detail("enclave.precompile-key")).toMatch(/RefusedPreimageKeyError/);
  });

  it("with the synthetic control, SKIPs the proof-dependent checks for the documented reason", async () => {
    const synthetic = await runConformance(
      { enclave: enclave.address },
      { witness: syntheticWitness(), witnessSource: "synthetic", only: ["enclave."] },
    );
    for (const [id, reason] of Object.entries(SYNTHETIC_SKIPS)) {
      const result = synthetic.find((r) => r.id === id);
      expect(result?.status, id).toBe("SKIP");
      expect(result?.detail, id).toMatch(reason);
      // The synthetic witness carries no agreed output root preimage: the real program refuses it as missing.
      if (id === "enclave.wrong-claimed-root" || id === "enclave.journal-image-hash")
        expect(result?.detail).toMatch(/MissingWitnessError: missing preimage .* \(agreed output root\)/);
    }
    const others = synthetic.filter((r) => !(r.id in SYNTHETIC_SKIPS));
    expect(others.filter((r) => r.status !== "PASS")).toEqual([]);
    expect(others.find((r) => r.id === "enclave.missing-boot-key")?.detail).toMatch(
      /refused \(".+"\); unmodified request: Error/,
    );
  }, 120_000);

  it("passes every host check, fail-closed included, against a two-enclave host whose registry confirms no signer", async () => {
    const gated = await runConformance(
      { host: gatedHost.url },
      { expectNoValidSigner: true, hostEnclaves: 2 },
    );
    expect(gated.filter((r) => r.status !== "PASS")).toEqual([]);
    expect(gated.find((r) => r.id === "host.registry-fail-closed")?.detail).toMatch(
      /^-32001 .*GET \/healthz 500$/,
    );
    expect(gated.find((r) => r.id === "host.healthz")?.detail).toMatch(/^unhealthy/);
  });

  it("leaves the enclave and the host serving", async () => {
    const again = await runConformance(
      { enclave: enclave.address, host: host.url },
      { only: ["enclave.signer-public-key", "host.healthz"] },
    );
    expect(again.map((r) => r.status)).toEqual(["PASS", "PASS"]);
  });
});
