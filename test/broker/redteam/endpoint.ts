/**
 * A fake destination that records everything that reaches it: every TCP connection, the TLS server name a
 * client asked for, every HTTP request (raw headers, raw URL, body size) and every upgrade. One endpoint
 * serves TLS (first byte 0x16, with a leaf of the test CA) and plain HTTP on the same port, so it stands for
 * a model API, a gateway, a package registry or an attacker's server alike.
 *
 * Its HTTP parser is deliberately lenient (`insecureHTTPParser`), like the many upstreams that are: a
 * smuggled request the broker lets through would be parsed here, and recorded.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { posix } from 'node:path';
import { Duplex } from 'node:stream';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';

export interface RecordedRequest {
  readonly method: string;
  /** The request target exactly as received. */
  readonly url: string;
  /** Where a lenient server would route it: escapes decoded, backslashes as slashes, dot segments resolved. */
  readonly normalisedPath: string;
  readonly rawHeaders: readonly string[];
  readonly bodyBytes: number;
  readonly tls: boolean;
  readonly servername: string | undefined;
}

export interface EndpointRecord {
  connections: number;
  servernames: string[];
  requests: RecordedRequest[];
  upgrades: string[];
  /** The first bytes of each plain (non-TLS, non-HTTP-parsed) connection, kept for leak checks. */
  rawBytes: string[];
}

export interface Endpoint {
  readonly name: string;
  readonly address: string;
  readonly port: number;
  readonly record: EndpointRecord;
  reset(): void;
  close(): Promise<void>;
}

function emptyRecord(): EndpointRecord {
  return { connections: 0, servernames: [], requests: [], upgrades: [], rawBytes: [] };
}

/**
 * What a lenient server routes a target to — escapes decoded (repeatedly), backslashes as slashes, path
 * parameters dropped, dot segments resolved: where a traversal payload aims.
 */
export function normalise(url: string): string {
  const path = url.split('?')[0] ?? '';
  let decoded = path;
  // Double-encoding bites servers that decode twice; decode until stable (bounded).
  for (let i = 0; i < 3; i++) {
    try {
      const next = decodeURIComponent(decoded);
      if (next === decoded) break;
      decoded = next;
    } catch {
      break;
    }
  }
  // Tomcat-style path parameters: `..;x` is `..` to the router.
  return posix.normalize(decoded.replaceAll('\\', '/').replace(/;[^/]*/g, ''));
}

/**
 * The socket as a plain JS stream that starts with `first`: TLS over a net.Socket reads its native handle
 * directly and would miss the byte already read to tell TLS from plain HTTP.
 */
function replaying(socket: Socket, first: Buffer): Duplex {
  const duplex = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk: Buffer, _encoding, callback) {
      socket.write(chunk, callback);
    },
    final(callback) {
      socket.end();
      callback();
    },
    destroy(error, callback) {
      socket.destroy();
      callback(error);
    },
  });
  duplex.push(first);
  socket.on('data', (chunk: Buffer) => {
    if (!duplex.push(chunk)) socket.pause();
  });
  socket.on('end', () => duplex.push(null));
  socket.on('close', () => duplex.destroy());
  return duplex;
}

function rawHeaderLines(rawHeaders: readonly string[]): string {
  let text = '';
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) text += `${rawHeaders[i]}: ${rawHeaders[i + 1]}\r\n`;
  return text;
}

/**
 * Handles the fake API: TRACE echoes the request head, `…/stream` answers a short SSE stream, `…/hold` one
 * that lasts a second, anything else a small JSON body.
 */
function respond(req: IncomingMessage, res: ServerResponse, record: EndpointRecord, tls: boolean): void {
  let bodyBytes = 0;
  req.on('data', (chunk: Buffer) => {
    bodyBytes += chunk.length;
  });
  req.on('end', () => {
    const socket = req.socket as Partial<TLSSocket>;
    const servername = typeof socket.servername === 'string' ? socket.servername : undefined;
    record.requests.push({
      method: req.method ?? '',
      url: req.url ?? '',
      normalisedPath: normalise(req.url ?? ''),
      rawHeaders: [...req.rawHeaders],
      bodyBytes,
      tls,
      servername,
    });
    if (req.method === 'TRACE') {
      // What a server with TRACE enabled does: echo the request head back (Apache's TraceEnable on).
      const echo = `${req.method} ${req.url} HTTP/${req.httpVersion}\r\n${rawHeaderLines(req.rawHeaders)}\r\n`;
      res.writeHead(200, { 'content-type': 'message/http', 'content-length': Buffer.byteLength(echo) });
      res.end(echo);
      return;
    }
    if ((req.url ?? '').split('?')[0]?.endsWith('/hold')) {
      // A long completion: the response starts at once and ends a second later.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: ping\ndata: {}\n\n');
      setTimeout(() => res.end('event: message_stop\ndata: {}\n\n'), 1000);
      return;
    }
    if ((req.url ?? '').split('?')[0]?.endsWith('/stream')) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      let i = 0;
      const timer = setInterval(() => {
        i += 1;
        res.write(`event: delta\ndata: {"i":${i}}\n\n`);
        if (i === 3) {
          clearInterval(timer);
          res.end('event: message_stop\ndata: {"usage":{"input_tokens":3,"output_tokens":5}}\n\n');
        }
      }, 5);
      return;
    }
    const payload = JSON.stringify({ ok: true, bodyBytes });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
    res.end(payload);
  });
}

export async function startEndpoint(options: {
  name: string;
  address: string;
  port: number;
  cert: string;
  key: string;
}): Promise<Endpoint> {
  const record = emptyRecord();
  const state = { record };
  const sockets = new Set<Socket>();

  const httpFor = (tls: boolean) => {
    const server = createHttpServer({ insecureHTTPParser: true }, (req, res) =>
      respond(req, res, state.record, tls),
    );
    server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
      state.record.upgrades.push(`${req.headers.upgrade ?? ''} ${req.url ?? ''}`);
      socket.end('HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n');
    });
    server.on('clientError', (_err, socket) => socket.destroy());
    return server;
  };
  const plainHttp = httpFor(false);
  const tlsHttp = httpFor(true);
  const tlsServer = createTlsServer({
    cert: options.cert,
    key: options.key,
    SNICallback: (servername, cb) => {
      state.record.servernames.push(servername);
      cb(null, undefined);
    },
  });
  tlsServer.on('secureConnection', (socket) => tlsHttp.emit('connection', socket));
  tlsServer.on('tlsClientError', () => {});

  const server: Server = createNetServer((socket) => {
    state.record.connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.once('data', (first: Buffer) => {
      if (first[0] === 0x16) {
        tlsServer.emit('connection', replaying(socket, first));
        return;
      }
      socket.pause();
      socket.unshift(first);
      state.record.rawBytes.push(first.subarray(0, 4096).toString('latin1'));
      plainHttp.emit('connection', socket);
      socket.resume();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.address, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('endpoint: no TCP address');
  return {
    name: options.name,
    address: options.address,
    port: address.port,
    get record() {
      return state.record;
    },
    reset() {
      state.record = emptyRecord();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
