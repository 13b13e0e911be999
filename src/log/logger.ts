/**
 * Structured JSON logging: one JSON object per line with `level` (a name), `time` (ISO 8601),
 * `msg` and the caller's fields. Built on pino; every process creates one root logger and hands
 * child loggers (`logger.child({ component: "rpc" })`) to its modules.
 */
import { Writable } from "node:stream";
import { pino, stdTimeFunctions } from "pino";
import { SuiteError, type ErrorDetails } from "../errors/index.js";

export type Logger = pino.Logger;
export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

export const LOG_LEVELS: readonly LogLevel[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

export interface LoggerOptions {
  /** The service name written as `service` on every line. */
  readonly name: string;
  /** Lowest level written; defaults to `info`. */
  readonly level?: LogLevel;
  /** Where lines go; defaults to standard output (written synchronously, so nothing is lost at exit). */
  readonly destination?: NodeJS.WritableStream;
}

/** Parses a level name from a flag or environment variable; throws on an unknown name. */
export function parseLogLevel(text: string): LogLevel {
  const level = LOG_LEVELS.find((candidate) => candidate === text.toLowerCase());
  if (level === undefined) {
    throw new UnknownLogLevelError(text);
  }
  return level;
}

export type LogErrorKind = "unknown-log-level";

/** Root of the logging package's errors. */
export abstract class LogError extends SuiteError<LogErrorKind> {
  readonly package = "log";

  constructor(message: string, kind: LogErrorKind, details: ErrorDetails, options: { cause?: unknown } = {}) {
    super(message, { kind, details, cause: options.cause });
  }
}

/** A level name (flag or environment variable) that is not one of LOG_LEVELS. */
export class UnknownLogLevelError extends LogError {
  readonly text: string;

  constructor(text: string) {
    super(`unknown log level "${text}": expected one of ${LOG_LEVELS.join(", ")}`, "unknown-log-level", {
      text,
    });
    this.text = text;
  }
}

/** Creates a root logger writing JSON lines. */
export function createLogger(options: LoggerOptions): Logger {
  const destination = options.destination ?? pino.destination({ dest: 1, sync: true });
  return pino(
    {
      level: options.level ?? "info",
      base: { service: options.name },
      messageKey: "msg",
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: pino.stdSerializers.err },
    },
    destination,
  );
}

/** A logger that drops everything: for library callers that pass no logger. */
export function createSilentLogger(): Logger {
  return pino({ level: "silent" });
}

/** A logger that collects parsed lines in memory (tests and tools that inspect their own logs). */
export function createMemoryLogger(
  name: string,
  level: LogLevel = "trace",
): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const text of chunk.toString("utf8").split("\n")) {
        if (text.length > 0) lines.push(JSON.parse(text) as LogLine);
      }
      callback();
    },
  });
  return { logger: createLogger({ name, level, destination: sink }), lines };
}

/** One parsed log line. */
export interface LogLine {
  readonly level: string;
  readonly time: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}
