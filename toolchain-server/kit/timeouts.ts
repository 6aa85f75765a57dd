/**
 * HTTP server settings shared by the toolchain server and the broker: timeouts that bound slow or silent
 * clients, and the header limit.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** What each HTTP timeout bounds. None of them limits how long a response may stream. */
export interface HttpTimeouts {
  /** From connecting to the end of the request headers (a client that connects and says nothing included). */
  readonly headersMs: number;
  /** From connecting to the end of the request body: a stalled or trickled body gets 408. */
  readonly requestMs: number;
  /** An idle keep-alive connection between requests is closed after this. */
  readonly keepAliveMs: number;
  /** How often Node checks the header and request timeouts. */
  readonly checkIntervalMs: number;
}

export const HTTP_TIMEOUTS: HttpTimeouts = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
  checkIntervalMs: 1_000,
};

/** Default most bytes of request headers (Node's own default is 16 KiB). */
export const MAX_HEADER_BYTES = 32 * 1024;

/** Options for `http.createServer` that apply the timeouts and the header limit. */
export function serverOptions(
  timeouts: HttpTimeouts,
  maxHeaderSize = MAX_HEADER_BYTES,
): {
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionsCheckingInterval: number;
  maxHeaderSize: number;
  requireHostHeader: boolean;
} {
  return {
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    connectionsCheckingInterval: timeouts.checkIntervalMs,
    maxHeaderSize,
    requireHostHeader: true,
  };
}

/**
 * Node's header and request timeouts only start counting at a connection's first byte; a client that
 * connects and sends nothing would hold its socket forever. Until the first request arrives, the socket
 * itself times out; after that, Node's own timeouts (and keep-alive) take over. (A server with CONNECT
 * clears the timeout in its own 'connect' handler: listening for 'connect' here would make Node hand CONNECT
 * requests to a server that does not serve them.)
 */
export function guardSilentConnections(server: Server, ms: number): void {
  server.on('connection', (socket: Socket) => {
    socket.setTimeout(ms, () => socket.destroy());
  });
  server.on('request', (request: { socket: Socket }) => {
    request.socket.setTimeout(0);
  });
}
