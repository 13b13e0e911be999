/** The API key tool's entry point: `tsx src/merchant/keys.ts --help`. */
import { runKeysCli } from "./keys-commands.js";

process.exitCode = await runKeysCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
});
