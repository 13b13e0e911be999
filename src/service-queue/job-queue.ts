/**
 * What the AggregateVerifier services share when they work through the proof job queue (docs/proof-jobs.md): the
 * queue flags (`--database-url`, `--job-queue-sqlite`, `--metrics-listen`), the queue opened on first use (a
 * database still starting is then retried like any other failed step), and the GET /metrics listener.
 */
import type { Logger } from "../log/index.js";
import type { MetricsRegistry } from "../metrics/index.js";
import { openProofJobQueue, type ProofJobQueue } from "../proof-jobs/index.js";
import { createRpcServer, type RpcServer } from "../rpc/index.js";
import { type FlagFailure, integerFlag } from "../service-kit/index.js";

/** The queue flags, for `parseVerifierServiceCommandLine`'s `extra`. */
export const JOB_QUEUE_FLAGS = ["database-url", "job-queue-sqlite", "metrics-listen"] as const;

export interface JobQueueConfig {
  /** PostgreSQL several machines share; wins over `sqlitePath`. */
  readonly databaseUrl: string | undefined;
  readonly sqlitePath: string | undefined;
  /** GET /metrics listener, when set. */
  readonly metricsListen: { readonly host: string; readonly port: number } | undefined;
}

/**
 * The queue flags' values (from the `extra` of a parsed command line): undefined when neither a database URL nor a
 * SQLite file is given, and then `--metrics-listen` and the service's own `queueOnly` flags are refused.
 */
export function parseJobQueueFlags(
  extra: Readonly<Record<string, string | undefined>>,
  fail: FlagFailure,
  queueOnly: readonly string[] = [],
): JobQueueConfig | undefined {
  const databaseUrl = extra["database-url"];
  const sqlitePath = extra["job-queue-sqlite"];
  const listen = extra["metrics-listen"];
  if (databaseUrl === undefined && sqlitePath === undefined) {
    for (const flag of ["metrics-listen", ...queueOnly])
      if (extra[flag] !== undefined)
        throw fail(`--${flag} needs a queue (--database-url or --job-queue-sqlite)`, { flag });
    return undefined;
  }
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl))
    throw fail("--database-url must be a postgres:// or postgresql:// URL", { flag: "database-url" });
  if (listen === undefined) return { databaseUrl, sqlitePath, metricsListen: undefined };
  const match = /^(\[[0-9a-fA-F:]+\]|[^:\s]+):(\d{1,5})$/.exec(listen);
  if (match === null)
    throw fail(`--metrics-listen must be host:port, got ${listen}`, { flag: "metrics-listen" });
  const port = integerFlag(match[2]!, "metrics-listen", 0, fail);
  if (port > 65_535) throw fail(`--metrics-listen: port ${port} out of range`, { flag: "metrics-listen" });
  return { databaseUrl, sqlitePath, metricsListen: { host: match[1]!.replace(/^\[|\]$/g, ""), port } };
}

export interface ServiceJobQueue {
  /** The queue, opened and migrated on the first call. */
  open(): Promise<ProofJobQueue>;
  /** Closes the metrics listener and the queue. */
  close(): Promise<void>;
}

/** Starts the metrics listener (when configured; its URL is logged as "serving metrics") and opens the queue lazily. */
export function serviceJobQueue(
  config: JobQueueConfig,
  deps: { readonly registry: MetricsRegistry; readonly logger: Logger },
): ServiceJobQueue {
  const { registry, logger } = deps;
  let queue: ProofJobQueue | undefined;
  let server: RpcServer | undefined;
  const listen = config.metricsListen;
  if (listen !== undefined) {
    server = createRpcServer({
      methods: new Map(),
      host: listen.host,
      port: listen.port,
      websocket: false,
      metrics: registry,
      logger,
    });
    void server.listen().then(
      (port) => logger.info({ metricsUrl: `http://${listen.host}:${port}/metrics` }, "serving metrics"),
      (error: unknown) => logger.error({ err: error }, "metrics listener failed"),
    );
  }
  return {
    async open() {
      queue ??= await openProofJobQueue({
        ...(config.databaseUrl === undefined ? {} : { databaseUrl: config.databaseUrl }),
        sqlitePath: config.sqlitePath ?? "",
      });
      return queue;
    },
    async close() {
      await server?.close({ drainMs: 1_000 });
      await queue?.close();
    },
  };
}
