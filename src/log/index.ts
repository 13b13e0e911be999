/** Structured JSON logging: the logging package's public surface. */
export {
  createLogger,
  createMemoryLogger,
  createSilentLogger,
  LOG_LEVELS,
  LogError,
  type LogErrorKind,
  type Logger,
  type LoggerOptions,
  type LogLevel,
  type LogLine,
  parseLogLevel,
  UnknownLogLevelError,
} from "./logger.js";
