/** The generated server stub and typed client. The stub routes each request variant to its handler and turns failures into Error. */
import { describe, expect, it } from "vitest";
import {
  decodeRequest,
  decodeResponse,
  dispatchRequest,
  encodeRequest,
  encodeResponse,
  RemoteErrorResponse,
  type Request,
  RequestClient,
  type RequestHandlers,
  type Response,
  type ResponseError,
  UnexpectedResponseError,
} from "../../../generated/protocol/index.js";

const calls: string[] = [];
const handlers: RequestHandlers = {
  async prove(request) {
    calls.push(`prove ${request.preimages.length}`);
    throw new RangeError("no derivation here");
  },
  async signerPublicKey() {
    calls.push("key");
    return { kind: "SignerPublicKey", public_key: new Uint8Array([4]) };
  },
  async signerAttestation(request) {
    calls.push(`attest ${request.user_data?.length ?? "none"}`);
    return { kind: "SignerAttestation", document: new Uint8Array([0x84]) };
  },
  async teeImageHash() {
    calls.push("image");
    return { kind: "TeeImageHash", image_hash: new Uint8Array(32).fill(0x1a) };
  },
  async aggregate(request) {
    calls.push(`aggregate ${request.proposals.length}`);
    throw new RangeError("nothing to aggregate");
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
      public_key: new Uint8Array([4]),
    });
    expect(
      await dispatchRequest(
        handlers,
        { kind: "SignerAttestation", user_data: new Uint8Array(3), nonce: null },
        toError,
      ),
    ).toEqual({ kind: "SignerAttestation", document: new Uint8Array([0x84]) });
    expect(await dispatchRequest(handlers, { kind: "Prove", preimages: [] }, toError)).toEqual({
      kind: "Error",
      message: "failed: no derivation here",
    });
    expect(await dispatchRequest(handlers, { kind: "TeeImageHash" }, toError)).toEqual({
      kind: "TeeImageHash",
      image_hash: new Uint8Array(32).fill(0x1a),
    });
    const aggregate = {
      kind: "Aggregate",
      chain_id: 10n,
      proposer: new Uint8Array(20),
      intermediate_block_interval: 1n,
      schedule_l2_block_number: 5n,
      proposals: [],
    } as const;
    expect(await dispatchRequest(handlers, aggregate, toError)).toEqual({
      kind: "Error",
      message: "failed: nothing to aggregate",
    });
    const unknown = { kind: "Shutdown" } as unknown as Parameters<typeof dispatchRequest>[1];
    expect(await dispatchRequest(handlers, unknown, toError)).toEqual({
      kind: "Error",
      message: "failed: unknown Request variant Shutdown",
    });
    expect(calls).toEqual(["key", "attest 3", "prove 0", "image", "aggregate 0"]);
  });
});

describe("RequestClient", () => {
  // The client's transport: encode, decode on the "enclave" side, dispatch, encode, decode back.
  const viaCodec = async (request: Request): Promise<Response> => {
    const decoded = decodeRequest(encodeRequest(request));
    const response = await dispatchRequest(handlers, decoded, toError);
    return decodeResponse(encodeResponse(response));
  };

  it("returns the paired response's value", async () => {
    const client = new RequestClient(viaCodec);
    expect(await client.signerPublicKey()).toEqual(new Uint8Array([4]));
    expect(await client.signerAttestation(new Uint8Array(2), null)).toEqual(new Uint8Array([0x84]));
  });

  it("throws RemoteErrorResponse for the error response", async () => {
    const client = new RequestClient(viaCodec);
    await expect(client.prove([])).rejects.toThrow(RemoteErrorResponse);
    await expect(client.prove([])).rejects.toThrow("failed: no derivation here");
  });

  it("throws UnexpectedResponseError for a response of the wrong variant", async () => {
    const client = new RequestClient(async () => ({
      kind: "SignerAttestation",
      document: new Uint8Array(1),
    }));
    await expect(client.signerPublicKey()).rejects.toThrow(
      new UnexpectedResponseError("expected Response::SignerPublicKey, got Response::SignerAttestation"),
    );
  });
});
