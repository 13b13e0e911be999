/**
 * The suite's enclave and host checks in both frame forms (4- and 8-byte length prefixes), both message forms (the
 * spec's and Base's, chosen independently of the frames) and both journal versions (the spec's, and the schedule-id
 * one), against this repository's implementations started as real processes: per journal version one local-mode
 * enclave given the recorded devnet's rollup.json (it reads either frame form and either message form, per
 * connection) and, per combination, a prover host in front of it speaking those forms and expecting that journal.
 * The spec's journal runs all four frame and message combinations against its one enclave; the schedule-id journal
 * the two pairings peers use (4-byte frames with the spec's messages, 8-byte with Base's). Every check passes in
 * every combination, except the one no combination runs (FORM_SKIPS). A Prove is the same bytes in both message
 * forms, so the enclave answers it in the form paired with the frame: with 8-byte frames the journal check also
 * requires every proof's tee_signer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEnclave, startEnclave } from "../enclave/test/enclave-process.js";
import type { JournalVersion } from "../src/proof/onchain/index.js";
import {
  type FrameLengthPrefix,
  formatListenAddress,
  type MessageForm,
} from "../src/proof/transport/index.js";
import { hostArgs, type RunningHost, startHost } from "../test/host/spawn-host.js";
import type { CheckResult } from "./check.js";
import { FIXTURE_ROLLUP_PATH } from "./fixture.js";
import { runConformance } from "./suite.js";

const FRAME_FORMS: readonly FrameLengthPrefix[] = [4, 8];
const MESSAGE_FORMS: readonly MessageForm[] = ["spec", "base"];
const JOURNAL_VERSIONS: readonly JournalVersion[] = ["spec", "schedule-id"];

/** The one check no combination runs: a black-box client cannot know whether a host has a registry. */
const FORM_SKIPS: Readonly<Record<string, RegExp>> = {
  "host.registry-fail-closed": /needs a host whose registry confirms no configured signer/,
};

interface Combination {
  readonly prefix: FrameLengthPrefix;
  readonly form: MessageForm;
  readonly version: JournalVersion;
  host?: RunningHost;
  results?: CheckResult[];
}

const combinations: Combination[] = [
  ...FRAME_FORMS.flatMap((prefix) =>
    MESSAGE_FORMS.map((form) => ({ prefix, form, version: "spec" as const })),
  ),
  { prefix: 4, form: "spec", version: "schedule-id" },
  { prefix: 8, form: "base", version: "schedule-id" },
];

describe("the enclave and host checks in both frame forms, both message forms and both journal versions", () => {
  const enclaves = new Map<JournalVersion, RunningEnclave>();

  beforeAll(async () => {
    await Promise.all(
      JOURNAL_VERSIONS.map(async (version) => {
        enclaves.set(
          version,
          await startEnclave(["--rollup-config", FIXTURE_ROLLUP_PATH, "--journal-version", version]),
        );
      }),
    );
    await Promise.all(
      combinations.map(async (combination) => {
        const enclave = enclaves.get(combination.version)!;
        combination.host = await startHost(
          hostArgs({
            enclaves: [formatListenAddress(enclave.address)],
            extra: [
              "--frame-length-prefix",
              String(combination.prefix),
              "--message-form",
              combination.form,
              "--journal-version",
              combination.version,
            ],
          }),
        );
      }),
    );
    // One combination at a time: each proves the recorded range a few times.
    for (const combination of combinations) {
      combination.results = await runConformance(
        { enclave: enclaves.get(combination.version)!.address, host: combination.host!.url },
        {
          frameLengthPrefix: combination.prefix,
          messageForm: combination.form,
          journalVersion: combination.version,
          hostEnclaves: 1,
        },
      );
    }
  }, 600_000);

  afterAll(async () => {
    await Promise.all(combinations.map((combination) => combination.host?.stop()));
    await Promise.all([...enclaves.values()].map((enclave) => enclave.stop()));
  });

  for (const combination of combinations) {
    const name = `${combination.prefix}-byte frames, ${combination.form} messages, ${combination.version} journals`;
    it(`${name}: every check passes but the registry one`, () => {
      const results = combination.results!;
      expect(results.filter((r) => r.status !== "PASS" && !(r.id in FORM_SKIPS))).toEqual([]);
      for (const [id, reason] of Object.entries(FORM_SKIPS)) {
        const result = results.find((r) => r.id === id);
        expect(result?.status, id).toBe("SKIP");
        expect(result?.detail, id).toMatch(reason);
      }
      const detail = (id: string) => results.find((r) => r.id === id)?.detail ?? "";
      expect(detail("enclave.proves-control")).toMatch(/^3 per-block proposals/);
      const version = combination.version === "schedule-id" ? " \\(schedule-id journals\\)" : "";
      const stamp = combination.prefix === 8 ? ", tee_signer 0x[0-9a-f]{40} on each" : "";
      expect(detail("enclave.journal-image-hash")).toMatch(
        new RegExp(
          `^2 proof\\(s\\), every journal embeds 0x0{64} and recovers to the signer${version}${stamp}$`,
        ),
      );
      expect(detail("enclave.tee-image-hash")).toMatch(/^0x0{64}, as the attestation document's PCR0$/);
      expect(detail("enclave.hostile-frame.oversized-prefix")).toMatch(/answered with an Error/);
    });
  }
});
