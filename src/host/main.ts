/**
 * The prover host process.
 *
 *   tsx src/host/main.ts --l1-rpc-url URL [--l1-beacon-url URL] --l2-rpc-url URL --l2-chain-id 84532 \
 *     --vsock-cid /tmp/enclave-0.sock [--vsock-cid ... --tee-prover-registry-address 0x...] \
 *     [--rollup-config rollup.json] [--listen 127.0.0.1:7300] [--proof-request-timeout 1740] [--log-level info] \
 *     [--worker (--database-url postgres://… | --job-queue-sqlite FILE) [--job-lease 90]]
 *
 * With --worker the host also claims proof jobs from the queue (src/host/worker.ts) and proves them through the
 * same proof service as prover_prove; SIGINT/SIGTERM stop claiming and let the running proofs finish and submit
 * (within the drain time; past it they are given back to the queue).
 * `--help` lists every flag and its environment twin. Start-up refusals (unknown chain, several enclaves
 * without a registry, a vsock address in a build without vsock support, a bad flag) print one line to
 * stderr and exit 2. SIGINT/SIGTERM stop accepting, drain in-flight requests and exit 0.
 */
import { createLogger } from "../log/index.js";
import { MetricsRegistry } from "../metrics/index.js";
import { exitOnShutdownSignals } from "../rpc/index.js";
import { HostConfigError, parseHostCommandLine } from "./config.js";
import { createProverHost } from "./host.js";
import { VsockUnavailableError } from "./transport/errors.js";
import { type HostWorker, startHostWorker } from "./worker.js";

function refuse(message: string): never {
  process.stderr.write(`prover host: ${message}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseHostCommandLine(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof HostConfigError) refuse(error.message);
    throw error;
  }
  if (parsed.kind === "help") {
    process.stdout.write(parsed.text);
    return;
  }
  const config = parsed.config;
  const logger = createLogger({ name: "prover-host", level: config.logLevel });
  const metrics = new MetricsRegistry({
    processMetrics: config.processMetrics,
    defaultLabels: { service: "prover-host" },
  });
  let host;
  try {
    host = createProverHost(config, { logger, metrics });
  } catch (error) {
    if (error instanceof VsockUnavailableError) refuse(error.message);
    throw error;
  }
  await host.listen();
  let worker: HostWorker | undefined;
  if (config.worker !== undefined)
    worker = await startHostWorker(config.worker, { proofs: host.proofs, logger, metrics });
  exitOnShutdownSignals(
    async () => {
      await Promise.all([drainWorker(worker, config.shutdownDrainMs), host.close(config.shutdownDrainMs)]);
    },
    { logger },
  );
}

/** Lets the worker's running proofs finish and submit for up to `drainMs`, then gives the rest back. */
async function drainWorker(worker: HostWorker | undefined, drainMs: number): Promise<void> {
  if (worker === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), drainMs)));
  const outcome = await Promise.race([worker.drain(), late]);
  clearTimeout(timer);
  if (outcome === "late") await worker.stop();
}

main().catch((error: unknown) => {
  process.stderr.write(
    `prover host: start-up failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`,
  );
  process.exit(1);
});
