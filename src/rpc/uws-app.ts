/** The uWS runtime surface the server uses beyond the build's typings, and the websocket upgrade. */
import uWS, {
  type HttpRequest,
  type HttpResponse,
  type TemplatedApp,
  type us_listen_socket,
  type us_socket_context_t,
} from "@trufflesuite/uws-js-unofficial";
import { statusLine } from "./uws-guard.js";

/** A uWS app with `close()`, which the build has at runtime but its typings omit. */
export type UwsApp = TemplatedApp & {
  /** Closes the listen socket and every open connection. */
  close(): void;
};

export function createUwsApp(): UwsApp {
  return uWS.App() as unknown as UwsApp;
}

type ListenWithOptions = (
  host: string,
  port: number,
  options: number,
  cb: (listenSocket: us_listen_socket | false) => void,
) => TemplatedApp;
/** uSockets' LIBUS_LISTEN_EXCLUSIVE_PORT: no SO_REUSEPORT, so a port in use is an error, not shared. */
const LISTEN_EXCLUSIVE_PORT = 1;

/** Binds exclusively (a port in use fails instead of being shared); resolves to the socket, or false. */
export function listenExclusive(app: UwsApp, host: string, port: number): Promise<us_listen_socket | false> {
  return new Promise((resolve) => {
    const listen = app.listen.bind(app) as unknown as ListenWithOptions;
    listen(host, port, LISTEN_EXCLUSIVE_PORT, resolve);
  });
}

/** The port a listen socket is bound to. */
export function boundPort(listenSocket: us_listen_socket): number {
  return uWS.us_socket_local_port(listenSocket as unknown as uWS.us_socket);
}

export function closeListenSocket(listenSocket: us_listen_socket): void {
  uWS.us_listen_socket_close(listenSocket);
}

/** Upgrades to a websocket with `data` as its user data, or answers 503 while the server is draining. */
export function upgradeWebSocket<T>(
  res: HttpResponse,
  req: HttpRequest,
  context: us_socket_context_t,
  data: T,
  draining: boolean,
): void {
  if (draining) {
    res.writeStatus(statusLine(503)).end("", true);
    return;
  }
  res.upgrade(
    data,
    req.getHeader("sec-websocket-key"),
    req.getHeader("sec-websocket-protocol"),
    req.getHeader("sec-websocket-extensions"),
    context,
  );
}
