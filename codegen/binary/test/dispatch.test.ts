/** The generated server stub routes each request variant to its handler and turns failures into Error. */
import { describe, expect, it } from "vitest";
import {
  dispatchRequest,
  type RequestHandlers,
  type ResponseError,
} from "../../../generated/protocol/index.js";

const calls: string[] = [];
const handlers: RequestHandlers = {
  async prove(request) {
    calls.push(`prove ${request.preimages.length}`);
    throw new RangeError("no derivation here");
  },
  async signerPublicKey() {
    calls.push("key");
    return { kind: "SignerPublicKey", publicKey: new Uint8Array([4]) };
  },
  async signerAttestation(request) {
    calls.push(`attest ${request.userData?.length ?? "none"}`);
    return { kind: "SignerAttestation", document: new Uint8Array([0x84]) };
  },
};
const toError = (failure: unknown): ResponseError => ({
  kind: "Error",
  message: `failed: ${(failure as Error).message}`,
});

describe("dispatchRequest", () => {
  it("routes every variant to its handler and maps failures to the error response", async () => {
    expect(await dispatchRequest(handlers, { kind: "SignerPublicKey" }, toError)).toEqual({
      kind: "SignerPublicKey",
      publicKey: new Uint8Array([4]),
    });
    expect(
      await dispatchRequest(
        handlers,
        { kind: "SignerAttestation", userData: new Uint8Array(3), nonce: null },
        toError,
      ),
    ).toEqual({ kind: "SignerAttestation", document: new Uint8Array([0x84]) });
    expect(await dispatchRequest(handlers, { kind: "Prove", preimages: [] }, toError)).toEqual({
      kind: "Error",
      message: "failed: no derivation here",
    });
    const unknown = { kind: "TeeImageHash" } as unknown as Parameters<typeof dispatchRequest>[1];
    expect(await dispatchRequest(handlers, unknown, toError)).toEqual({
      kind: "Error",
      message: "failed: unknown Request variant TeeImageHash",
    });
    expect(calls).toEqual(["key", "attest 3", "prove 0"]);
  });
});
