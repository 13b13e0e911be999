/**
 * The host's fetching oracle under its bounds, against a real L1 (anvil, manual mining): the walk back from the
 * L1 head stops at --max-l1-distance before the next header is fetched; the recorded witness stops at an injected
 * preimage-count cap and Prove payload cap; the fetched cache stops at the payload cap, the refused value not
 * cached. Each stop is the named error (L1DistanceError, WitnessTooLargeError). Starts one anvil (a few seconds).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeRequest } from "../../generated/protocol/index.js";
import { decodeHeader, fromHex, keccak256Key } from "../../src/chain/index.js";
import { type Anvil, startAnvil } from "../../src/devnet/l1/anvil.js";
import {
  encodedPreimageBytes,
  FetchingOracle,
  L1DistanceError,
  type WitnessLimits,
  WitnessTooLargeError,
} from "../../src/host/index.js";
import { type BootInfo, bootInfoPreimages } from "../../src/proof/preimages/index.js";

const NO_LIMIT: WitnessLimits = { maxPreimages: 1 << 30, maxPayloadBytes: 2 ** 40 };

describe("FetchingOracle against a real L1 (anvil)", () => {
  let anvil: Anvil;
  /** Hashes of blocks 5, 4, …, 0: the walk back from the L1 head. */
  const walk: Uint8Array[] = [];

  beforeAll(async () => {
    anvil = await startAnvil({ mining: { mode: "manual" }, clock: "genesis" });
    for (let i = 0; i < 5; i++) await anvil.mine();
    let block = await anvil.request<{ hash: string; parentHash: string; number: string }>(
      "eth_getBlockByNumber",
      ["latest", false],
    );
    for (;;) {
      walk.push(fromHex(block.hash));
      if (BigInt(block.number) === 0n) break;
      block = await anvil.request("eth_getBlockByHash", [block.parentHash, false]);
    }
  }, 120_000);

  afterAll(async () => {
    await anvil?.stop();
  });

  function oracle(options: { witnessLimits?: WitnessLimits; maxL1Distance?: number }): {
    oracle: FetchingOracle;
    bootCount: number;
  } {
    const boot: BootInfo = {
      l1Head: walk[0]!,
      l1HeadNumber: 5n,
      agreedOutputRoot: new Uint8Array(32).fill(3),
      claimedOutputRoot: new Uint8Array(32).fill(4),
      claimedL2BlockNumber: 10n,
      chainId: 901n,
      proposer: new Uint8Array(20).fill(6),
      intermediateBlockInterval: 1n,
    };
    return {
      oracle: new FetchingOracle({
        boot,
        agreedL2HeadHash: new Uint8Array(32),
        l1RpcUrl: anvil.rpcUrl,
        l2RpcUrl: anvil.rpcUrl,
        ...options,
      }),
      bootCount: bootInfoPreimages(boot).length,
    };
  }

  it("stops the L1 walk at --max-l1-distance, before fetching the header past it", async () => {
    const { oracle: o } = oracle({ maxL1Distance: 2 });
    for (const hash of walk.slice(0, 3)) await o.hint({ type: "l1-block-header", hash });
    await expect(o.hint({ type: "l1-block-header", hash: walk[3]! })).rejects.toThrow(L1DistanceError);
    expect(o.stats.fetches["l1-block-header"]).toBe(3);
    // A hint already walked is not walked again.
    await o.hint({ type: "l1-block-header", hash: walk[0]! });
  });

  it("stops recording at the injected preimage-count cap", async () => {
    const probe = oracle({});
    const { oracle: o } = oracle({
      witnessLimits: { maxPreimages: probe.bootCount + 2, maxPayloadBytes: NO_LIMIT.maxPayloadBytes },
    });
    for (const hash of walk.slice(0, 3)) await o.hint({ type: "l1-block-header", hash });
    expect(decodeHeader(o.get(keccak256Key(walk[0]!))).number).toBe(5n);
    o.get(keccak256Key(walk[1]!));
    // Read again: already in the frame, not counted twice.
    o.get(keccak256Key(walk[0]!));
    expect(() => o.get(keccak256Key(walk[2]!))).toThrow(WitnessTooLargeError);
    // The refusal stands even if a reader swallowed it: there is no frame to hand out.
    expect(() => o.witness()).toThrow(/more than \d+ preimages/);
  });

  it("stops recording at the injected payload cap, and fetching at the cache cap", async () => {
    const probe = oracle({});
    const bootPayload = encodeRequest({ kind: "Prove", preimages: probe.oracle.witness() }).length;
    const headers = walk.slice(0, 4);
    const sizes: number[] = [];
    for (const hash of headers) {
      await probe.oracle.hint({ type: "l1-block-header", hash });
      sizes.push(probe.oracle.get(keccak256Key(hash)).length);
    }
    const cap = sizes.reduce((a, b) => a + b, 0);

    // The cap holds the four headers in the cache exactly; the frame (boot keys, 35 bytes of key and length per
    // entry) fills first: the first header whose payload would pass the cap is refused.
    let payload = bootPayload;
    const fits = sizes.findIndex((size) => (payload += encodedPreimageBytes(size)) > cap);
    expect(fits).toBeGreaterThan(0);
    const frame = oracle({ witnessLimits: { maxPreimages: NO_LIMIT.maxPreimages, maxPayloadBytes: cap } });
    for (const hash of headers) await frame.oracle.hint({ type: "l1-block-header", hash });
    for (const hash of headers.slice(0, fits)) frame.oracle.get(keccak256Key(hash));
    let refused: unknown;
    try {
      frame.oracle.get(keccak256Key(headers[fits]!));
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(WitnessTooLargeError);
    expect((refused as WitnessTooLargeError).details).toMatchObject({
      limit: "frame-bytes",
      maxPayloadBytes: cap,
    });
    expect(() => frame.oracle.witness()).toThrow(WitnessTooLargeError);

    // A cache one byte short of two headers: the second fetch is refused, not cached.
    const [first, second] = sizes as [number, number];
    const cache = oracle({
      witnessLimits: { maxPreimages: NO_LIMIT.maxPreimages, maxPayloadBytes: first + second - 1 },
    });
    await cache.oracle.hint({ type: "l1-block-header", hash: walk[0]! });
    await expect(cache.oracle.hint({ type: "l1-block-header", hash: walk[1]! })).rejects.toMatchObject({
      name: "WitnessTooLargeError",
      details: { limit: "cache-bytes" },
    });
    expect(cache.oracle.stats.cachedBytes).toBe(first);
    expect(cache.oracle.tryGet(keccak256Key(walk[1]!))).toBeUndefined();
  });
});
