/**
 * Model and gateway routes: `/<route>/<rest>` is forwarded to the route's one upstream origin. The caller is
 * identified by its broker token wherever its CLI puts an API key; every caller credential is dropped and the
 * route's real one set. The response streams back chunk by chunk (SSE included): nothing is buffered, and
 * token usage is read from the chunks as they pass.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseTraceparent } from '../kit/trace-context.ts';
import type { Span } from '../kit/tracing.ts';
import { acquire, type BrokerContext, finish, type Outcome, release } from './context.ts';
import { BrokerError } from './errors.ts';
import { forwardedHeaders, presentedTokens, responseHeaders, splitKeyParam } from './headers.ts';
import { checkFraming, checkHost, splitTarget } from './request-checks.ts';
import { UpstreamCall, type UpstreamResponse } from './upstream-call.ts';
import { UsageParser } from './usage.ts';

/** Sends a coded JSON error; refusals of malformed requests also close the connection. */
export function sendError(response: ServerResponse, error: BrokerError): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = error.body();
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
  };
  if (
    error.code === 'TOOLYARD_BROKER_BAD_REQUEST' ||
    error.code === 'TOOLYARD_BROKER_UPGRADE_REFUSED' ||
    error.code === 'TOOLYARD_BROKER_HOST_HEADER'
  )
    headers.connection = 'close';
  if (error.status === 401) headers['www-authenticate'] = 'Bearer realm="toolyard-broker"';
  response.writeHead(error.status, headers);
  response.end(body);
}

