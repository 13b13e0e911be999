/** A service process's start: its command line parsed, --help printed, a usage error refused with exit code 2. */
import { createLogger, type Logger, type LogLevel } from "../log/index.js";

/** What a service process gives `startServiceProcess`. */
export interface ServiceProcess<C extends { readonly logLevel: LogLevel }, R> {
  /** The process name: the logger's and the usage error's prefix. */
  readonly name: string;
  readonly parse: (
    argv: readonly string[],
    env: NodeJS.ProcessEnv,
  ) => { kind: "help"; text: string } | { kind: "run"; config: C };
  /** The service's configuration error (a usage error: one line on stderr, exit code 2). */
  readonly configError: abstract new (...args: never[]) => Error;
  readonly start: (config: C, deps: { readonly logger: Logger }) => R;
}

/**
 * A service process's start: parses argv and the environment, prints the usage for --help (undefined), refuses a
 * bad flag with one line on stderr and exit code 2, else starts the service with a logger of the process's name.
 * (The caller installs the signal handlers: src/rpc's, which this library does not load.)
 */
export function startServiceProcess<C extends { readonly logLevel: LogLevel }, R>(
  service: ServiceProcess<C, R>,
): { readonly logger: Logger; readonly running: R } | undefined {
  let parsed;
  try {
    parsed = service.parse(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof service.configError) {
      process.stderr.write(`${service.name}: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (parsed.kind === "help") {
    process.stdout.write(parsed.text);
    return undefined;
  }
  const logger = createLogger({ name: service.name, level: parsed.config.logLevel });
  return { logger, running: service.start(parsed.config, { logger }) };
}
