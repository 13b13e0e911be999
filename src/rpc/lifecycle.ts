/**
 * The server's lifecycle: listening, then a graceful close that stops accepting connections, lets work in
 * flight finish for up to `drainMs`, cuts off what is left and closes every connection.
 */
import type { us_listen_socket } from "@trufflesuite/uws-js-unofficial";
import type { ServerCore } from "./server-core.js";
import { ListenError, ServerStateError } from "./server-errors.js";
import { boundPort, closeListenSocket, listenExclusive } from "./uws-app.js";

export interface CloseOptions {
  /** How long in-flight requests may take before they are cut off; default 10 000 ms. */
  readonly drainMs?: number;
}

const DEFAULT_DRAIN_MS = 10_000;

export type ServerState = "new" | "listening" | "draining" | "closed";

export class ServerLifecycle {
  private current: ServerState = "new";
  private listenSocket: us_listen_socket | undefined;
  private bound: number | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly core: ServerCore,
    private readonly host: string,
    private readonly requestedPort: number,
    /** Closes the websocket connections (1001) once the drain is over. */
    private readonly closeSockets: () => void,
  ) {}

  get state(): ServerState {
    return this.current;
  }

  get port(): number | undefined {
    return this.bound;
  }

  get isDraining(): boolean {
    return this.current === "draining" || this.current === "closed";
  }

  async listen(): Promise<number> {
    if (this.current !== "new") throw new ServerStateError(`cannot listen: the server is ${this.current}`);
    const listenSocket = await listenExclusive(this.core.app, this.host, this.requestedPort);
    if (listenSocket === false) throw new ListenError(this.host, this.requestedPort);
    this.listenSocket = listenSocket;
    this.bound = boundPort(listenSocket);
    this.current = "listening";
    this.core.logger.info({ host: this.host, port: this.bound }, "JSON-RPC server listening");
    return this.bound;
  }

  close(options: CloseOptions = {}): Promise<void> {
    this.closing ??= this.drainAndClose(options.drainMs ?? DEFAULT_DRAIN_MS);
    return this.closing;
  }

  private async drainAndClose(drainMs: number): Promise<void> {
    const { inFlight, logger } = this.core;
    const wasListening = this.current === "listening";
    this.current = "draining";
    if (this.listenSocket !== undefined) {
      closeListenSocket(this.listenSocket);
      this.listenSocket = undefined;
    }
    if (wasListening) logger.info({ inFlight: inFlight.size, drainMs }, "draining JSON-RPC server");
    await inFlight.drain(drainMs);
    const cutOff = inFlight.cutOffAll();
    this.closeSockets();
    this.core.app.close();
    this.current = "closed";
    if (wasListening) logger.info({ cutOff }, "JSON-RPC server closed");
  }
}
