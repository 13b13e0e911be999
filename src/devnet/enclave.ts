/**
 * The devnet's local enclave process (docs/devnet.md "The prover"): enclave/main.ts started with an explicit heap,
 * `--max-old-space-size=DEVNET_ENCLAVE_HEAP_MB`, since the enclave sizes itself by the heap it is started with
 * (docs/enclave.md "Memory": half for requests, half for the proof program) rather than by Node's default, which
 * depends on the machine.
 */
import { startServiceChild, type ServiceChild } from "./child.js";

/**
 * The devnet enclave's heap in MiB: 1 GiB for requests (a frame of the devnet's longest default range is tens of
 * MB) and 1 GiB for the proof program.
 */
export const DEVNET_ENCLAVE_HEAP_MB = 2048;

/** Starts a devnet enclave with `args` (its own flags: --local, --listen, --rollup-config). */
export function startDevnetEnclave(
  name: string,
  args: readonly string[],
  echo: (line: string) => void,
): ServiceChild {
  return startServiceChild(name, "enclave/main.ts", args, echo, {}, [
    `--max-old-space-size=${DEVNET_ENCLAVE_HEAP_MB}`,
  ]);
}
