/**
 * The broker's coded errors. Every refusal or failure a client sees is a JSON body
 * `{"error":{"code":"TOOLYARD_BROKER_…","message":"…"}}` (or, for CONNECT, the same body after the status
 * line). Messages name the caller, the route or host and what is allowed instead; they never hold a token or
 * a key. docs/broker.md lists these codes; a test keeps the two in sync.
 */

export const BROKER_ERRORS = {
  TOOLYARD_BROKER_BAD_REQUEST: {
    status: 400,
    meaning:
      'A malformed or ambiguous request: an absolute-URI or asterisk target, encoded or dot-segment traversal in the path, duplicate Host or Content-Length, Content-Length with Transfer-Encoding, a CONNECT target that is not host:port.',
  },
  TOOLYARD_BROKER_HOST_HEADER: {
    status: 403,
    meaning: "The Host header names neither loopback nor one of the broker's listen.allowedHosts.",
  },
  TOOLYARD_BROKER_UPGRADE_REFUSED: {
    status: 400,
    meaning: 'Upgrade (WebSocket, h2c) requests are not proxied.',
  },
  TOOLYARD_BROKER_UNAUTHENTICATED: {
    status: 401,
    meaning:
      "No broker token, or one that is no caller's (407 with Proxy-Authenticate for CONNECT). Route tokens go where the CLI puts its API key; CONNECT uses Proxy-Authorization: Basic caller:token.",
  },
  TOOLYARD_BROKER_ROUTE_UNKNOWN: { status: 404, meaning: 'The first path segment names no route.' },
  TOOLYARD_BROKER_ROUTE_NOT_ALLOWED: {
    status: 403,
    meaning: "The route exists but is not on the caller's list of routes.",
  },
  TOOLYARD_BROKER_HOST_NOT_ALLOWED: {
    status: 403,
    meaning: "CONNECT to a host:port that is on neither the caller's egress list nor its openPorts.",
  },
  TOOLYARD_BROKER_IP_LITERAL: {
    status: 403,
    meaning: 'CONNECT to an IP address (or a numeric host name): egress is by name only.',
  },
  TOOLYARD_BROKER_ADDRESS_DENIED: {
    status: 403,
    meaning:
      'The name resolved to an address in deniedCidrs (loopback, private, link-local, cluster ranges…); refused even when the name is listed.',
  },
  TOOLYARD_BROKER_NAME_MISMATCH: {
    status: 403,
    meaning:
      "A tunnel's first bytes name another site than its CONNECT host (TLS SNI, or an HTTP request's Host or target, whatever its method), or a TLS ClientHello names none: the tunnel is closed before any byte goes upstream (domain fronting).",
  },
  TOOLYARD_BROKER_UNREADABLE_TUNNEL: {
    status: 403,
    meaning:
      'A tunnel to an HTTP port (httpPorts: 80, 443, 8080, 8443 by default) whose first bytes are neither a TLS ClientHello nor an HTTP/1.x request (or are a malformed one): the broker cannot check which site they ask for, so it closes the tunnel before any byte goes upstream.',
  },
  TOOLYARD_BROKER_TOO_MANY_CONNECTIONS: {
    status: 429,
    meaning: 'The caller has limits.maxConnectionsPerCaller connections open already.',
  },
  TOOLYARD_BROKER_RESOLVE_FAILED: { status: 502, meaning: 'The name did not resolve.' },
  TOOLYARD_BROKER_UPSTREAM_FAILED: {
    status: 502,
    meaning: 'The upstream could not be reached or its TLS certificate did not verify.',
  },
  TOOLYARD_BROKER_UPSTREAM_TIMEOUT: {
    status: 504,
    meaning: 'Resolving and connecting took longer than limits.connectTimeoutMs.',
  },
  TOOLYARD_BROKER_NOT_FOUND: { status: 404, meaning: 'An unknown path on the health listener.' },
} as const satisfies Readonly<Record<string, { status: number; meaning: string }>>;

export type BrokerErrorCode = keyof typeof BROKER_ERRORS;

export class BrokerError extends Error {
  readonly code: BrokerErrorCode;
  readonly status: number;
  constructor(code: BrokerErrorCode, message: string, status?: number) {
    super(message);
    this.code = code;
    this.status = status ?? BROKER_ERRORS[code].status;
  }

  body(): string {
    return JSON.stringify({ error: { code: this.code, message: this.message } });
  }
}
