/** The merchant CLI entry point: `tsx src/merchant/cli.ts --help`. */
import { runCli } from "./cli-commands.js";
import { CliUsageError } from "./errors.js";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > 1024 * 1024) throw new CliUsageError("stdin exceeds 1 MiB");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

const status = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  readStdin,
  env: process.env,
});
process.exitCode = status;
