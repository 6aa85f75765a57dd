/**
 * `buildBroker(config, options)` builds the broker's two node:http servers — the proxy (routes and CONNECT)
 * and the health listener (/healthz, /readyz, /metrics) — without listening; only main.ts listens.
 *
 * Starting a broker in-process (tests, benches):
 *
 *   const broker = buildBroker(config, {
 *     log: memorySink(),                                   // or any LogSink; default: stdout
 *     resolve: async (name) => [{ address: '127.0.0.2', family: 4 }],  // default: systemResolver()
 *   });
 *   broker.proxy.listen(0, '127.0.0.1');   // routes: http://127.0.0.1:<port>/<route>/…; CONNECT: same port
 *   broker.health.listen(0, '127.0.0.1');  // /healthz, /readyz, /metrics
 *   …
 *   await broker.close();
 *
 * `config` is the output of `parseBrokerConfig` (defaults applied). Caller tokens and route keys are read from
 * the files the config names (`callers[].tokenFile`, `routes[].credential.file`), or taken from
 * `options.secrets`. Tests that allow CONNECT to 127.0.0.x must pass a `deniedCidrs` without 127.0.0.0/8.
 */
import { readFileSync } from 'node:fs';
import {
  createServer,
  Agent as HttpAgent,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Socket } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import { type LogSink, stdoutSink } from '../kit/audit-sink.ts';
import { allowedHostnames } from '../kit/host.ts';
import { EXPOSITION_CONTENT_TYPE } from '../kit/metrics.ts';
import { startTelemetry, type Telemetry } from '../kit/telemetry.ts';
import { guardSilentConnections, HTTP_TIMEOUTS, serverOptions } from '../kit/timeouts.ts';
import { TokenSet } from '../kit/token-file.ts';
import { Tracer } from '../kit/tracing.ts';
import { parseCidrs } from './addresses.ts';
import type { BrokerConfig } from './config.ts';
import { handleConnect } from './connect.ts';
import { type BrokerContext, finish, type Resolver } from './context.ts';
import { BrokerError } from './errors.ts';
import { BrokerMetrics } from './metrics.ts';
import { systemResolver } from './resolver.ts';
import { handleRoute, sendError } from './routes.ts';
import { applySecrets, type BrokerSecrets, readSecrets } from './secrets.ts';
import { telemetryTransport } from './telemetry-export.ts';
import { routeUpstream, upstreamLookup } from './upstream.ts';
import { UpstreamSessions } from './upstream-call.ts';

export type { BrokerSecrets } from './secrets.ts';

export interface BuildBrokerOptions {
  readonly log?: LogSink;
  readonly resolve?: Resolver;
  /** Secrets to use instead of reading the files the config names. */
  readonly secrets?: BrokerSecrets;
  /** Milliseconds clock, for durations. Default: performance.now. */
  readonly now?: () => number;
  /** The broker's version, in its spans' resource. */
  readonly version?: string;
}

export interface Broker {
  readonly proxy: Server;
  readonly health: Server;
  readonly metrics: BrokerMetrics;
  /** Its spans' tracer and exporter (`telemetry`); `close` sends what is queued. */
  readonly telemetry: Telemetry;
  /** Reads the caller tokens and route keys again (SIGHUP); throws, changing nothing, when a file is bad. */
  reloadSecrets(): void;
  /**
   * Stops accepting, lets open requests and tunnels finish for up to `graceMs` (default 0), then ends every
   * connection and closes the upstream connection pools.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * The upstream connection pools (one per protocol, shared by every route). Connections are kept alive and
 * reused most-recently-used first, so a burst's extra connections go idle and are closed after
 * `timeout` instead of being kept warm in rotation; at most `maxFreeSockets` idle ones per upstream are kept
 * (an idle TLS connection holds about 75 KB). Requests in flight are never capped here: their count is bounded
 * by limits.maxConnections and limits.maxConnectionsPerCaller. TLS sessions are cached per upstream for
 * resumption (`maxCachedSessions`).
 */
const UPSTREAM_POOL = {
  keepAlive: true,
  scheduling: 'lifo',
  maxFreeSockets: 64,
  timeout: 15_000,
  maxCachedSessions: 32,
} as const;

function json(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
  });
  response.end(text);
}

