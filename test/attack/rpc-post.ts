/**
 * One JSON-RPC POST (a call or a batch) through an undici pool, its answers counted by outcome: "ok", the JSON-RPC
 * error code, "http <status>" or "transport <code>". Shared by the prover_prove flood and the node's abuse bursts.
 */
import type { Pool } from "undici";

/** Outcome label → count. */
export type ErrorMix = Map<string, number>;

export function count(mix: ErrorMix, key: string): void {
  mix.set(key, (mix.get(key) ?? 0) + 1);
}

/** Posts `body` to `/`, counts each answer in `mix`, and resolves with the parsed JSON (undefined on a failure). */
export async function postJsonRpc(pool: Pool, body: unknown, mix: ErrorMix): Promise<unknown> {
  try {
    const res = await pool.request({
      path: "/",
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (res.statusCode !== 200) {
      count(mix, `http ${res.statusCode}`);
      await res.body.dump();
      return undefined;
    }
    const json = (await res.body.json()) as unknown;
    const items = Array.isArray(json) ? json : [json];
    for (const item of items as { result?: unknown; error?: { code: number } }[]) {
      if (item.error !== undefined) count(mix, String(item.error.code));
      else count(mix, "ok");
    }
    return json;
  } catch (e) {
    count(mix, `transport ${(e as { code?: string }).code ?? "error"}`);
    return undefined;
  }
}
