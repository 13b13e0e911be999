/**
 * Command-line flags with environment twins, declared once as a table that both the parser and the usage text
 * read. A flag given on the command line wins over its twin; an empty twin counts as unset. Every refusal goes
 * through the service's own `fail`, so a service's configuration errors stay its own class.
 */
import { parseArgs } from "node:util";
import { type Address, getAddress, isAddress } from "viem";
import { type LogLevel, parseLogLevel } from "../log/index.js";

/** One flag of a service. */
export interface FlagSpec {
  /** The flag without its dashes ("l1-rpc-url"). */
  readonly flag: string;
  /** The environment variable read when the flag is absent ("PROVER_L1_RPC_URL"); none when absent. */
  readonly env?: string;
  /** The value's placeholder in the usage text ("URL"); absent for a boolean flag. */
  readonly value?: string;
  readonly help: string;
  /** A string flag that may be repeated. */
  readonly multiple?: boolean;
  /** A flag without a value (its twin reads 1/true/yes/on or 0/false/no/off). */
  readonly boolean?: boolean;
  /** A one-letter alias. */
  readonly short?: string;
}

/** Builds the service's own configuration error for a refused flag. */
export type FlagFailure = (
  message: string,
  details: { readonly flag?: string; readonly value?: string },
  cause?: unknown,
) => Error;

/** What a parse found; each accessor reads the flag, else its twin. */
export interface ParsedFlags {
  /** --help (or -h) was given. */
  readonly help: boolean;
  readonly positionals: readonly string[];
  /** The flag's value, else its twin's; undefined when both are unset. */
  text(flag: string): string | undefined;
  /** Like `text`, refusing an unset flag. */
  need(flag: string): string;
  /** Every value of a repeatable flag, else its twin's value as one entry; [] when unset. */
  list(flag: string): string[];
  /** A boolean flag, else its twin read as a boolean. */
  bool(flag: string): boolean;
}

export interface ParseFlagsOptions {
  readonly fail: FlagFailure;
  /** Accept positional arguments (commands); refused otherwise. */
  readonly allowPositionals?: boolean;
}

/** The environment twin of a flag: PREFIX_ and the flag in upper snake case. */
export const envTwin = (prefix: string, flag: string): string =>
  `${prefix}_${flag.toUpperCase().replaceAll("-", "_")}`;

/** Parses argv (without the node and script paths) against `flags`, with the environment's twins. */
export function parseFlags(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  flags: readonly FlagSpec[],
  options: ParseFlagsOptions,
): ParsedFlags {
  const { fail } = options;
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      options: {
        help: { type: "boolean", short: "h" },
        ...Object.fromEntries(
          flags.map((spec) => [
            spec.flag,
            {
              ...(spec.boolean === true
                ? { type: "boolean" as const }
                : { type: "string" as const, multiple: spec.multiple === true }),
              ...(spec.short === undefined ? {} : { short: spec.short }),
            },
          ]),
        ),
      },
      strict: true,
      allowPositionals: options.allowPositionals === true,
    }));
  } catch (error) {
    throw fail((error as Error).message, {}, error);
  }
  const specOf = (flag: string): FlagSpec => {
    const spec = flags.find((candidate) => candidate.flag === flag);
    if (spec === undefined) throw new RangeError(`no flag --${flag} is declared`);
    return spec;
  };
  const twin = (flag: string): string | undefined => {
    const name = specOf(flag).env;
    const value = name === undefined ? undefined : env[name];
    return value === undefined || value === "" ? undefined : value;
  };
  const text = (flag: string): string | undefined => {
    const value = values[flag];
    if (typeof value === "string") return value;
    if (Array.isArray(value)) return value.length === 0 ? twin(flag) : String(value[value.length - 1]);
    return twin(flag);
  };
  return {
    help: values.help === true,
    positionals,
    text,
    need(flag) {
      const value = text(flag);
      if (value === undefined) throw fail(`--${flag} is required`, { flag });
      return value;
    },
    list(flag) {
      const value = values[flag];
      if (Array.isArray(value) && value.length > 0) return value.map(String);
      const fromTwin = twin(flag);
      return fromTwin === undefined ? [] : [fromTwin];
    },
    bool(flag) {
      if (values[flag] === true) return true;
      const fromTwin = twin(flag);
      if (fromTwin === undefined) return false;
      if (/^(1|true|yes|on)$/i.test(fromTwin)) return true;
      if (/^(0|false|no|off)$/i.test(fromTwin)) return false;
      const name = specOf(flag).env as string;
      throw fail(`${name}: "${fromTwin}" is not a boolean`, { flag, value: fromTwin });
    },
  };
}

/**
 * The options part of a usage text: each flag and its placeholder, then its help wrapped to `width` columns from
 * `column` on, then its twin.
 */
export function renderFlagUsage(flags: readonly FlagSpec[], column = 44, width = 118): string[] {
  const indent = "".padEnd(column);
  return flags.map((spec) => {
    const names = `${spec.short === undefined ? "" : `-${spec.short}, `}--${spec.flag}`;
    const left = `  ${names}${spec.value === undefined ? "" : ` <${spec.value}>`}`;
    const lines = wrap(spec.help, Math.max(20, width - column));
    const twin = spec.env === undefined ? [] : [`env ${spec.env}`];
    return [...lines, ...twin]
      .map((line, i) => (i === 0 ? `${left.padEnd(column)}${line}` : `${indent}${line}`))
      .join("\n");
  });
}

/** `text` in lines of at most `width` characters, broken between words. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter((w) => w.length > 0)) {
    if (line.length > 0 && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line.length === 0 ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines;
}

/** An integer flag value of at least `min`; `fail` otherwise. */
export function integerFlag(text: string, flag: string, min: number, fail: FlagFailure): number {
  if (!/^[0-9]{1,12}$/.test(text) || Number(text) < min)
    throw fail(`--${flag} must be an integer of at least ${min}`, { flag, value: text });
  return Number(text);
}

/** A URL flag value whose scheme is one of `schemes` (default http and https); `fail` otherwise. */
export function urlFlag(
  text: string,
  flag: string,
  fail: FlagFailure,
  schemes: readonly string[] = ["http:", "https:"],
): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch (error) {
    throw fail(`--${flag}: "${text}" is not a URL`, { flag, value: text }, error);
  }
  if (!schemes.includes(url.protocol))
    throw fail(`--${flag}: "${text}" must be an ${schemeNames(schemes)} URL`, { flag, value: text });
  return text;
}

/** "http(s) or ws(s)" for ["http:", "https:", "ws:", "wss:"]. */
function schemeNames(schemes: readonly string[]): string {
  const names = schemes.map((scheme) => scheme.slice(0, -1));
  return names
    .filter((name) => !(name.endsWith("s") && names.includes(name.slice(0, -1))))
    .map((name) => (names.includes(`${name}s`) ? `${name}(s)` : name))
    .join(" or ");
}

/** An address flag value, checksummed; `fail` otherwise. */
export function addressFlag(text: string, flag: string, fail: FlagFailure): Address {
  if (!isAddress(text, { strict: false }))
    throw fail(`--${flag}: "${text}" is not an address`, { flag, value: text });
  return getAddress(text);
}

/** A log level flag value (default "info" when unset); `fail` otherwise. */
export function logLevelFlag(text: string | undefined, flag: string, fail: FlagFailure): LogLevel {
  try {
    return parseLogLevel(text ?? "info");
  } catch (error) {
    throw fail(`--${flag}: ${(error as Error).message}`, { flag }, error);
  }
}
