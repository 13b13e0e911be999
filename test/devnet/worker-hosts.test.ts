/**
 * The devnet's worker hosts under supervision (`npm start -- --provers 2 --proposer --worker-restarts 1`, real
 * processes): a worker host killed with SIGKILL while it holds a job has that job's lease ended at once, is restarted
 * in front of the same enclave on the same port and proves jobs again; a restart that dies soon after its start again
 * is given up and the devnet goes on with the other worker; when the last worker host is given up the devnet stops every part and exits non-zero. No sleep: the
 * healthy minute after which a host's count starts over is tested on small children in src/devnet/worker-hosts.test.ts.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { jsonLine, type ServiceChild, startServiceChild } from "../../src/devnet/child.js";
import { PIDS_FILE } from "../../src/devnet/leftovers.js";

const dataDir = mkdtempSync(join(tmpdir(), "devnet-workers-"));
let devnet: ServiceChild | undefined;

afterAll(async () => {
  await devnet?.stop(90_000);
  rmSync(dataDir, { recursive: true, force: true });
});

/** A port p below the ephemeral range with p and p + 1 free (the two worker hosts' ports). */
async function freePortPair(): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
  for (;;) {
    const port = 20_000 + 2 * Math.floor(Math.random() * 5_000);
    if ((await free(port)) && (await free(port + 1))) return port;
  }
}

/** Whether `pid` runs (a zombie does not). */
function runs(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** The pid of the running process whose command line holds `needle`. */
function pidWith(needle: string): number {
  for (const entry of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ");
      if (cmdline.includes(needle) && runs(Number(entry))) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`no process runs with ${needle}`);
}

describe("npm start --provers 2 (worker hosts supervised)", () => {
  it("restarts a killed worker host, gives up one whose restart dies, and stops when none is left", async () => {
    const lines: string[] = [];
    devnet = startServiceChild(
      "devnet",
      "src/devnet/main.ts",
      [
        ...["--data-dir", dataDir, "--l1-port", "0", "--l1-beacon-port", "0", "--node-port", "0"],
        ...["--merchant-port", "0", "--batcher-metrics-port", "0"],
        // Fixed ports below the kernel's ephemeral range (32768-60999 here): a restarted host binds its old port
        // again, and an ephemeral one may meanwhile be the local port of some process's outgoing connection.
        ...["--prover-port", String(await freePortPair())],
        ...["--l1-block-time", "1", "--l2-block-time", "1", "--block-interval", "2"],
        ...["--intermediate-block-interval", "2", "--proposer", "--provers", "2", "--worker-restarts", "1"],
      ],
      (line) => lines.push(line),
      { DATABASE_URL: "" },
    );
    const child = devnet;
    const ready = await child.waitForLine((line) => {
      const value = jsonLine(line);
      return value?.msg === "devnet ready" ? (value as { provers: { url: string }[] }) : undefined;
    }, 300_000);
    /** The index of the first line at or after `from` that `accept` takes, waiting for it. */
    const lineAfter = async (from: number, accept: (line: string) => boolean, timeoutMs: number) => {
      const find = () => {
        const index = lines.findIndex((line, i) => i >= from && accept(line));
        return index < 0 ? undefined : index;
      };
      return find() ?? (await child.waitForLine(() => find(), timeoutMs));
    };
    const hostLine = (host: string, msg: string) => (line: string) =>
      line.startsWith(`[${host}] `) && jsonLine(line.slice(host.length + 3))?.msg === msg;
    const socket = (index: number) => join(dataDir, index === 0 ? "enclave.sock" : `enclave-${index}.sock`);
    const enclaves = [0, 1].map((index) => pidWith(`--listen ${socket(index)}`));
    /** Kills worker host `index` and waits for the devnet's word on it; the restarted host's pid, if any. */
    const kill = async (index: number) => {
      const from = lines.length;
      process.kill(pidWith(`--vsock-cid ${socket(index)}`), "SIGKILL");
      const name = `prover host${index === 0 ? "" : ` ${index}`}`;
      const at = await lineAfter(
        from,
        (line) => line.startsWith(`[devnet] ${name} exited (code null, signal SIGKILL)`),
        120_000,
      );
      return { at, line: lines[at]! };
    };

    // Worker host 0 killed right after it claims a job: the devnet ends that lease at once (the job need not wait
    // out its 90 s), restarts the host on its port, in front of the same enclave, and it proves jobs again.
    await lineAfter(lines.length, hostLine("host", "proof job claimed"), 300_000);
    const first = await kill(0);
    expect(first.line).toMatch(/; restarting it in 1\.0 s \(its 1 job\(s\) returned to the queue at once\)$/);
    const restarted = await lineAfter(
      first.at,
      (line) => line.startsWith("[devnet] prover host restarted"),
      60_000,
    );
    const listening = await lineAfter(restarted, hostLine("host", "prover host listening"), 120_000);
    expect(jsonLine(lines[listening]!.slice("[host] ".length))?.port).toBe(
      Number(new URL(ready.provers[0]!.url).port),
    );
    await lineAfter(listening, hostLine("host", "proof job completed"), 300_000);
    expect(enclaves.every(runs)).toBe(true);

    // Worker host 1 killed, then its restart killed soon after it started: given up, the devnet goes on.
    const second = await kill(1);
    expect(second.line).toMatch(
      /; restarting it in 1\.0 s \((its 1 job\(s\) returned to the queue at once|it held no job)\)$/,
    );
    const again = await lineAfter(second.at, hostLine("host 1", "prover host listening"), 120_000);
    const third = await kill(1);
    expect(third.at).toBeGreaterThan(again);
    expect(third.line).toMatch(
      /; given up after 1 restart\(s\) in a row died within 60 s; 1 worker host\(s\) go on/,
    );
    const onOne = await lineAfter(third.at, hostLine("host", "proof job completed"), 300_000);
    expect(child.process.exitCode).toBeNull();

    // The last worker host: killed until it is given up (its restart of above may have run past the healthy
    // minute, which starts its count over: then it is restarted once more and that restart killed at once); the
    // devnet then stops every part with a failure. (The count's reset is src/devnet/worker-hosts.test.ts's.)
    const recorded = (JSON.parse(readFileSync(join(dataDir, PIDS_FILE), "utf8")) as { pids: number[] }).pids;
    let last = await kill(0);
    expect(last.at).toBeGreaterThan(onOne);
    if (/; restarting it in /.test(last.line)) {
      await lineAfter(last.at, hostLine("host", "prover host listening"), 120_000);
      last = await kill(0);
    }
    expect(last.line).toMatch(/; no worker host is left: stopping the devnet$/);
    const exit = await child.exited;
    expect(exit.code).toBe(1);
    expect(
      lines.some((line) => /^prover host exited \(code null, signal SIGKILL\); stopping$/.test(line)),
    ).toBe(true);
    expect([...recorded, ...enclaves].filter(runs)).toEqual([]);
  }, 900_000);
});
