/**
 * The HTTP layer: fastify routes for `/mcp`, `/healthz`, `/readyz` and `/metrics`, Host/Origin checks against
 * DNS rebinding, and the optional bearer token. Everything that decides what runs lives in the Toolchain.
 * `buildServer` returns the app; only main.ts listens.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { type LogSink, stdoutSink } from '../kit/audit-sink.ts';
import { allowedHostnames, isAllowedHost, isAllowedOrigin } from '../kit/host.ts';
import { EXPOSITION_CONTENT_TYPE } from '../kit/metrics.ts';
import { guardSilentConnections, HTTP_TIMEOUTS, type HttpTimeouts } from '../kit/timeouts.ts';
import { readTokenFile, TokenSet } from '../kit/token-file.ts';
import type { ToolchainServerConfig } from './config.ts';
import { createMcpServer } from './mcp.ts';
import { jsonRpcError, registerMcpRoutes } from './mcp-routes.ts';
import { createModernHandler } from './modern.ts';
import { SandboxBinding } from './sandbox-binding.ts';
import { SessionRegistry } from './sessions.ts';
import { Toolchain, type ToolchainOptions } from './toolchain.ts';

export interface BuildServerOptions {
  readonly config: ToolchainServerConfig;
  /** The server's environment (PATH and the passthrough values). Default: process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly log?: LogSink;
  /** An existing toolchain; by default one is built from `config`. */
  readonly toolchain?: Toolchain;
  readonly toolchainOptions?: Partial<Omit<ToolchainOptions, 'config' | 'env' | 'log'>>;
  /** Most open MCP sessions; beyond it new clients get 503 with Retry-After. Default: limits.maxSessions. */
  readonly maxSessions?: number;
  /** Sessions are closed after this long without a request or a running call. Default 1 hour. */
  readonly sessionIdleMs?: number;
  /** HTTP timeouts; see `HTTP_TIMEOUTS` for what each bounds and its default. */
  readonly timeouts?: Partial<HttpTimeouts>;
}

export { HTTP_TIMEOUTS, type HttpTimeouts } from '../kit/timeouts.ts';

declare module 'fastify' {
  interface FastifyInstance {
    toolchain: Toolchain;
    /** Closes every MCP session (used on shutdown). */
    closeSessions: () => Promise<void>;
  }
}

/** Reads the bearer token from the file the config names; undefined when auth is not configured. */
export function loadBearerToken(config: ToolchainServerConfig): string | undefined {
  const file = config.auth?.bearerTokenFile;
  return file === undefined ? undefined : readTokenFile(file, '/auth/bearerTokenFile');
}

