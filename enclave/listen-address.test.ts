import { describe, expect, it } from "vitest";
import { callEnclave } from "./test/transport.js";
import { formatListenAddress, ListenAddressError, parseListenAddress } from "../src/proof/transport/index.js";
import { EnclaveServer } from "./server.js";

describe("listen addresses (local mode)", () => {
  it("parses Unix socket paths and loopback ports", () => {
    expect(parseListenAddress("/tmp/e.sock")).toEqual({ kind: "unix", path: "/tmp/e.sock" });
    expect(parseListenAddress("unix:rel.sock")).toEqual({ kind: "unix", path: "rel.sock" });
    expect(parseListenAddress("./e.sock")).toEqual({ kind: "unix", path: "./e.sock" });
    expect(parseListenAddress("127.0.0.1:7000")).toEqual({ kind: "tcp", host: "127.0.0.1", port: 7000 });
    expect(formatListenAddress(parseListenAddress("127.0.0.1:0"))).toBe("127.0.0.1:0");
  });

  it("refuses vsock, other interfaces and bad ports", () => {
    for (const bad of [
      "vsock:3:8000",
      "0.0.0.0:8000",
      "localhost:8000",
      "10.0.0.1:1",
      "127.0.0.1:70000",
      "unix:",
      "",
    ]) {
      expect(() => parseListenAddress(bad)).toThrow(ListenAddressError);
    }
  });

  it("serves one request per connection on 127.0.0.1", async () => {
    const server = new EnclaveServer({
      listen: parseListenAddress("127.0.0.1:0"),
      handle: async () => ({ kind: "SignerPublicKey", public_key: new Uint8Array([4, 1, 2]) }),
    });
    await server.start();
    try {
      const address = server.address;
      expect(address.kind === "tcp" && address.port > 0).toBe(true);
      for (let i = 0; i < 3; i++) {
        expect(await callEnclave(address, { kind: "SignerPublicKey" })).toEqual({
          kind: "SignerPublicKey",
          public_key: new Uint8Array([4, 1, 2]),
        });
      }
    } finally {
      await server.close();
    }
  });
});
