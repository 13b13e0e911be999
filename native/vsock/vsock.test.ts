/**
 * The machines these tests run on have a vsock device that is not ours: no AF_VSOCK socket is ever
 * created here. OP_ENCLAVE_FORBID_VSOCK makes the addon refuse AF_VSOCK before socket(2) as a second
 * guard; the tests only pass invalid addresses, which must be refused by validation first. The
 * descriptor-wrapping path is exercised with AF_UNIX sockets created by the same addon helpers.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createConnection, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { vsockBinding } from "./binding.js";
import { checkU32, connectVsock, listenVsock, VsockArgumentError } from "./index.js";
import type { StreamListener } from "./stream-handle.js";
import { connectUnixThroughAddon, listenUnixThroughAddon } from "./testing.js";

// Read by the addon at call time (imports above only load it).
process.env.OP_ENCLAVE_FORBID_VSOCK = "1";

const BAD_U32: unknown[] = [-1, 2 ** 32, 1.5, Number.NaN, Infinity, "8000", null, undefined, 10n];

describe("vsock argument validation (before any system call)", () => {
  it("checkU32 accepts exactly the integers in [0, 2^32)", () => {
    expect(checkU32(0, "port")).toBe(0);
    expect(checkU32(0xffff_ffff, "cid")).toBe(0xffff_ffff);
    for (const bad of BAD_U32) expect(() => checkU32(bad, "port"), String(bad)).toThrow(VsockArgumentError);
  });

  it("listenVsock and connectVsock refuse a bad port or context id in TypeScript", async () => {
    for (const bad of BAD_U32) {
      expect(() => listenVsock(bad as number), `port ${String(bad)}`).toThrow(VsockArgumentError);
      // (undefined is not a bad context id for listenVsock: it means the default, VMADDR_CID_ANY.)
      if (bad !== undefined) {
        expect(() => listenVsock(8000, bad as number), `cid ${String(bad)}`).toThrow(
          /cid must be an integer/,
        );
      }
      await expect(connectVsock(bad as number, 8000), `cid ${String(bad)}`).rejects.toThrow(
        VsockArgumentError,
      );
      await expect(connectVsock(16, bad as number), `port ${String(bad)}`).rejects.toThrow(/port must be/);
    }
  });

  it("the addon itself refuses a bad port or context id", () => {
    const raw = vsockBinding() as unknown as Record<
      "listen" | "connect",
      (cid?: unknown, port?: unknown) => unknown
    >;
    for (const call of [raw.listen, raw.connect]) {
      for (const bad of BAD_U32) {
        expect(() => call(bad, 8000), `cid ${String(bad)}`).toThrow(RangeError);
        expect(() => call(16, bad), `port ${String(bad)}`).toThrow(/port must be/);
      }
      expect(() => call(16), "missing port").toThrow(/port must be a number/);
    }
    expect(vsockBinding().VMADDR_CID_ANY).toBe(0xffff_ffff);
  });
});

/** Everything the socket reads until the peer ends its side (the socket itself stays open). */
function collect(socket: Socket): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.once("end", () => resolve(Buffer.concat(chunks)));
    socket.once("error", reject);
  });
}

function nextConnection(listener: StreamListener): Promise<Socket> {
  return new Promise((resolve, reject) => {
    listener.once("connection", resolve);
    listener.once("error", reject);
  });
}

describe("descriptor wrapping (AF_UNIX through the addon, same path as AF_VSOCK)", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "native-vsock-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("accepts, reads, writes, half-closes and closes both ways", async () => {
    const path = join(dir, "echo.sock");
    const listener = listenUnixThroughAddon(path, { allowHalfOpen: true });
    const accepted = nextConnection(listener);
    const client = await connectUnixThroughAddon(path, { allowHalfOpen: true });
    const server = await accepted;

    // A request larger than any socket buffer, so writes go through libuv's partial-write path.
    const request = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < request.length; i++) request[i] = (i * 31 + 7) & 0xff;
    const received = collect(server);
    client.end(request);
    expect((await received).equals(request)).toBe(true);

    // The server's side is still writable after the client's end (half-open), as the enclave needs.
    const reply = collect(client);
    server.end(Buffer.from("response after the request ended"));
    expect((await reply).toString()).toBe("response after the request ended");

    await listener.close();
    expect(listener.listening).toBe(false);
    await expect(connectUnixThroughAddon(path)).rejects.toMatchObject({ syscall: "connect" });
  });

  it("serves several connections and interoperates with Node's own Unix sockets", async () => {
    const path = join(dir, "interop.sock");
    const listener = listenUnixThroughAddon(path);
    listener.on("connection", (socket) => {
      socket.once("data", (data: Buffer) => socket.end(Buffer.concat([Buffer.from("echo:"), data])));
    });
    const viaNode = await new Promise<Buffer>((resolve, reject) => {
      const socket = createConnection(path, () => socket.write("node"));
      collect(socket).then(resolve, reject);
    });
    expect(viaNode.toString()).toBe("echo:node");
    const viaAddon = await Promise.all(
      [1, 2, 3].map(async (n) => {
        const socket = await connectUnixThroughAddon(path);
        socket.write(`addon ${n}`);
        return (await collect(socket)).toString();
      }),
    );
    expect(viaAddon).toEqual(["echo:addon 1", "echo:addon 2", "echo:addon 3"]);
    await listener.close();

    // The addon's client against a plain net.Server.
    const nodePath = join(dir, "node-server.sock");
    const nodeServer = createServer((socket) => socket.end("from net.Server"));
    await new Promise<void>((resolve) => nodeServer.listen(nodePath, resolve));
    const client = await connectUnixThroughAddon(nodePath);
    expect((await collect(client)).toString()).toBe("from net.Server");
    await new Promise<void>((resolve) => nodeServer.close(() => resolve()));
  });

  it("reports a bind failure with its errno and leaves nothing open", () => {
    let caught: unknown;
    try {
      listenUnixThroughAddon(join(dir, "missing-directory", "x.sock"));
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ syscall: "bind", errno: 2 });
  });
});
