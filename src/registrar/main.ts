/** The registrar entry point: `tsx src/registrar/main.ts --help`. */
import { runRegistrarCli } from "./cli.js";

process.exitCode = await runRegistrarCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
});
