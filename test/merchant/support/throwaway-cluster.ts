/**
 * A throwaway PostgreSQL cluster for tests and benchmarks: initdb into a temp dir, pg_ctl on a free
 * 127.0.0.1 port with trust auth (fsync off unless `durable`), removed on stop. PostgreSQL refuses to run as
 * root, so as root the cluster runs as the `postgres` user (runuser). The binaries come from
 * PATH or /usr/lib/postgresql/<version>/bin (scripts/postgres/ensure.sh installs them if missing).
 */
import { execFile } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { freePort } from "../../node/helpers.js";

const run = promisify(execFile);

export class PostgresUnavailableError extends Error {
  override readonly name = "PostgresUnavailableError";
}

function findBinDir(): string {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir !== "" && existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) return dir;
  }
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
    for (const version of versions) {
      const dir = join(root, version, "bin");
      if (existsSync(join(dir, "initdb"))) return dir;
    }
  }
  throw new PostgresUnavailableError(
    "PostgreSQL binaries (initdb, pg_ctl) not found: run scripts/postgres/ensure.sh",
  );
}

export interface ThrowawayCluster {
  readonly port: number;
  /** A connection URL for a database of this cluster (default `postgres`). */
  url(database?: string): string;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server as a crash would (`pg_ctl -m immediate`), keeping its data for `startServer`. */
  stopServer(): Promise<void>;
  /** Starts the stopped server again on the same port and data. */
  startServer(): Promise<void>;
  stop(): Promise<void>;
}

export interface ThrowawayClusterOptions {
  /** fsync on (as in production); default off, which tests do not need and which is faster. */
  durable?: boolean;
}

export async function startThrowawayCluster(
  options: ThrowawayClusterOptions = {},
): Promise<ThrowawayCluster> {
  const bin = findBinDir();
  const root = mkdtempSync(join(tmpdir(), "merchant-pg-"));
  const asRoot = process.getuid?.() === 0;
  const data = join(root, "data");
  const command = async (tool: string, args: string[]): Promise<void> => {
    const path = join(bin, tool);
    if (asRoot) await run("runuser", ["-u", "postgres", "--", path, ...args]);
    else await run(path, args);
  };
  if (asRoot) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: gid } = await run("id", ["-g", "postgres"]);
    chownSync(root, Number(stdout.trim()), Number(gid.trim()));
  }
  chmodSync(root, 0o700);
  await command("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  const port = await freePort();
  const startServer = (): Promise<void> =>
    command("pg_ctl", [
      "-D",
      data,
      "-l",
      join(root, "server.log"),
      "-w",
      "-o",
      `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=${options.durable === true ? "on" : "off"} -c max_connections=200`,
      "start",
    ]);
  await startServer();
  const url = (database = "postgres"): string => `postgres://postgres@127.0.0.1:${port}/${database}`;
  let stopped = false;
  return {
    port,
    url,
    async createDatabase(name: string): Promise<string> {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    stopServer: () => command("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]),
    startServer,
    async stop(): Promise<void> {
      if (stopped) return;
      stopped = true;
      await command("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
