/**
 * Block execution benchmark over the shared OP Sepolia fixtures, our engine side by side with anvil (revm)
 * and Hardhat's node (EDR) on the same transactions and the same pre-state, checked gas for gas.
 *
 * Two figures per engine, medians of several runs after one warm-up:
 * - user transactions: ours executes the block's user transactions, decoded and with senders recovered
 *   beforehand, on the state the deposits left (no seal); the peers mine them (`evm_mine`: execution and seal,
 *   the transactions decoded and recovered at submission);
 * - whole block: ours re-executes the block from its raw bytes (decoding, sender recovery, deposits, system
 *   calls, user transactions, seal: `executeBlock`); the peers take the raw user transactions (one
 *   eth_sendRawTransaction each, in order) and mine them (they have no OP deposits).
 * The peers get the accounts, code and storage slots the block reads, as the deposits left them.
 *
 * Usage: npm run bench:execute [-- --runs 7] [-- --peers anvil,edr|none] [-- --profile DIR] [-- <fixture.json.gz> ...]
 * `--profile DIR` writes a V8 CPU profile of each of our timed runs (and only those) into DIR.
 */
import { cpus, loadavg } from "node:os";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join, resolve } from "node:path";
import {
  type AccountState,
  BlockBuilder,
  DEPOSIT_TX_TYPE,
  type DecodedTransaction,
  type ExecutionFixture,
  bytesEqual,
  decodeTransaction,
  executeBlock,
  fixtureStore,
  loadFixture,
  secp256k1Backend,
  toHex,
} from "../src/chain/index.js";
import { BenchResultError, BenchUsageError } from "./errors.js";
import {
  type Peer,
  type PeerBlockEnv,
  loadPreState,
  revert,
  runBlock,
  snapshot,
  startAnvilPeer,
  startEdrPeer,
} from "./execute-peers.js";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** One engine's medians over one fixture. */
interface Figures {
  userGas: bigint;
  userMs: number;
  wholeGas: bigint;
  wholeMs: number;
  /** Ours only: process CPU time of the same runs. */
  userCpuMs?: number;
  wholeCpuMs?: number;
}

interface Prepared {
  fixture: ExecutionFixture;
  name: string;
  isDeposit: boolean[];
  /** Our gas per user transaction, in block order. */
  userGasEach: bigint[];
  env: PeerBlockEnv;
  preState: Map<string, AccountState>;
}