export function buildBroker(config: BrokerConfig, options: BuildBrokerOptions = {}): Broker {
  const ca = [...rootCertificates];
  if (config.extraCaFile) ca.push(readFileSync(config.extraCaFile, 'utf8'));
  const deniedCidrs = parseCidrs(config.deniedCidrs);
  // One TLS context for every upstream connection: given `ca` instead, Node builds a context (the whole
  // root store) per connection, about 0.9 MB each — 1,000 open streams took 1 GB.
  const secureContext = createSecureContext({ ca, minVersion: 'TLSv1.2' });
  const resolve = options.resolve ?? systemResolver();
  const ctx: BrokerContext = {
    config,
    log: options.log ?? stdoutSink,
    metrics: new BrokerMetrics(
      new Map(config.routes.flatMap((r) => (r.pricing ? [[r.name, r.pricing] as const] : []))),
      config.metricsLabels,
    ),
    resolve,
    deniedCidrs,
    hostnames: allowedHostnames(config.listen.host, config.listen.allowedHosts),
    tokens: new TokenSet(),
    credentials: new Map(),
    routes: new Map(config.routes.map((r) => [r.name, r])),
    upstreams: new Map(
      config.routes.map((r) => {
        const upstream = routeUpstream(r, deniedCidrs);
        return [r.name, { ...upstream, lookup: upstreamLookup(r.name, upstream, resolve, deniedCidrs) }];
      }),
    ),
    callers: new Map(config.callers.map((c) => [c.name, c])),
    httpsAgent: new HttpsAgent({
      ...UPSTREAM_POOL,
      secureContext,
      rejectUnauthorized: true,
    }),
    httpAgent: new HttpAgent(UPSTREAM_POOL),
    sessions: new UpstreamSessions(secureContext, config.limits.connectTimeoutMs),
    open: new Map(),
    tunnels: new Set(),
    now: options.now ?? (() => performance.now()),
    tracer: Tracer.off,
  };
  applySecrets(ctx, options.secrets ?? readSecrets(config));
  // Its own spans leave through its telemetry route: that route's upstream, vetted lookup and credential.
  const telemetry = startTelemetry(config.telemetry, {
    serviceName: 'toolyard-broker',
    version: options.version ?? '0.0.0',
    resource: { 'toolyard.agent': config.agent },
    transport: config.telemetry ? telemetryTransport(ctx, config.telemetry.route) : undefined,
  });
  (ctx as { tracer: Tracer }).tracer = telemetry.tracer;

  const timeouts = {
    ...HTTP_TIMEOUTS,
    headersMs: config.limits.headersTimeoutMs,
    requestMs: Math.max(HTTP_TIMEOUTS.requestMs, config.limits.idleTimeoutMs),
  };
  const proxy = createServer(
    { ...serverOptions(timeouts, config.limits.maxHeaderBytes), noDelay: true },
    (request, response) => handleRoute(ctx, request, response),
  );
  proxy.maxConnections = config.limits.maxConnections;
  proxy.timeout = 0;
  guardSilentConnections(proxy, timeouts.headersMs);
  proxy.on('connect', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.setTimeout(0);
    ctx.tunnels.add(socket);
    socket.once('close', () => ctx.tunnels.delete(socket));
    handleConnect(ctx, request, socket, head);
  });
  proxy.on('upgrade', (request: IncomingMessage, socket: Socket) => {
    const started = ctx.now();
    const error = new BrokerError(
      'TOOLYARD_BROKER_UPGRADE_REFUSED',
      'Upgrade and h2c requests are not proxied',
    );
    const body = error.body();
    socket.on('error', () => socket.destroy());
    socket.end(
      `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
    finish(ctx, started, {
      caller: null,
      kind: 'route',
      route: null,
      target: null,
      rule: null,
      method: request.method ?? 'GET',
      path: null,
      address: null,
      decision: 'error',
      code: error.code,
      reason: error.message,
      status: 400,
      bytesIn: 0,
      bytesOut: 0,
      usage: null,
    });
  });
  proxy.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const started = ctx.now();
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const status = tooLarge ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const reason = tooLarge
      ? `request headers over limits.maxHeaderBytes (${config.limits.maxHeaderBytes})`
      : `unparseable request (${error.code ?? 'error'})`;
    if (socket.writable && !(socket as { _httpMessage?: unknown })._httpMessage) {
      const body = JSON.stringify({ error: { code: 'TOOLYARD_BROKER_BAD_REQUEST', message: reason } });
      socket.end(
        `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    } else socket.destroy();
    if (error.code === 'ECONNRESET') return;
    finish(ctx, started, {
      caller: null,
      kind: 'route',
      route: null,
      target: null,
      rule: null,
      method: '-',
      path: null,
      address: null,
      decision: 'error',
      code: 'TOOLYARD_BROKER_BAD_REQUEST',
      reason,
      status,
      bytesIn: 0,
      bytesOut: 0,
      usage: null,
    });
  });

  let listening = false;
  proxy.on('listening', () => {
    listening = true;
  });
  proxy.on('close', () => {
    listening = false;
  });
  const health = createServer(serverOptions(HTTP_TIMEOUTS), (request, response) => {
    const path = (request.url ?? '/').split('?', 1)[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('allow', 'GET, HEAD');
      json(response, 405, { status: 'method-not-allowed' });
    } else if (path === '/healthz') json(response, 200, { status: 'ok' });
    else if (path === '/readyz')
      json(response, listening ? 200 : 503, {
        status: listening ? 'ready' : 'not-ready',
        callers: config.callers.length,
        routes: config.routes.length,
      });
    else if (path === '/metrics') {
      const text = ctx.metrics.render();
      response.writeHead(200, { 'content-type': EXPOSITION_CONTENT_TYPE });
      response.end(text);
    } else
      sendError(
        response,
        new BrokerError('TOOLYARD_BROKER_NOT_FOUND', `no ${path} here: /healthz, /readyz, /metrics`),
      );
  });
  guardSilentConnections(health, HTTP_TIMEOUTS.headersMs);

  const closeServer = (server: Server) =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  const close = async (graceMs = 0) => {
    const closed = Promise.all([closeServer(proxy), closeServer(health)]);
    const drained = (async () => {
      while (ctx.tunnels.size > 0) await new Promise((r) => setTimeout(r, 50));
      await closed;
    })();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([drained, new Promise((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    for (const socket of ctx.tunnels) socket.destroy();
    proxy.closeAllConnections();
    health.closeAllConnections();
    await closed;
    await Promise.race([telemetry.shutdown(), new Promise((r) => setTimeout(r, 2000).unref())]);
    ctx.httpsAgent.destroy();
    ctx.httpAgent.destroy();
    ctx.sessions.destroy();
  };
  return {
    proxy,
    health,
    metrics: ctx.metrics,
    telemetry,
    reloadSecrets: () => applySecrets(ctx, readSecrets(config)),
    close,
  };
}
