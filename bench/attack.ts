/**
 * bench:attack — a standing hostile run against real processes (the harness is test/attack/; its fast slice is
 * test/attack/attack.test.ts):
 *
 * 1. mutated Prove frames built from the recorded conformance witness (conformance/fixtures), sent to an enclave
 *    process over its Unix socket: byte-level edits aimed at each field class and single-field edits (counts,
 *    lengths, key type tags, swapped / dropped / duplicated / reordered preimages, boot values, extra keys, length
 *    prefixes), in both frame forms. Every answer is classified; a signature over anything but the honest roots,
 *    or a frame left unanswered, is a failure, and the signer's public key must be the same afterwards;
 * 2. frames at every codec cap (length prefixes at and past the request cap in both forms, Prove counts at and
 *    past the table's and the codec's caps, lengths announcing more than the payload, a real frame of
 *    MAX_PROVE_PREIMAGES empty preimages);
 * 3. malformed HTTP and JSON-RPC (bad JSON, huge bodies, deep nesting, wrong types, bad percent-encoding, unknown
 *    methods, an oversized batch, broken framing, slow and abrupt clients) against the host, a chain node and a
 *    merchant service, each process's health asked after every class;
 * 4. a prover_prove flood against the host while its one proof slot is held (a stalled L2 endpoint);
 * 5. the node's abuse bursts (bench/abuse-bursts.ts).
 *
 * Flags: --mutations N (default 10000), --seconds S (stop sending mutations after S seconds; default 1200),
 * --seed N (default 1), --concurrency N (frames in flight, default 2), --flood N (single calls, default 2000),
 * --abuse-seconds S (per burst, default 4; 0 skips the bursts), --skip-huge (leave out the ~69 MB cap frame).
 * Prints the machine (CPU, cores, load average) and the tables; exits 1 when a process failed (see
 * test/attack/report.ts verdictOf), 0 otherwise.
 */
import { parseArgs } from "node:util";
import { capFrames, runCapFrames } from "../test/attack/codec-caps.js";
import { honestAnswers, runMutations } from "../test/attack/enclave-attack.js";
import { floodProve } from "../test/attack/host-flood.js";
import { answersHealth, HTTP_CLASSES, runHttpClasses } from "../test/attack/http-attack.js";
import {
  startAttackedHost,
  startNodeAndMerchant,
  startRecordedChainEnclave,
} from "../test/attack/processes.js";
import {
  capTable,
  floodTable,
  httpTable,
  machineLine,
  mutationTable,
  verdictOf,
} from "../test/attack/report.js";
import { ABUSE_TABLE_HEADER, formatAbuseRow, runAbuseBursts } from "./abuse-bursts.js";

/**
 * The mutations' time budget unless --seconds says otherwise: the run stays bounded on a slow or loaded machine (it
 * then reports how many of --mutations it sent); 10,000 take about 7 minutes on 2 loaded cores.
 */
const DEFAULT_MUTATION_SECONDS = 1200;

const { values } = parseArgs({
  options: {
    mutations: { type: "string", default: "10000" },
    seconds: { type: "string", default: String(DEFAULT_MUTATION_SECONDS) },
    seed: { type: "string", default: "1" },
    concurrency: { type: "string", default: "2" },
    flood: { type: "string", default: "2000" },
    "abuse-seconds": { type: "string", default: "4" },
    "skip-huge": { type: "boolean", default: false },
  },
});

const TIMEOUT_MS = 300_000;
const HOST_SLOTS = 1;

async function main(): Promise<void> {
  const started = Date.now();
  console.log(`bench:attack — ${machineLine()}`);
  const enclave = await startRecordedChainEnclave();
  const stops: (() => Promise<void>)[] = [() => enclave.stop()];
  try {
    const mutations = await runMutations(enclave.address, {
      mutations: Number(values.mutations),
      seed: Number(values.seed),
      concurrency: Number(values.concurrency),
      timeoutMs: TIMEOUT_MS,
      deadline: Date.now() + Number(values.seconds) * 1000,
      onProgress: (sent) => {
        if (sent % 1000 === 0)
          console.log(`  … ${sent} mutations sent, ${((Date.now() - started) / 1000).toFixed(0)} s`);
      },
    });
    const cut =
      mutations.sent < Number(values.mutations)
        ? `; the ${values.seconds} s budget stopped it after ${mutations.sent} of ${values.mutations}`
        : "";
    console.log(`\n## Mutated Prove frames (seed ${values.seed}, ${mutations.seconds.toFixed(0)} s${cut})\n`);
    console.log(mutationTable(mutations));

    const honest = await honestAnswers(enclave.address, TIMEOUT_MS);
    const caps = await runCapFrames(
      enclave.address,
      capFrames({ huge: !values["skip-huge"] }),
      honest,
      TIMEOUT_MS,
    );
    console.log("\n## Frames at the codec's caps\n");
    console.log(capTable(caps));

    const host = await startAttackedHost(enclave, HOST_SLOTS);
    stops.unshift(() => host.stop());
    const services = await startNodeAndMerchant();
    stops.unshift(() => services.stop());
    const http = [];
    for (const target of [host.target, services.node, services.merchant])
      http.push(...(await runHttpClasses(target, HTTP_CLASSES, TIMEOUT_MS)));
    console.log("\n## Malformed HTTP and JSON-RPC\n");
    console.log(httpTable(http));

    const flood = await floodProve(host.host.url, host.stalled, {
      slots: HOST_SLOTS,
      singles: Number(values.flood),
      batches: 50,
      connections: 64,
    });
    const hostAlive = await answersHealth(host.target, TIMEOUT_MS);
    console.log(`\n## prover_prove flood (${HOST_SLOTS} proof slot held by a stalled L2 endpoint)\n`);
    console.log(floodTable(flood, hostAlive));

    const abuseSeconds = Number(values["abuse-seconds"]);
    if (abuseSeconds > 0) {
      console.log(`\n## The node's abuse bursts (${abuseSeconds} s each, 4 clients)\n`);
      console.log(ABUSE_TABLE_HEADER);
      await runAbuseBursts(services.nodeProcess, {
        seconds: abuseSeconds,
        clients: 4,
        only: [],
        onRow: (row) => console.log(formatAbuseRow(row)),
      });
    }
    const nodeAlive = await answersHealth(services.node, TIMEOUT_MS);

    const verdict = verdictOf({
      mutations,
      caps,
      http,
      flood: { result: flood, hostAlive, slots: HOST_SLOTS },
    });
    if (!nodeAlive) verdict.failures.push("the node stopped answering after the abuse bursts");
    console.log(`\n${machineLine()}; ${((Date.now() - started) / 1000).toFixed(0)} s in all`);
    if (verdict.failures.length === 0) {
      console.log(
        `PASS: ${mutations.sent} mutations and ${caps.length} cap frames without a signature over other roots, the ` +
          `enclave's key unchanged; ${http.length} HTTP classes and the flood without a crash`,
      );
    } else {
      console.log(`FAIL:\n- ${verdict.failures.join("\n- ")}`);
      process.exitCode = 1;
    }
  } finally {
    for (const stop of stops) await stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
