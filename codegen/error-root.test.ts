/**
 * One error root for hand-written and generated code (docs/errors.md): the roots codegen emits into generated/
 * (the JSON-RPC runtime's, the protocol runtime's, the journal's) extend src/errors' SuiteError, so `instanceof
 * SuiteError`, `kind`, `details` and `walk()` hold for every error the project defines.
 */
import { describe, expect, it } from "vitest";
import { JournalError, JournalLayoutError, unpackJournal } from "../generated/journal/index.js";
import { BincodeDecodeError, FrameError, ProtocolError } from "../generated/protocol/index.js";
import { InvalidParamsError, RpcError, RpcRuntimeError } from "../generated/rpc/index.js";
import { isSuiteError, SuiteError } from "../src/errors/index.js";

describe("the generated error roots", () => {
  it("extend SuiteError, each with its package, kind and details", () => {
    const rpc = new InvalidParamsError("bad block tag");
    expect(rpc).toBeInstanceOf(RpcError);
    expect(rpc).toBeInstanceOf(RpcRuntimeError);
    expect(rpc).toBeInstanceOf(SuiteError);
    expect([rpc.package, rpc.kind, rpc.code]).toEqual(["rpc", "invalid-params", -32602]);

    const decode = new BincodeDecodeError("truncated", 7);
    expect(decode).toBeInstanceOf(ProtocolError);
    expect(isSuiteError(decode)).toBe(true);
    expect([decode.package, decode.kind, decode.details]).toEqual([
      "protocol",
      "decode-failed",
      { offset: 7 },
    ]);
    expect(decode.name).toBe("BincodeDecodeError");

    let journal: unknown;
    try {
      unpackJournal(new Uint8Array(3));
    } catch (error) {
      journal = error;
    }
    expect(journal).toBeInstanceOf(JournalLayoutError);
    expect(journal).toBeInstanceOf(JournalError);
    expect(journal).toBeInstanceOf(SuiteError);
    expect([(journal as JournalError).package, (journal as JournalError).kind]).toEqual([
      "journal",
      "layout-violated",
    ]);
  });

  it("walk their causes through generated and hand-written errors alike", () => {
    const socket = new Error("socket closed");
    const frame = new FrameError("frame cut short", { cause: socket });
    const rpc = new RpcError(-32001, "enclave call failed", { kind: "enclave-failed", cause: frame });
    expect(rpc.walk()).toBe(socket);
    expect(rpc.walk((e) => e instanceof ProtocolError)).toBe(frame);
    expect(frame.walk((e) => e instanceof RpcError)).toBeUndefined();
  });
});
