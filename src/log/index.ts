/**
 * Logging (foundation): structured JSON logs.
 *
 * Public surface: `createLogger` (pino, one JSON line a record), `createMemoryLogger` and `createSilentLogger` for
 * tests, `Logger`, the levels (`LOG_LEVELS`, `parseLogLevel`), and the errors (`LogError` root).
 *
 * Concepts owned: the log line and its levels.
 */
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
