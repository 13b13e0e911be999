/**
 * Witness tampering in transit: a second host process over the
 * L1-backed chain (test/support/prover-chain.ts) reaches the local-mode enclave process through a tamper proxy
 * (test/host/tamper-proxy.ts) that edits the Prove frame. Unedited, the proof goes through (the control);
 * a changed byte in a preimage value, a dropped preimage and two swapped blob field elements are each refused by
 * the enclave: the host answers -32000, the enclave answers Error and its log shows no Prove served with a
 * result, so nothing was signed.
 */
import { type Hex, hexToBytes } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Preimage } from "../../generated/protocol/index.js";
import { bytesEqual, keccak256Key, PreimageKeyType } from "../../src/chain/index.js";
import { l1Account } from "../support/prover-chain.js";
import { type ProveChain, type RangeRequest, RpcCallError, startProveChain } from "../proof/prove-chain.js";
import type { RunningHost } from "./spawn-host.js";
import { startTamperProxy, type TamperProxy } from "./tamper-proxy.js";

let p: ProveChain;
let proxy: TamperProxy;
let host: RunningHost;
let request: RangeRequest;

/** The enclave's log lines for served Prove requests, by response kind. */
const served = (response: "Prove" | "Error") =>
  p.prover.enclave.logs.filter(
    (line) => line.msg === "request served" && line.request === "Prove" && line.response === response,
  ).length;

/** The preimage under the keccak256 key of `hash` (a header, an output root's preimage, …). */
const keyedBy = (hash: Hex) => (preimage: Preimage) =>
  bytesEqual(preimage[0], keccak256Key(hexToBytes(hash)));

/**
 * Proves through the proxy with `edit`; returns the enclave's answer to the first edited frame. `frames`: the Prove
 * frames the host sends (each edited, each refused): 2 where the first refusal is a missing value of the forwarded
 * witness (the host's default run), after which the host sends the program's witness once.
 */
async function proveEdited(edit: (preimages: readonly Preimage[]) => Preimage[], frames = 1) {
  const before = { signed: served("Prove"), refused: served("Error"), exchanges: proxy.exchanges.length };
  proxy.edit = edit;
  const failure = await p.prove(request, host.url).then(
    () => undefined,
    (error: unknown) => error,
  );
  proxy.edit = undefined;
  expect(failure).toBeInstanceOf(RpcCallError);
  expect((failure as RpcCallError).code).toBe(-32000);
  const proves = proxy.exchanges.slice(before.exchanges).filter((e) => e.request.kind === "Prove");
  expect(proves.map((e) => e.response.kind)).toEqual(new Array(frames).fill("Error"));
  const exchange = proves[0];
  expect(served("Prove")).toBe(before.signed);
  expect(served("Error")).toBe(before.refused + frames);
  return exchange!.response.kind === "Error" ? exchange!.response.message : "";
}

beforeAll(async () => {
  p = await startProveChain();
  const enclave = p.prover.enclave.address;
  if (enclave.kind !== "unix") throw new Error("expected a Unix socket enclave");
  proxy = await startTamperProxy(enclave.path);
  host = await p.startHostFor(proxy.path);
  await p.prover.waitForSafe(5n);
  request = await p.rangeRequest(2, 4, 2, l1Account(5).address);
}, 1_200_000);

afterAll(async () => {
  await p?.stop();
  await proxy?.close();
});

describe("a Prove frame edited between the host and enclave processes", () => {
  it("unedited, proves through the proxy (the control)", async () => {
    const result = await p.prove(request, host.url);
    expect(result.Tee.proposals.map((x) => x.output_root)).toEqual(request.roots);
    const exchange = proxy.exchanges.find((e) => e.request.kind === "Prove");
    expect(exchange?.response.kind).toBe("Prove");
    // The frame carries blob field elements (the range's batches are in blobs) for the swap below.
    const prove = exchange!.request;
    if (prove.kind !== "Prove") throw new Error("not a Prove request");
    expect(prove.preimages.filter(([key]) => key[0] === PreimageKeyType.Blob).length).toBeGreaterThan(1);
    expect(prove.preimages.some(keyedBy(request.l1Head.hash))).toBe(true);
  }, 900_000);

  it("refuses a changed byte in a preimage value (the agreed output root's preimage)", async () => {
    const message = await proveEdited((preimages) => {
      const at = preimages.findIndex(keyedBy(request.agreedRoot));
      expect(at).toBeGreaterThanOrEqual(0);
      const value = Uint8Array.from(preimages[at]![1]);
      value[value.length - 1]! ^= 0x01;
      return preimages.map((preimage, i) => (i === at ? [preimage[0], value] : preimage));
    });
    // The enclave names the refusal's class: the value no longer hashes to its key.
    expect(message).toMatch(/^PreimageMismatchError: /);
  }, 900_000);

  it("refuses a dropped preimage (the L1 head's header), in the forwarded witness and in the program's after it", async () => {
    const message = await proveEdited((preimages) => {
      const kept = preimages.filter((preimage) => !keyedBy(request.l1Head.hash)(preimage));
      expect(kept.length).toBe(preimages.length - 1);
      return kept;
    }, 2);
    expect(message).toMatch(/^MissingWitnessError: /);
  }, 900_000);

  it("refuses two swapped blob field elements", async () => {
    const message = await proveEdited((preimages) => {
      const blobs = preimages.flatMap((preimage, i) => (preimage[0][0] === PreimageKeyType.Blob ? [i] : []));
      const a = blobs[0]!;
      const b = blobs.find((i) => !bytesEqual(preimages[i]![1], preimages[a]![1]));
      expect(b).toBeDefined();
      return preimages.map((preimage, i): Preimage => {
        if (i === a) return [preimage[0], preimages[b!]![1]];
        if (i === b) return [preimage[0], preimages[a]![1]];
        return preimage;
      });
    });
    // The rebuilt blob no longer opens to its KZG commitment.
    expect(message).toMatch(/^InvalidWitnessError: /);
  }, 900_000);
});
