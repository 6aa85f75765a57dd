/**
 * One proxied request to a route's upstream: over HTTP/2 when the upstream offers it in ALPN (every model
 * provider does), many streams sharing one TLS connection; over HTTP/1.1 otherwise (a keep-alive pool of one
 * connection per request in flight). An upstream TLS connection costs about 80 KB in the broker whatever it
 * carries, an HTTP/2 stream about 20 KB (docs/benchmarks.md, broker): 1,000 open model streams are a few
 * connections instead of 1,000.
 *
 * The protocol is learnt once per route, by the first connection's ALPN answer, and kept. Plain-HTTP routes
 * (`insecureHttp`) always use HTTP/1.1. Either way a new connection goes to an address the route's lookup
 * vetted (upstream.ts), and TLS verifies the upstream's name.
 */
import { EventEmitter } from 'node:events';
import { type Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import {
  type ClientHttp2Session,
  type ClientHttp2Stream,
  constants as h2,
  connect as http2Connect,
} from 'node:http2';
import { type Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { type SecureContext, connect as tlsConnect } from 'node:tls';
import type { RouteUpstream } from './upstream.ts';

/** What an upstream call needs of the broker's context (`BrokerContext` has it): its sessions and agents. */
export interface UpstreamCallContext {
  readonly sessions: UpstreamSessions;
  readonly httpsAgent: HttpsAgent;
  readonly httpAgent: HttpAgent;
}

export interface UpstreamResponse {
  readonly statusCode: number;
  readonly statusMessage: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly body: Readable;
}

export interface UpstreamRequestOptions {
  readonly method: string;
  /** Path and query. */
  readonly path: string;
  /** Request headers without `host` (the upstream's host is set here). */
  readonly headers: Record<string, string | string[]>;
}

type Upstream = RouteUpstream & { readonly lookup: LookupFunction };

/** Streams per HTTP/2 connection at most (fewer when the upstream's SETTINGS say so). */
const MAX_STREAMS_PER_SESSION = 100;
/** An HTTP/2 connection with no stream for this long is closed (as the HTTP/1.1 pool's idle timeout). */
const SESSION_IDLE_MS = 15_000;

interface SessionEntry {
  readonly ready: Promise<ClientHttp2Session | 'h1'>;
  session: ClientHttp2Session | undefined;
  active: number;
  closed: boolean;
  idle: NodeJS.Timeout | undefined;
}

interface OriginState {
  protocol: 'unknown' | 'h1' | 'h2';
  readonly sessions: Set<SessionEntry>;
}

/** HTTP/2 connections per route, and what each route's upstream speaks. One per broker. */
export class UpstreamSessions {
  private readonly origins = new Map<string, OriginState>();
  private readonly secureContext: SecureContext;
  private readonly connectTimeoutMs: number;

  constructor(secureContext: SecureContext, connectTimeoutMs: number) {
    this.secureContext = secureContext;
    this.connectTimeoutMs = connectTimeoutMs;
  }

  /** 'h1' when the route's upstream speaks HTTP/1.1 only (or is plain HTTP); else a session slot. */
  protocol(route: string, upstream: Upstream): 'h1' | 'h2-or-unknown' {
    if (!upstream.tls) return 'h1';
    return this.origins.get(route)?.protocol === 'h1' ? 'h1' : 'h2-or-unknown';
  }

  /** Reserves a stream on a session with room (opening one when none has), or learns the route is HTTP/1.1. */
  acquire(route: string, upstream: Upstream): { entry: SessionEntry; release(): void } {
    let state = this.origins.get(route);
    if (!state) {
      state = { protocol: 'unknown', sessions: new Set() };
      this.origins.set(route, state);
    }
    let entry: SessionEntry | undefined;
    for (const candidate of state.sessions) {
      const max = Math.min(
        MAX_STREAMS_PER_SESSION,
        candidate.session?.remoteSettings.maxConcurrentStreams ?? MAX_STREAMS_PER_SESSION,
      );
      if (!candidate.closed && candidate.active < max) {
        entry = candidate;
        break;
      }
    }
    entry ??= this.open(state, upstream);
    entry.active += 1;
    if (entry.idle) clearTimeout(entry.idle);
    const held = entry;
    let released = false;
    return {
      entry,
      release: () => {
        if (released) return;
        released = true;
        held.active -= 1;
        if (held.active === 0 && held.session && !held.closed)
          held.idle = setTimeout(() => held.session?.close(), SESSION_IDLE_MS);
      },
    };
  }

  private open(state: OriginState, upstream: Upstream): SessionEntry {
    const entry: SessionEntry = {
      session: undefined,
      active: 0,
      closed: false,
      idle: undefined,
      ready: new Promise((resolve, reject) => {
        const socket = tlsConnect({
          host: upstream.hostname,
          port: upstream.port,
          ...(upstream.servername ? { servername: upstream.servername } : {}),
          secureContext: this.secureContext,
          ALPNProtocols: ['h2', 'http/1.1'],
          lookup: upstream.lookup,
        });
        socket.setNoDelay(true);
        // A handshake that never ends must not hold the requests queued on it: they fail, and the next
        // request opens a new connection.
        socket.setTimeout(this.connectTimeoutMs, () =>
          socket.destroy(Object.assign(new Error('TLS handshake timed out'), { code: 'ETIMEDOUT' })),
        );
        socket.once('error', reject);
        socket.once('secureConnect', () => {
          socket.off('error', reject);
          socket.setTimeout(0);
          if (socket.alpnProtocol !== 'h2') {
            // One handshake spent learning this; every later request uses the HTTP/1.1 pool.
            state.protocol = 'h1';
            socket.destroy();
            drop();
            resolve('h1');
            return;
          }
          state.protocol = 'h2';
          const session = http2Connect(`https://${upstream.host}`, {
            createConnection: () => socket,
            settings: { enablePush: false },
            // Streams pause on back-pressure; their buffered bytes count against this.
            maxSessionMemory: 64,
          });
          entry.session = session;
          session.on('error', () => drop());
          session.on('goaway', () => drop());
          session.on('close', () => drop());
          resolve(session);
        });
      }),
    };
    const drop = () => {
      entry.closed = true;
      if (entry.idle) clearTimeout(entry.idle);
      state.sessions.delete(entry);
    };
    entry.ready.catch(() => drop());
    state.sessions.add(entry);
    return entry;
  }

  /** Closes every HTTP/2 connection (broker shutdown). */
  destroy(): void {
    for (const state of this.origins.values())
      for (const entry of state.sessions) {
        entry.closed = true;
        if (entry.idle) clearTimeout(entry.idle);
        entry.session?.destroy();
      }
    this.origins.clear();
  }
}

/**
 * A request to the upstream, over whichever protocol it speaks. Events: `connected` (the address connected
 * to), `response` (an UpstreamResponse), `error`. Write the request body to `body`.
 */
export class UpstreamCall extends EventEmitter {
  readonly body: Writable;
  private abort: () => void = () => {};
  private timeout: { ms: number; onTimeout: () => void } | undefined;
  /** The HTTP/1.1 request or HTTP/2 stream, once there is one. */
  private target: { setTimeout(ms: number, onTimeout: () => void): unknown } | undefined;

  constructor(ctx: UpstreamCallContext, route: string, upstream: Upstream, options: UpstreamRequestOptions) {
    super();
    if (ctx.sessions.protocol(route, upstream) === 'h1') {
      this.body = this.http1(ctx, upstream, options);
      return;
    }
    const pass = new PassThrough();
    this.body = pass;
    const { entry, release } = ctx.sessions.acquire(route, upstream);
    let cancelled = false;
    this.abort = () => {
      cancelled = true;
      release();
      pass.destroy();
    };
    entry.ready.then(
      (session) => {
        if (cancelled) return;
        if (session === 'h1') {
          release();
          const request = this.http1(ctx, upstream, options);
          pass.pipe(request);
          return;
        }
        this.http2(session, upstream, options, pass, release);
      },
      (error: Error) => {
        release();
        if (!cancelled) this.emit('error', error);
      },
    );
  }

  /** No byte either way for `ms`: `onTimeout` runs. */
  setTimeout(ms: number, onTimeout: () => void): void {
    this.timeout = { ms, onTimeout };
    this.target?.setTimeout(ms, onTimeout);
  }

  destroy(): void {
    this.abort();
  }

  private http1(ctx: UpstreamCallContext, upstream: Upstream, options: UpstreamRequestOptions): Writable {
    const request = (upstream.tls ? httpsRequest : httpRequest)({
      hostname: upstream.hostname,
      port: upstream.port,
      method: options.method,
      path: options.path,
      headers: { ...options.headers, host: upstream.host },
      agent: upstream.tls ? ctx.httpsAgent : ctx.httpAgent,
      lookup: upstream.lookup,
      ...(upstream.tls && upstream.servername ? { servername: upstream.servername } : {}),
    });
    const previous = this.abort;
    this.abort = () => {
      previous();
      request.destroy();
    };
    request.on('socket', (socket) => {
      const connected = () => this.emit('connected', socket.remoteAddress ?? null);
      if ((socket as { connecting?: boolean }).connecting)
        socket.once(upstream.tls ? 'secureConnect' : 'connect', connected);
      else connected();
    });
    this.target = request;
    if (this.timeout) request.setTimeout(this.timeout.ms, this.timeout.onTimeout);
    request.on('error', (error) => this.emit('error', error));
    request.on('response', (response) =>
      this.emit('response', {
        statusCode: response.statusCode ?? 502,
        statusMessage: response.statusMessage,
        headers: response.headers,
        body: response,
      } satisfies UpstreamResponse),
    );
    return request;
  }

  private http2(
    session: ClientHttp2Session,
    upstream: Upstream,
    options: UpstreamRequestOptions,
    pass: PassThrough,
    release: () => void,
  ): void {
    let stream: ClientHttp2Stream;
    try {
      stream = session.request({
        ...options.headers,
        [h2.HTTP2_HEADER_METHOD]: options.method,
        [h2.HTTP2_HEADER_PATH]: options.path,
        [h2.HTTP2_HEADER_AUTHORITY]: upstream.host,
        [h2.HTTP2_HEADER_SCHEME]: 'https',
      });
    } catch (error) {
      release();
      this.emit('error', error);
      return;
    }
    this.abort = () => {
      release();
      pass.destroy();
      if (!stream.closed) stream.close(h2.NGHTTP2_CANCEL);
    };
    this.emit('connected', session.socket?.remoteAddress ?? null);
    this.target = stream;
    if (this.timeout) stream.setTimeout(this.timeout.ms, this.timeout.onTimeout);
    pass.pipe(stream);
    let responded = false;
    stream.on('response', (head) => {
      responded = true;
      const headers: IncomingHttpHeaders = {};
      for (const [name, value] of Object.entries(head))
        if (!name.startsWith(':') && value !== undefined) headers[name] = value as string | string[];
      this.emit('response', {
        statusCode: Number(head[h2.HTTP2_HEADER_STATUS]) || 502,
        statusMessage: undefined,
        headers,
        body: stream,
      } satisfies UpstreamResponse);
    });
    stream.on('error', (error) => {
      if (!responded) this.emit('error', error);
    });
    stream.on('close', () => {
      release();
      // Reset before or during the response: as an HTTP/1.1 connection that broke off.
      if (!responded)
        this.emit('error', Object.assign(new Error('stream reset'), { code: `H2_RST_${stream.rstCode}` }));
      else if (!stream.readableEnded) stream.emit('error', new Error('the upstream stream was reset'));
    });
  }
}
