/** Process entry point of the merchant order service: `tsx src/merchant/main.ts --help`. */
import { createLogger, UnknownLogLevelError } from "../log/index.js";
import { startMerchantService } from "./app.js";
import { ConfigError, MERCHANT_USAGE, parseProcessConfig } from "./config.js";

async function main(): Promise<number> {
  let config;
  try {
    config = parseProcessConfig(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof UnknownLogLevelError) {
      process.stderr.write(`merchant: ${error.message}\n\n${MERCHANT_USAGE}`);
      return 2;
    }
    throw error;
  }
  if (config.help) {
    process.stdout.write(MERCHANT_USAGE);
    return 0;
  }
  const logger = createLogger({ name: "merchant", level: config.logLevel });
  const running = await startMerchantService(config.merchant, logger);
  await new Promise<void>((resolve) => {
    const stop = (signal: string): void => {
      logger.info({ signal }, "shutting down");
      resolve();
    };
    process.once("SIGINT", () => stop("SIGINT"));
    process.once("SIGTERM", () => stop("SIGTERM"));
  });
  await running.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`merchant: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