export function buildServer(opts: BuildServerOptions): FastifyInstance {
  const config = opts.config;
  const env = opts.env ?? process.env;
  const log = opts.log ?? stdoutSink;
  const toolchain = opts.toolchain ?? new Toolchain({ ...opts.toolchainOptions, config, env, log });
  const token = loadBearerToken(config);
  const tokens = token === undefined ? undefined : new TokenSet().add('bearer', token);
  // A sandbox's server: unbound (every request refused) until the sandbox manager binds it to a session.
  const binding = config.sandbox
    ? new SandboxBinding(readTokenFile(config.sandbox.bootstrapTokenFile, '/sandbox/bootstrapTokenFile'))
    : undefined;
  const hostnames = allowedHostnames(config.listen.host, config.listen.allowedHosts);
  const sessions = new SessionRegistry(
    opts.maxSessions ?? config.limits.maxSessions,
    opts.sessionIdleMs ?? 60 * 60 * 1000,
  );
  toolchain.setSessionsGauge(() => sessions.size);
  const timeouts = { ...HTTP_TIMEOUTS, ...opts.timeouts };

  const app = Fastify({
    logger: false,
    schemaController: NO_ROUTE_SCHEMAS,
    bodyLimit: 4 * 1024 * 1024,
    return503OnClosing: true,
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    http: {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: timeouts.checkIntervalMs,
    },
  });
  guardSilentConnections(app.server, timeouts.headersMs);
  app.decorate('toolchain', toolchain);
  app.decorate('closeSessions', () => sessions.closeAll());
  const modern = createModernHandler(
    () => createMcpServer(toolchain, log),
    (error) => log({ event: 'mcp-rejected', message: error.message }),
  );
  app.addHook('onClose', async () => {
    await sessions.closeAll();
    await modern.close();
  });

  // DNS rebinding: a browser tricked into talking to 127.0.0.1 still sends the attacker's Host/Origin.
  // A Host that does not parse (`localhost:99999999`) is refused here, before any handler builds a URL from it.
  const checkHostAndOrigin = (request: FastifyRequest, reply: FastifyReply): boolean => {
    if (!isAllowedHost(request.headers.host, hostnames)) {
      reply.header('connection', 'close');
      jsonRpcError(reply, 403, -32000, 'Forbidden: Host header is not an allowed local host');
      return false;
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !isAllowedOrigin(origin, hostnames)) {
      reply.header('connection', 'close');
      jsonRpcError(reply, 403, -32000, 'Forbidden: Origin is not an allowed local origin');
      return false;
    }
    return true;
  };

  const presentedToken = (request: FastifyRequest): string => {
    const header = request.headers.authorization ?? '';
    return header.startsWith('Bearer ') ? header.slice(7).trim() : '';
  };
  const checkToken = (request: FastifyRequest, reply: FastifyReply): boolean => {
    if (!tokens && !binding) return true;
    const presented = presentedToken(request);
    if (binding ? binding.authorize(presented) : tokens?.matches('bearer', presented)) return true;
    reply.header('www-authenticate', 'Bearer');
    jsonRpcError(reply, 401, -32001, 'Unauthorized: a valid bearer token is required');
    return false;
  };

  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?', 1)[0];
    if (path === '/healthz' || path === '/readyz') return;
    if (!checkHostAndOrigin(request, reply)) return reply;
    if (binding && path === '/sandbox/bind') return;
    if (!checkToken(request, reply)) return reply;
  });

  if (binding)
    app.post('/sandbox/bind', async (request, reply) => {
      const answer = binding.bind(presentedToken(request), request.body);
      if (answer.status === 200) {
        log({ event: 'sandbox-bound', session: binding.session ?? null });
        try {
          toolchain.prepareSandbox();
        } catch (error) {
          log({ event: 'sandbox-outputs-failed', message: (error as Error).message });
        }
      } else
        log({
          event: 'sandbox-bind-refused',
          status: answer.status,
          code: (answer.body.error as { code?: string })?.code ?? null,
        });
      if (answer.status === 401) reply.header('www-authenticate', 'Bearer');
      return reply.code(answer.status).send(answer.body);
    });

  app.setErrorHandler((error: { statusCode?: number; code?: string; message: string }, _request, reply) => {
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
      return jsonRpcError(
        reply,
        415,
        -32000,
        'Unsupported Media Type: Content-Type must be application/json',
      );
    if (error.statusCode === 413) return jsonRpcError(reply, 413, -32000, 'Payload Too Large');
    if (error.statusCode === 400) return jsonRpcError(reply, 400, -32700, `Parse error: ${error.message}`);
    log({ event: 'internal-error', message: error.message });
    return jsonRpcError(reply, 500, -32603, 'Internal error');
  });

  registerHealthRoutes(app, toolchain);
  registerMetricsRoute(app, toolchain);

  registerMcpRoutes(app, {
    sessions,
    modern,
    createServer: () => createMcpServer(toolchain, log),
    precheck: (request, reply) => {
      if (!(request.headers['content-type'] ?? '').toLowerCase().startsWith('application/json'))
        return jsonRpcError(
          reply,
          415,
          -32000,
          'Unsupported Media Type: Content-Type must be application/json',
        );
      const accept = request.headers.accept ?? '';
      if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
        return jsonRpcError(
          reply,
          406,
          -32000,
          'Not Acceptable: Accept must list application/json and text/event-stream',
        );
      return undefined;
    },
  });

  return app;
}

/**
 * No route here declares a JSON schema, so fastify never needs a schema validator or serializer; saying so
 * keeps it from loading ajv and fast-json-stringify at all (about 3 MB of idle memory, docs/benchmarks.md).
 */
const NO_ROUTE_SCHEMAS = {
  compilersFactory: {
    buildValidator: () => () => {
      throw new Error('toolchain server routes declare no request schemas');
    },
    buildSerializer: () => () => {
      throw new Error('toolchain server routes declare no response schemas');
    },
  },
};

function registerMetricsRoute(app: FastifyInstance, toolchain: Toolchain): void {
  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', EXPOSITION_CONTENT_TYPE);
    return toolchain.metrics.render();
  });
}

function registerHealthRoutes(app: FastifyInstance, toolchain: Toolchain): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const state = toolchain.readiness();
    return reply
      .code(state.ready ? 200 : 503)
      .send({ status: state.ready ? 'ready' : 'not-ready', ...state });
  });
}

/**
 * The probe listener: kubelet cannot reach 127.0.0.1 inside the pod, so `health` gets its own app that serves
 * `/healthz` and `/readyz` — and `/metrics` with `health.metrics`, for Prometheus — and never MCP.
 */
export function buildHealthServer(toolchain: Toolchain): FastifyInstance {
  const app = Fastify({ logger: false, schemaController: NO_ROUTE_SCHEMAS, return503OnClosing: false });
  registerHealthRoutes(app, toolchain);
  if (toolchain.config.health?.metrics) registerMetricsRoute(app, toolchain);
  return app;
}