let profiler: { session: Session; dir: string; count: number } | undefined;

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; cpuMs: number }> {
  if (profiler !== undefined) await profiler.session.post("Profiler.start");
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await fn();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  if (profiler !== undefined) {
    const { profile } = await profiler.session.post("Profiler.stop");
    writeFileSync(join(profiler.dir, `run-${++profiler.count}.cpuprofile`), JSON.stringify(profile));
  }
  return { value, ms, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/** Our whole-block run: the raw block re-executed and sealed; the hash must match. */
async function oursWhole(p: Prepared): Promise<{ gas: bigint; ms: number; cpuMs: number }> {
  const { fixture } = p;
  const source = fixtureStore(fixture);
  const {
    value: block,
    ms,
    cpuMs,
  } = await timed(() =>
    executeBlock({
      config: fixture.config,
      parent: fixture.parent,
      attributes: fixture.attributes,
      transactions: fixture.transactions,
      source,
    }),
  );
  if (!bytesEqual(block.blockHash, fixture.expectedBlockHash))
    throw new BenchResultError(`${p.name}: block hash mismatch`, { fixture: p.name });
  return { gas: block.header.gasUsed, ms, cpuMs };
}

/** A builder on the fixture's parent with the deposits applied, and the user transactions decoded and recovered. */
async function afterDeposits(p: Pick<Prepared, "fixture" | "isDeposit" | "name">): Promise<{
  builder: BlockBuilder;
  users: DecodedTransaction[];
}> {
  const { fixture } = p;
  const builder = await BlockBuilder.start({
    config: fixture.config,
    parent: fixture.parent,
    attributes: fixture.attributes,
    source: fixtureStore(fixture),
  });
  const users: DecodedTransaction[] = [];
  for (let i = 0; i < fixture.transactions.length; i++) {
    const raw = fixture.transactions[i]!;
    if (p.isDeposit[i]) {
      const r = await builder.addTransaction(raw);
      if (!r.ok)
        throw new BenchResultError(`${p.name}: deposit ${i} rejected`, { fixture: p.name, index: i });
      continue;
    }
    const decoded = decodeTransaction(raw, builder.common);
    if (decoded.body.kind === "signed") decoded.body.tx.getSenderAddress();
    users.push(decoded);
  }
  return { builder, users };
}

async function addAll(p: Prepared, builder: BlockBuilder, users: DecodedTransaction[]): Promise<bigint[]> {
  const gas: bigint[] = [];
  for (const tx of users) {
    const r = await builder.addTransaction(tx);
    if (!r.ok) throw new BenchResultError(`${p.name}: ${r.error.message}`, { fixture: p.name });
    gas.push(r.details.gasUsed);
  }
  return gas;
}

/** Our user-transaction run: only the `addTransaction` calls of the user transactions are timed. */
async function oursUser(p: Prepared): Promise<{ gas: bigint; ms: number; cpuMs: number }> {
  const { builder, users } = await afterDeposits(p);
  const { value: gas, ms, cpuMs } = await timed(() => addAll(p, builder, users));
  if (gas.some((g, i) => g !== p.userGasEach[i]))
    throw new BenchResultError(`${p.name}: user gas differs between runs`, { fixture: p.name });
  return { gas: gas.reduce((a, b) => a + b, 0n), ms, cpuMs };
}

/** Loads a fixture and derives what the peers need: the block's environment and the touched pre-state. */
async function prepare(file: string): Promise<Prepared> {
  const fixture = await loadFixture(file);
  const name = `block ${fixture.parent.number + 1n}`;
  const isDeposit = fixture.transactions.map((raw) => raw[0] === DEPOSIT_TX_TYPE);
  // A first run records what the block reads; a second, stopped after the deposits, reads those values.
  const first = await afterDeposits({ fixture, isDeposit, name });
  const userGasEach = await addAll({ fixture, name } as Prepared, first.builder, first.users);
  const { builder } = await afterDeposits({ fixture, isDeposit, name });
  const preState = new Map<string, AccountState>();
  for (const [address, slots] of first.builder.stateReads) {
    const account = await builder.readAccount(Buffer.from(address, "hex"), slots);
    if (account !== undefined) preState.set(`0x${address}`, account);
  }
  const env: PeerBlockEnv = {
    timestamp: fixture.attributes.timestamp,
    baseFee: builder.baseFee,
    coinbase: toHex(fixture.attributes.suggestedFeeRecipient),
    gasLimit: fixture.attributes.gasLimit,
  };
  return { fixture, name, isDeposit, userGasEach, env, preState };
}

async function measureOurs(p: Prepared, runs: number): Promise<Figures> {
  const user: { gas: bigint; ms: number; cpuMs: number }[] = [];
  const whole: { gas: bigint; ms: number; cpuMs: number }[] = [];
  for (let r = 0; r <= runs; r++) {
    const u = await oursUser(p);
    const w = await oursWhole(p);
    if (r > 0) {
      user.push(u);
      whole.push(w);
    }
  }
  return {
    userGas: user[0]!.gas,
    userMs: median(user.map((x) => x.ms)),
    userCpuMs: median(user.map((x) => x.cpuMs)),
    wholeGas: whole[0]!.gas,
    wholeMs: median(whole.map((x) => x.ms)),
    wholeCpuMs: median(whole.map((x) => x.cpuMs)),
  };
}

/** The peer's figures for one fixture; its gas per transaction must equal ours. */
async function measurePeer(peer: Peer, p: Prepared, runs: number): Promise<Figures> {
  const base = await snapshot(peer);
  await loadPreState(peer, p.preState);
  const raws = p.fixture.transactions.filter((_, i) => !p.isDeposit[i]).map((raw) => toHex(raw));
  const mine: number[] = [];
  const whole: number[] = [];
  for (let r = 0; r <= runs; r++) {
    const s = await snapshot(peer);
    const run = await runBlock(peer, p.env, raws, r === 0);
    await revert(peer, s);
    if (r === 0) {
      const differs = run.gasUsed.flatMap((g, i) =>
        g === p.userGasEach[i] ? [] : [`tx ${i}: ${g} vs ours ${p.userGasEach[i]}`],
      );
      if (differs.length > 0)
        throw new BenchResultError(`${peer.name}, ${p.name}: gas differs from ours (${differs.join("; ")})`, {
          peer: peer.name,
          fixture: p.name,
        });
    } else {
      mine.push(run.mineMs);
      whole.push(run.wholeMs);
    }
  }
  await revert(peer, base);
  const gas = p.userGasEach.reduce((a, b) => a + b, 0n);
  return { userGas: gas, userMs: median(mine), wholeGas: gas, wholeMs: median(whole) };
}

const mgas = (gas: bigint, ms: number): number => Number(gas) / 1e3 / ms;

function sum(fs: Figures[]): Figures {
  const total: Figures = { userGas: 0n, userMs: 0, wholeGas: 0n, wholeMs: 0, userCpuMs: 0, wholeCpuMs: 0 };
  for (const f of fs) {
    total.userGas += f.userGas;
    total.userMs += f.userMs;
    total.wholeGas += f.wholeGas;
    total.wholeMs += f.wholeMs;
    total.userCpuMs! += f.userCpuMs ?? Number.NaN;
    total.wholeCpuMs! += f.wholeCpuMs ?? Number.NaN;
  }
  return total;
}

function parseArgs(): { runs: number; peers: string[]; profile?: string; files: string[] } {
  const args = process.argv.slice(2);
  let runs = 5;
  let peers = ["anvil", "edr"];
  let profile: string | undefined;
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--runs") runs = Number(args[++i]);
    else if (args[i] === "--peers")
      peers = (args[++i] ?? "").split(",").filter((x) => x !== "none" && x !== "");
    else if (args[i] === "--profile") profile = args[++i];
    else files.push(args[i]!);
  }
  if (!Number.isInteger(runs) || runs < 1)
    throw new BenchUsageError("--runs must be a positive integer", { runs });
  for (const p of peers)
    if (p !== "anvil" && p !== "edr")
      throw new BenchUsageError(`unknown peer ${p} (anvil, edr, none)`, { peer: p });
  if (files.length === 0) {
    const dir = process.env.OP_FIXTURES_DIR ?? resolve("../shared/fixtures/op-sepolia");
    for (const f of readdirSync(dir).sort()) if (f.endsWith(".json.gz")) files.push(join(dir, f));
  }
  return { runs, peers, profile, files };
}

async function main(): Promise<void> {
  const { runs, peers: peerNames, profile, files } = parseArgs();
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(1))
      .join(" ");
  console.log(
    `machine: ${cpus()[0]?.model ?? "unknown"} x${cpus().length}, node ${process.version}, load average ${load()}; ` +
      `${runs} runs per fixture after 1 warm-up; sender recovery on ${secp256k1Backend}`,
  );
  const prepared: Prepared[] = [];
  for (const file of files) prepared.push(await prepare(file));

  if (profile !== undefined) {
    mkdirSync(profile, { recursive: true });
    profiler = { session: new Session(), dir: profile, count: 0 };
    profiler.session.connect();
    await profiler.session.post("Profiler.enable");
    // 200 µs instead of the default 1 ms: a fixture's timed run is tens of milliseconds.
    await profiler.session.post("Profiler.setSamplingInterval", { interval: 200 });
  }
  const genesis = prepared.reduce(
    (t, p) => (p.fixture.parent.timestamp < t ? p.fixture.parent.timestamp : t),
    1n << 62n,
  );
  const chainId = prepared[0]!.fixture.config.l2ChainId;
  const peers: Peer[] = [];
  const results = new Map<string, Figures[]>([["ours", []]]);
  try {
    for (const name of peerNames) {
      peers.push(
        name === "anvil" ? await startAnvilPeer(chainId, genesis) : await startEdrPeer(chainId, genesis),
      );
      results.set(peers.at(-1)!.name, []);
    }
    // Fixture by fixture, the engines one after the other, so a change in the machine's load hits them alike.
    for (const p of prepared) {
      results.get("ours")!.push(await measureOurs(p, runs));
      for (const peer of peers) results.get(peer.name)!.push(await measurePeer(peer, p, runs));
    }
  } finally {
    for (const peer of peers) peer.stop();
    if (profiler !== undefined) profiler.session.disconnect();
  }

  for (const [engine, figures] of results) {
    prepared.forEach((p, i) => {
      const f = figures[i]!;
      const cpu = f.userCpuMs === undefined ? "" : ` (CPU ${f.userCpuMs.toFixed(1)} ms)`;
      const wcpu = f.wholeCpuMs === undefined ? "" : ` (CPU ${f.wholeCpuMs.toFixed(1)} ms)`;
      console.log(
        `${engine.padEnd(5)} ${p.name}: user txs ${f.userGas} gas in ${f.userMs.toFixed(1)} ms${cpu} = ${mgas(f.userGas, f.userMs).toFixed(1)} Mgas/s; ` +
          `whole block ${f.wholeGas} gas in ${f.wholeMs.toFixed(1)} ms${wcpu} = ${mgas(f.wholeGas, f.wholeMs).toFixed(1)} Mgas/s`,
      );
    });
  }
  console.log(
    "\n| engine | user txs Mgas/s | whole blocks Mgas/s | ours ÷ engine (user) | ours ÷ engine (whole) |",
  );
  console.log("| --- | --- | --- | --- | --- |");
  const ours = sum(results.get("ours")!);
  const oursUser = mgas(ours.userGas, ours.userMs);
  const oursWhole = mgas(ours.wholeGas, ours.wholeMs);
  for (const [engine, figures] of results) {
    const t = sum(figures);
    const u = mgas(t.userGas, t.userMs);
    const w = mgas(t.wholeGas, t.wholeMs);
    console.log(
      `| ${engine} | ${u.toFixed(1)} | ${w.toFixed(1)} | ${(oursUser / u).toFixed(3)} | ${(oursWhole / w).toFixed(3)} |`,
    );
  }
  console.log(
    `\nours per CPU-second: user txs ${mgas(ours.userGas, ours.userCpuMs!).toFixed(1)} Mgas, whole blocks ${mgas(ours.wholeGas, ours.wholeCpuMs!).toFixed(1)} Mgas; ` +
      `gas checked equal per transaction on every peer; peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB; load average ${load()}`,
  );
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
