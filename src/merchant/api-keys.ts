/**
 * API keys of the merchant HTTP API. A key is `mk_<id>_<secret>`: `id` (12 hex characters) names the key in the
 * store and in logs, `secret` is 32 random bytes (base64url). Only SHA-256 of the secret is stored: the secret is
 * 256 random bits, so a fast hash is as safe as a slow one (slow hashes protect guessable passwords) and a lookup
 * stays one indexed read. The presented secret's hash is compared in constant time.
 *
 * Scopes: `read` lists and reads orders without their signatures; `write` also creates, captures, voids and
 * cancels orders and sees the buyers' signatures. A key ends when it is revoked or when its end time (set by a
 * rotation with a grace period) passes.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

export type ApiScope = "read" | "write";

export const API_SCOPES: readonly ApiScope[] = ["read", "write"];

export function isApiScope(value: string): value is ApiScope {
  return (API_SCOPES as readonly string[]).includes(value);
}

/** A key as stored: never the secret, only its hash. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  scope: ApiScope;
  secretHash: string;
  createdAt: Date;
  /** When the key stops working (revocation or the end of a rotation's grace period); null: no end. */
  endsAt: Date | null;
}

/** The part of the store API keys live in (the merchant's own database). */
export interface ApiKeyStore {
  insertApiKey(key: ApiKeyRecord): Promise<void>;
  getApiKey(id: string): Promise<ApiKeyRecord | null>;
  listApiKeys(): Promise<ApiKeyRecord[]>;
  /** Ends the key at `at` unless it already ends earlier; false when there is no such key. */
  endApiKey(id: string, at: Date): Promise<boolean>;
}

/** Who made a request: the key's id and scope. */
export interface ApiCaller {
  keyId: string;
  scope: ApiScope;
}

const KEY_PATTERN = /^mk_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/** A key's public view (list output): no secret, no hash. */
export function describeApiKey(key: ApiKeyRecord, now = new Date()): Record<string, unknown> {
  return {
    id: key.id,
    name: key.name,
    scope: key.scope,
    createdAt: key.createdAt.toISOString(),
    endsAt: key.endsAt?.toISOString() ?? null,
    active: key.endsAt === null || key.endsAt > now,
  };
}

export interface IssuedApiKey {
  /** The whole key; shown once, never stored. */
  key: string;
  record: ApiKeyRecord;
}

export class ApiKeys {
  constructor(
    private readonly store: ApiKeyStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async create(name: string, scope: ApiScope): Promise<IssuedApiKey> {
    const id = randomBytes(6).toString("hex");
    const secret = randomBytes(32).toString("base64url");
    const record: ApiKeyRecord = {
      id,
      name,
      scope,
      secretHash: hashSecret(secret),
      createdAt: this.now(),
      endsAt: null,
    };
    await this.store.insertApiKey(record);
    return { key: `mk_${id}_${secret}`, record };
  }

  /** The caller a presented key belongs to, or null (malformed, unknown, wrong secret, ended). */
  async verify(presented: string): Promise<ApiCaller | null> {
    const match = KEY_PATTERN.exec(presented);
    if (match === null) return null;
    const record = await this.store.getApiKey(match[1] as string);
    if (record === null) return null;
    const expected = Buffer.from(record.secretHash, "hex");
    const actual = Buffer.from(hashSecret(match[2] as string), "hex");
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return null;
    if (record.endsAt !== null && record.endsAt <= this.now()) return null;
    return { keyId: record.id, scope: record.scope };
  }

  list(): Promise<ApiKeyRecord[]> {
    return this.store.listApiKeys();
  }

  /** Revokes the key now; false when there is no such key. */
  revoke(id: string): Promise<boolean> {
    return this.store.endApiKey(id, this.now());
  }

  /**
   * A new key with the same name and scope; the old one keeps working for `graceSeconds` (0: ends now), so
   * clients can switch over. Null when there is no such key.
   */
  async rotate(
    id: string,
    graceSeconds: number,
  ): Promise<{ issued: IssuedApiKey; replaced: ApiKeyRecord } | null> {
    const old = await this.store.getApiKey(id);
    if (old === null) return null;
    const issued = await this.create(old.name, old.scope);
    await this.store.endApiKey(id, new Date(this.now().getTime() + graceSeconds * 1000));
    return { issued, replaced: (await this.store.getApiKey(id)) ?? old };
  }

  /**
   * Makes sure `path` holds a working key of `scope`: keeps the one there when it still verifies, otherwise
   * creates one (named `name`) and writes it to the file (mode 0600, replaced atomically). Returns the key's id.
   */
  async ensureKeyFile(
    path: string,
    name: string,
    scope: ApiScope,
  ): Promise<{ id: string; created: boolean }> {
    if (existsSync(path)) {
      const caller = await this.verify(readFileSync(path, "utf8").trim());
      if (caller !== null && (caller.scope === scope || caller.scope === "write"))
        return { id: caller.keyId, created: false };
    }
    const issued = await this.create(name, scope);
    writeKeyFile(path, issued.key);
    return { id: issued.record.id, created: true };
  }
}

/** Writes a key to a file only its owner can read, replacing any file there atomically. */
export function writeKeyFile(path: string, key: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${key}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

/** Whether a caller's scope allows what a route needs (write includes read). */
export function scopeAllows(caller: ApiScope, needed: ApiScope): boolean {
  return caller === "write" || needed === "read";
}
