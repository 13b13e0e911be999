/**
 * A server process for the shutdown test: serves the test methods on 127.0.0.1, prints
 * `port=<n>` on stdout, and drains on SIGTERM/SIGINT before exiting.
 */
import { createLogger, parseLogLevel } from "../../log/index.js";
import { createRpcServer } from "../server.js";
import { exitOnShutdownSignals } from "../shutdown.js";
import { createTestMethods } from "./methods.js";

const logger = createLogger({
  name: "rpc-fixture",
  level: parseLogLevel(process.env.LOG_LEVEL ?? "info"),
  destination: process.stderr,
});
const server = createRpcServer({ methods: createTestMethods().methods, host: "127.0.0.1", port: 0, logger });
exitOnShutdownSignals(() => server.close({ drainMs: 5000 }), { logger });
const port = await server.listen();
process.stdout.write(`port=${port}\n`);
