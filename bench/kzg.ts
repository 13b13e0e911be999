/**
 * KZG backends side by side (src/chain/kzg.ts, docs/decisions.md "KZG backend"): for c-kzg (`native`) and
 * micro-eth-signer (`js`), the load (wall and CPU) and, per random blob, the commitment, blob proof, blob proof check
 * and point-evaluation check (the precompile's), as medians of wall and CPU milliseconds. The backends run one after
 * the other on the same blobs, each operation on both before the next blob, so a change in the machine's load hits
 * them alike.
 * Usage: npm run bench:kzg [-- --blobs 3]
 */
import { randomBytes } from "node:crypto";
import { cpus, loadavg, totalmem } from "node:os";
import { type EthKzg, type KzgBackendName, loadEthKzgBackend } from "../src/chain/index.js";

const BLS_MODULUS = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;

interface Sample {
  wallMs: number;
  cpuMs: number;
}

function measure<T>(fn: () => T): [T, Sample] {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const value = fn();
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return [value, { wallMs, cpuMs: (cpu.user + cpu.system) / 1000 }];
}

async function measureAsync<T>(fn: () => Promise<T>): Promise<[T, Sample]> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await fn();
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return [value, { wallMs, cpuMs: (cpu.user + cpu.system) / 1000 }];
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** A blob of 4096 random canonical field elements (each below 2^254 < BLS_MODULUS). */
function randomBlob(): Uint8Array {
  const blob = Uint8Array.from(randomBytes(131_072));
  for (let i = 0; i < 4096; i++) blob[i * 32]! &= 0x3f;
  return blob;
}

function randomScalar(): Uint8Array {
  const n = BigInt(`0x${randomBytes(32).toString("hex")}`) % BLS_MODULUS;
  return Uint8Array.from(Buffer.from(n.toString(16).padStart(64, "0"), "hex"));
}

const OPERATIONS = ["commitment", "blob proof", "verify blob proof", "verify point proof"] as const;
type Operation = (typeof OPERATIONS)[number];

function argument(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at === -1 ? fallback : Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
}

async function main(): Promise<void> {
  const blobs = argument("blobs", 3);
  const cpu = cpus();
  console.log(
    `machine: ${cpu[0]?.model ?? "unknown"} x${cpu.length}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}; ${blobs} random blobs`,
  );
  const names: KzgBackendName[] = ["native", "js"];
  const backends = new Map<KzgBackendName, EthKzg>();
  for (const name of names) {
    const [kzg, load] = await measureAsync(() => loadEthKzgBackend(name));
    backends.set(name, kzg);
    console.log(`${name}: load ${load.wallMs.toFixed(0)} ms wall, ${load.cpuMs.toFixed(0)} ms CPU`);
  }
  const samples = new Map<string, Sample[]>();
  const record = (name: KzgBackendName, op: Operation, sample: Sample): void => {
    const key = `${name}/${op}`;
    samples.set(key, [...(samples.get(key) ?? []), sample]);
  };
  for (let i = 0; i < blobs; i++) {
    const blob = randomBlob();
    const z = randomScalar();
    for (const name of names) {
      const kzg = backends.get(name)!;
      const [commitment, c] = measure(() => kzg.blobToKzgCommitment(blob));
      record(name, "commitment", c);
      const [proof, p] = measure(() => kzg.computeBlobKzgProof(blob, commitment));
      record(name, "blob proof", p);
      const [ok, v] = measure(() => kzg.verifyBlobKzgProof(blob, commitment, proof));
      if (!ok) throw new Error(`${name} refused its own blob proof`);
      record(name, "verify blob proof", v);
      const [pointProof, y] = kzg.computeKzgProof(blob, z);
      const [pointOk, e] = measure(() => kzg.verifyKzgProof(commitment, z, y, pointProof));
      if (!pointOk) throw new Error(`${name} refused its own point proof`);
      record(name, "verify point proof", e);
    }
  }
  console.log("\nper blob, medians (ms wall / ms CPU):");
  console.log(`| backend | ${OPERATIONS.join(" | ")} |`);
  console.log(`|---|${OPERATIONS.map(() => "---|").join("")}`);
  for (const name of names) {
    const cells = OPERATIONS.map((op) => {
      const s = samples.get(`${name}/${op}`)!;
      return `${median(s.map((x) => x.wallMs)).toFixed(1)} / ${median(s.map((x) => x.cpuMs)).toFixed(1)}`;
    });
    console.log(`| ${name} | ${cells.join(" | ")} |`);
  }
  console.log(
    `\npeak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB (both backends); load average at the end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
}

await main();
