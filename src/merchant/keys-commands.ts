/**
 * `merchant-keys`: creates, lists, rotates and revokes the API keys of the merchant service, in the service's own
 * database (the same --database-url / --sqlite settings as the service; it may be running). A new key is printed
 * once (or written to --out, mode 0600) and never stored: the database keeps its SHA-256 only.
 */
import { parseArgs } from "node:util";
import { ApiKeys, describeApiKey, type IssuedApiKey, isApiScope, writeKeyFile } from "./api-keys.js";
import { CliUsageError } from "./errors.js";
import { openStore } from "./store/open-store.js";

export const KEYS_USAGE = `Usage: merchant-keys <command> [options]

API keys of the merchant service, kept hashed in its database (run next to the service; it may be running).

Commands:
  create --name <name> --scope read|write [--out <file>]
                                   a new key; printed once (or written to --out, mode 0600, and not printed)
  list                             every key: id, name, scope, createdAt, endsAt, active (never secrets)
  rotate <id> [--grace-seconds <n>] [--out <file>]
                                   a new key with the same name and scope; the old one works <n> seconds more
                                   (default 0: it ends now)
  revoke <id>                      the key stops working now

Store (as the service): --database-url <url> [DATABASE_URL] or --sqlite <path> [MERCHANT_SQLITE_PATH]
(default ./merchant.db). Scopes: read lists and reads orders without signatures; write also creates, captures,
voids and cancels, and sees the buyers' signatures.
Exit status: 0 ok, 1 no such key or a store error, 2 usage error.
`;

export interface KeysIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function nonNegative(text: string | undefined, flag: string): number {
  if (text === undefined) return 0;
  if (!/^[0-9]{1,9}$/.test(text)) throw new CliUsageError(`${flag} must be a whole number of seconds`);
  return Number(text);
}

/** Prints a new key, or writes it to `out` and prints its description only. */
function issue(
  io: KeysIo,
  issued: IssuedApiKey,
  out: string | undefined,
  extra: Record<string, unknown> = {},
): void {
  const description = { ...describeApiKey(issued.record), ...extra };
  if (out === undefined) {
    io.out(json({ ...description, key: issued.key }));
    return;
  }
  writeKeyFile(out, issued.key);
  io.out(json({ ...description, file: out }));
}

export async function runKeysCli(argv: readonly string[], io: KeysIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        "database-url": { type: "string" },
        sqlite: { type: "string" },
        name: { type: "string" },
        scope: { type: "string" },
        out: { type: "string" },
        "grace-seconds": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    io.err(`merchant-keys: ${(error as Error).message}\n\n${KEYS_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, id, ...extra] = positionals;
  if (values.help === true || command === undefined) {
    (values.help === true ? io.out : io.err)(KEYS_USAGE);
    return values.help === true ? 0 : 2;
  }
  try {
    if (extra.length > 0) throw new CliUsageError(`unexpected arguments: ${extra.join(" ")}`);
    const needId = (): string => {
      if (id === undefined || !/^[0-9a-f]{12}$/.test(id))
        throw new CliUsageError(`${command} needs a key id (12 hex characters, from list)`);
      return id;
    };
    if (!["create", "list", "rotate", "revoke"].includes(command))
      throw new CliUsageError(`unknown command ${command}`);
    const databaseUrl = values["database-url"] ?? io.env.DATABASE_URL;
    const store = await openStore({
      ...(databaseUrl === undefined || databaseUrl === "" ? {} : { databaseUrl }),
      sqlitePath: values.sqlite ?? io.env.MERCHANT_SQLITE_PATH ?? "./merchant.db",
    });
    const keys = new ApiKeys(store);
    try {
      switch (command) {
        case "create": {
          const name = values.name;
          if (name === undefined || name === "" || name.length > 100)
            throw new CliUsageError("--name is required (1-100 characters)");
          const scope = values.scope ?? "";
          if (!isApiScope(scope)) throw new CliUsageError("--scope must be read or write");
          issue(io, await keys.create(name, scope), values.out);
          return 0;
        }
        case "list":
          io.out(json({ keys: (await keys.list()).map((key) => describeApiKey(key)) }));
          return 0;
        case "rotate": {
          const rotated = await keys.rotate(
            needId(),
            nonNegative(values["grace-seconds"], "--grace-seconds"),
          );
          if (rotated === null) {
            io.err(`merchant-keys: no key ${id}\n`);
            return 1;
          }
          issue(io, rotated.issued, values.out, { replaced: describeApiKey(rotated.replaced) });
          return 0;
        }
        default: {
          if (!(await keys.revoke(needId()))) {
            io.err(`merchant-keys: no key ${id}\n`);
            return 1;
          }
          io.out(json({ revoked: id }));
          return 0;
        }
      }
    } finally {
      await store.close();
    }
  } catch (error) {
    if (error instanceof CliUsageError) {
      io.err(`merchant-keys: ${error.message}\n\n${KEYS_USAGE}`);
      return 2;
    }
    io.err(`merchant-keys: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
