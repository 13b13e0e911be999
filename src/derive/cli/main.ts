/**
 * `npm run derive -- inspect <file> [--as tx|frames|channel|batch]`: prints one JSON object describing what
 * a batcher posted (frames, batches, decompressed size). Exit 0 when everything decoded, 1 with a message
 * naming the first invalid byte range otherwise, 2 on a usage error.
 */
import { readFileSync } from "node:fs";
import { fromHex } from "../../chain/index.js";
import { INPUT_KINDS, type InputKind, describeProblem, inspect } from "./inspect.js";

const USAGE = `usage: npm run derive -- inspect <file> [--as tx|frames|channel|batch]

Decodes what an OP Stack batcher posted and prints one JSON object:
  frames            channelId, number, dataLength, isLast of each frame
  batches           span: blockCount, txCount, txCountsPerBlock, txTypes, relTimestamp, l1OriginNum,
                    parentCheck, l1OriginCheck; singular: parentHash, epochNum, epochHash, timestamp, txCount
  decompressedSize  bytes the channels decompressed to
<file> holds, as binary or as 0x-prefixed hex text:
  tx       an L1 batcher transaction (EIP-2718 bytes: legacy, type 1, 2 or 3)
  frames   a batcher payload (version byte 0x00 then frames)
  channel  a compressed channel (zlib, or 0x01 then brotli)
  batch    one batch (type byte 0x00 singular or 0x01 span, then its payload)
The kind is detected unless --as names it. Exit status: 0 decoded, 1 invalid input (the message names the
first invalid byte range), 2 usage error.`;

function usage(message?: string): never {
  if (message) process.stderr.write(`derive: ${message}\n`);
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}

/** File bytes: 0x-prefixed hex text (whitespace allowed) or binary. */
export function readInput(file: string): Uint8Array {
  const raw = new Uint8Array(readFileSync(file));
  const head = Buffer.from(raw.subarray(0, 2)).toString("latin1");
  if (head === "0x" || head === "0X") {
    const text = Buffer.from(raw).toString("latin1").replace(/\s+/g, "");
    if (/^0[xX][0-9a-fA-F]*$/.test(text) && text.length % 2 === 0) return fromHex(text);
  }
  return raw;
}

function jsonReplacer(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}

function main(argv: string[]): void {
  if (argv.length === 0 || argv.includes("--help") || argv.includes("-h")) {
    if (argv.length === 0) usage("missing command");
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const [command, ...rest] = argv;
  if (command !== "inspect") usage(`unknown command ${command}`);
  let file: string | undefined;
  let kind: InputKind | undefined;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === "--as") {
      const v = rest[++i];
      if (v === undefined || !INPUT_KINDS.includes(v as InputKind))
        usage(`--as takes one of ${INPUT_KINDS.join(", ")}`);
      kind = v as InputKind;
    } else if (arg.startsWith("--as=")) {
      const v = arg.slice(5);
      if (!INPUT_KINDS.includes(v as InputKind)) usage(`--as takes one of ${INPUT_KINDS.join(", ")}`);
      kind = v as InputKind;
    } else if (arg.startsWith("-")) {
      usage(`unknown option ${arg}`);
    } else if (file === undefined) {
      file = arg;
    } else {
      usage("one file at a time");
    }
  }
  if (file === undefined) usage("missing <file>");
  let input: Uint8Array;
  try {
    input = readInput(file);
  } catch (e) {
    process.stderr.write(`derive: cannot read ${file}: ${(e as Error).message}\n`);
    process.exit(2);
  }
  const report = inspect(input, kind);
  process.stdout.write(`${JSON.stringify(report, jsonReplacer, 2)}\n`);
  if (report.problem !== undefined) {
    process.stderr.write(`derive: ${describeProblem(report.problem)}\n`);
    process.exitCode = 1;
  }
}

main(process.argv.slice(2));
