/**
 * The prologue and epilogue the devnet's commands (`npm start`, `npm run deposit`, `npm run prove`) share: parse
 * the flags and environment (a malformed one: the message and the usage on stderr, exit 2), `--help` (the usage on
 * stdout, exit 0), run, and exit with what the run returns (an uncaught error: exit 1).
 */

export interface CliCommand<Config> {
  readonly usage: string;
  /** Throws on a malformed flag (its message is shown above the usage). */
  parse(argv: readonly string[], env: NodeJS.ProcessEnv): Config | "help";
  run(config: Config): Promise<number>;
  /** Prefix of the one-line report of an uncaught error; without it the error's stack is printed. */
  readonly failurePrefix?: string;
}

/** Runs `command` with this process's arguments and environment, then exits the process. */
export function runCli<Config>(command: CliCommand<Config>): void {
  const main = async (): Promise<number> => {
    let config: Config | "help";
    try {
      config = command.parse(process.argv.slice(2), process.env);
    } catch (e) {
      process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n\n${command.usage}`);
      return 2;
    }
    if (config === "help") {
      process.stdout.write(command.usage);
      return 0;
    }
    return command.run(config);
  };
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      const text =
        command.failurePrefix === undefined
          ? e instanceof Error
            ? (e.stack ?? e.message)
            : String(e)
          : `${command.failurePrefix}: ${e instanceof Error ? e.message : String(e)}`;
      process.stderr.write(`${text}\n`);
      process.exit(1);
    },
  );
}