export function handleRoute(ctx: BrokerContext, request: IncomingMessage, response: ServerResponse): void {
  const started = ctx.now();
  let bytesIn = 0;
  request.on('data', (chunk: Buffer) => {
    bytesIn += chunk.length;
  });
  const outcome: Outcome = {
    caller: null,
    kind: 'route',
    route: null,
    target: null,
    rule: null,
    method: request.method ?? 'GET',
    path: null,
    address: null,
    decision: 'error',
    code: null,
    reason: null,
    status: 0,
    bytesIn: 0,
    bytesOut: 0,
    usage: null,
  };
  // The request's span, from the moment the caller and its route are known (never for a telemetry route).
  let span: Span | undefined;
  const refuse = (error: BrokerError) => {
    sendError(response, error);
    request.resume();
    finish(
      ctx,
      started,
      {
        ...outcome,
        decision: error.status === 401 || error.status === 403 || error.status === 429 ? 'denied' : 'error',
        code: error.code,
        reason: error.message,
        status: error.status,
        bytesIn,
      },
      span,
    );
  };

  let route: string;
  let rest: string[];
  let query: string;
  let keys: string[];
  try {
    checkFraming(request);
    checkHost(request, ctx.hostnames);
    // An upstream that answers TRACE echoes the request it received, the route's credential included.
    if (request.method === 'TRACE')
      throw new BrokerError(
        'TOOLYARD_BROKER_BAD_REQUEST',
        'TRACE is not proxied (it would echo the credential)',
        405,
      );
    if (request.headers.upgrade !== undefined || request.headers['http2-settings'] !== undefined)
      throw new BrokerError('TOOLYARD_BROKER_UPGRADE_REFUSED', 'Upgrade and h2c requests are not proxied');
    const target = splitTarget(request.url);
    [route = '', ...rest] = target.segments;
    ({ keys, rest: query } = splitKeyParam(target.query));
  } catch (error) {
    refuse(error as BrokerError);
    return;
  }

  const tokens = presentedTokens(request.headers, keys);
  const identities = new Set(tokens.map((t) => ctx.tokens.identify(t)).filter((id) => id !== undefined));
  if (identities.size !== 1) {
    refuse(
      new BrokerError(
        'TOOLYARD_BROKER_UNAUTHENTICATED',
        identities.size > 1
          ? 'the request presents tokens of more than one caller'
          : tokens.length === 0
            ? 'no broker token: send it where the CLI sends its API key (Authorization: Bearer, x-api-key, x-goog-api-key, api-key or ?key=)'
            : "the token presented is not a caller's broker token",
      ),
    );
    return;
  }
  const caller = [...identities][0]!;
  outcome.caller = caller;
  const routeConfig = ctx.routes.get(route);
  if (!routeConfig) {
    refuse(
      new BrokerError(
        'TOOLYARD_BROKER_ROUTE_UNKNOWN',
        `no route ${JSON.stringify(route)}; this broker has: ${[...ctx.routes.keys()].join(', ') || '(none)'}`,
      ),
    );
    return;
  }
  outcome.route = route;
  // The caller's context (its CLI propagates one on model requests) continues through the broker upstream.
  const parent = parseTraceparent(request.headers.traceparent, request.headers.tracestate);
  if (routeConfig.kind !== 'telemetry')
    span = ctx.tracer
      .start(`${request.method ?? 'GET'} ${route}`, {
        kind: 'server',
        parent,
        class: routeConfig.kind === 'model' ? 'model' : 'external-authority',
      })
      .set('gen_ai.operation.name', routeConfig.kind === 'model' ? 'chat' : undefined);
  const callerConfig = ctx.callers.get(caller)!;
  if (!callerConfig.routes.includes(route)) {
    refuse(
      new BrokerError(
        'TOOLYARD_BROKER_ROUTE_NOT_ALLOWED',
        `caller "${caller}" may not use route "${route}"; its routes: ${callerConfig.routes.join(', ') || '(none)'}`,
      ),
    );
    return;
  }
  if (!acquire(ctx, caller, 'route')) {
    refuse(
      new BrokerError(
        'TOOLYARD_BROKER_TOO_MANY_CONNECTIONS',
        `caller "${caller}" has ${ctx.config.limits.maxConnectionsPerCaller} requests and tunnels open already`,
      ),
    );
    return;
  }

  const upstream = ctx.upstreams.get(route)!;
  // `/<route>` is the upstream's base path itself (`https://gw.example/mcp`), `/<route>/x` is under it.
  const path = rest.length === 0 ? upstream.basePath || '/' : `${upstream.basePath}/${rest.join('/')}`;
  outcome.target = upstream.origin;
  outcome.rule = `route:${route}`;
  outcome.path = path;
  if (upstream.deniedLiteral !== undefined) {
    release(ctx, caller, 'route');
    refuse(new BrokerError('TOOLYARD_BROKER_ADDRESS_DENIED', upstream.deniedLiteral));
    return;
  }
  outcome.decision = 'allowed';

  const headers = forwardedHeaders(request.headers);
  if (span && (span.recording || parent)) {
    headers.traceparent = span.traceparent();
    if (span.context.tracestate) headers.tracestate = span.context.tracestate;
  }
  const credential = ctx.credentials.get(route);
  if (routeConfig.credential && credential !== undefined) headers[routeConfig.credential.header] = credential;

  // HTTP/2 when the upstream offers it, else HTTP/1.1; new connections go to an address the broker vetted
  // (upstream.ts) and TLS verifies the upstream's name (upstream-call.ts).
  const upstreamRequest = new UpstreamCall(ctx, route, upstream, {
    method: request.method ?? 'GET',
    path: query ? `${path}?${query}` : path,
    headers,
  });
  let done = false;
  let bytesOut = 0;
  let usage: UsageParser | undefined;
  const end = (extra: Partial<Outcome>) => {
    if (done) return;
    done = true;
    release(ctx, caller, 'route');
    clearTimeout(connectTimer);
    const record = { ...outcome, bytesIn, bytesOut, ...extra };
    if (!usage) finish(ctx, started, record, span);
    else
      void usage.finish().then(
        (u) => finish(ctx, started, { ...record, usage: u }, span),
        () => finish(ctx, started, record, span),
      );
  };
  const fail = (error: BrokerError) => {
    upstreamRequest.destroy();
    const sent = response.headersSent;
    sendError(response, error);
    end({
      decision: error.status === 403 ? 'denied' : 'error',
      code: error.code,
      reason: error.message,
      status: sent ? response.statusCode : error.status,
    });
  };

  const connectTimer = setTimeout(
    () =>
      fail(
        new BrokerError(
          'TOOLYARD_BROKER_UPSTREAM_TIMEOUT',
          `route "${route}": no connection to ${upstream.origin} within ${ctx.config.limits.connectTimeoutMs} ms`,
        ),
      ),
    ctx.config.limits.connectTimeoutMs,
  );
  upstreamRequest.on('connected', (address: string | null) => {
    clearTimeout(connectTimer);
    outcome.address = address;
  });
  upstreamRequest.setTimeout(ctx.config.limits.idleTimeoutMs, () =>
    fail(
      new BrokerError(
        'TOOLYARD_BROKER_UPSTREAM_TIMEOUT',
        `route "${route}": no byte from ${upstream.origin} for ${ctx.config.limits.idleTimeoutMs} ms`,
        504,
      ),
    ),
  );
  upstreamRequest.on('error', (error: NodeJS.ErrnoException) => {
    if (done) return;
    // The lookup's refusals (a denied address, a name that does not resolve) say why themselves.
    if (error instanceof BrokerError) return void fail(error);
    fail(
      new BrokerError(
        'TOOLYARD_BROKER_UPSTREAM_FAILED',
        `route "${route}": ${upstream.origin} failed: ${error.code ?? 'error'}${error.code ? '' : ` ${error.message}`}`,
      ),
    );
  });
  upstreamRequest.on('response', (upstreamResponse: UpstreamResponse) => {
    clearTimeout(connectTimer);
    const status = upstreamResponse.statusCode;
    const body = upstreamResponse.body;
    usage = new UsageParser(
      upstreamResponse.headers['content-type'],
      upstreamResponse.headers['content-encoding'] as string | undefined,
    );
    response.writeHead(status, upstreamResponse.statusMessage, responseHeaders(upstreamResponse.headers));
    // The head goes out with the first chunk (one write, one packet) when that chunk is already here, and on
    // its own otherwise: a stream whose first event is slow still gets its status and headers at once.
    const flush = setImmediate(() => {
      if (!response.headersSent && !response.destroyed) response.flushHeaders();
    });
    body.on('data', (chunk: Buffer) => {
      bytesOut += chunk.length;
      usage!.push(chunk);
      if (!response.write(chunk)) body.pause();
    });
    response.on('drain', () => body.resume());
    body.on('end', () => {
      clearImmediate(flush);
      response.end();
      end({ status });
    });
    body.on('error', () => {
      response.destroy();
      end({
        status,
        decision: 'error',
        code: 'TOOLYARD_BROKER_UPSTREAM_FAILED',
        reason: 'the upstream response broke off',
      });
    });
  });
  response.on('close', () => {
    if (!done && !response.writableFinished) {
      upstreamRequest.destroy();
      end({ status: response.statusCode, reason: 'the caller went away before the response ended' });
    }
  });
  request.pipe(upstreamRequest.body);
}
