/**
 * The HTTP layer: fastify routes for `/mcp`, `/healthz`, `/readyz` and `/metrics`, Host/Origin checks against
 * DNS rebinding, and the optional bearer token. Everything that decides what runs lives in the Toolchain.
 * `buildServer` returns the app; only main.ts listens.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  isInitializeRequest,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type Server as McpSdkServer,
  parseJSONRPCMessage,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { type LogSink, stdoutSink } from './audit.ts';
import type { ToolchainServerConfig } from './config.ts';
import { createMcpServer } from './mcp.ts';
import { createModernHandler, isModernRequest, serveModern } from './modern.ts';
import { Toolchain, type ToolchainOptions } from './toolchain.ts';
import { SessionTransport } from './transport.ts';

export interface BuildServerOptions {
  readonly config: ToolchainServerConfig;
  /** The server's environment (PATH, passthrough values, bearerTokenEnv). Default: process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly log?: LogSink;
  /** An existing toolchain; by default one is built from `config`. */
  readonly toolchain?: Toolchain;
  readonly toolchainOptions?: Partial<Omit<ToolchainOptions, 'config' | 'env' | 'log'>>;
  /** Most concurrent MCP sessions; the least recently used idle one is evicted beyond it. Default 256. */
  readonly maxSessions?: number;
  /** Idle sessions are closed after this long. Default 1 hour. */
  readonly sessionIdleMs?: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    toolchain: Toolchain;
    /** Closes every MCP session (used on shutdown). */
    closeSessions: () => Promise<void>;
  }
}

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

function hostnameOf(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end > 0 ? host.slice(0, end + 1).toLowerCase() : host.toLowerCase();
  }
  const colon = host.indexOf(':');
  return (colon >= 0 ? host.slice(0, colon) : host).toLowerCase();
}

/** Hostnames a request may name in Host/Origin: loopback, plus the listen host when it is a specific address. */
export function allowedHostnames(listenHost: string): Set<string> {
  const hosts = new Set(LOOPBACK_HOSTNAMES);
  if (!WILDCARD_HOSTS.has(listenHost))
    hosts.add(
      listenHost.includes(':') && !listenHost.startsWith('[') ? `[${listenHost}]` : listenHost.toLowerCase(),
    );
  return hosts;
}

/** Reads the bearer token the config points at; undefined when auth is not configured. */
export function loadBearerToken(
  config: ToolchainServerConfig,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const auth = config.auth;
  if (!auth) return undefined;
  let token: string | undefined;
  let source: string;
  if ('bearerTokenFile' in auth) {
    source = `/auth/bearerTokenFile (${auth.bearerTokenFile})`;
    try {
      token = readFileSync(auth.bearerTokenFile, 'utf8').trim();
    } catch (error) {
      throw new Error(`${source}: cannot read the token file: ${(error as Error).message}`);
    }
  } else {
    source = `/auth/bearerTokenEnv (${auth.bearerTokenEnv})`;
    token = env[auth.bearerTokenEnv]?.trim();
  }
  if (!token) throw new Error(`${source}: the bearer token is empty or unset`);
  return token;
}

function jsonRpcError(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'application/json')
    .send({ jsonrpc: '2.0', error: { code, message }, id: null });
}

interface Session {
  readonly server: McpSdkServer;
  readonly transport: SessionTransport;
}

export function buildServer(opts: BuildServerOptions): FastifyInstance {
  const config = opts.config;
  const env = opts.env ?? process.env;
  const log = opts.log ?? stdoutSink;
  const secretEnvNames = config.auth && 'bearerTokenEnv' in config.auth ? [config.auth.bearerTokenEnv] : [];
  const toolchain =
    opts.toolchain ?? new Toolchain({ ...opts.toolchainOptions, config, env, log, secretEnvNames });
  const token = loadBearerToken(config, env);
  const tokenDigest = token === undefined ? undefined : createHash('sha256').update(token).digest();
  const hostnames = allowedHostnames(config.listen.host);
  const maxSessions = opts.maxSessions ?? 256;
  const sessionIdleMs = opts.sessionIdleMs ?? 60 * 60 * 1000;
  const sessions = new Map<string, Session>();
  toolchain.setSessionsGauge(() => sessions.size);

  const app = Fastify({ logger: false, bodyLimit: 4 * 1024 * 1024, return503OnClosing: true });
  app.decorate('toolchain', toolchain);

  const closeSession = async (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    await session.server.close();
  };
  app.decorate('closeSessions', async () => {
    await Promise.all([...sessions.keys()].map(closeSession));
  });
  const sweeper = setInterval(
    () => {
      const cutoff = Date.now() - sessionIdleMs;
      for (const [id, s] of sessions)
        if (!s.transport.busy && s.transport.lastActivity < cutoff) void closeSession(id);
    },
    Math.min(sessionIdleMs, 60_000),
  );
  sweeper.unref();
  const modern = createModernHandler(
    () => createMcpServer(toolchain, log),
    (error) => log({ event: 'mcp-rejected', message: error.message }),
  );
  app.addHook('onClose', async () => {
    clearInterval(sweeper);
    await app.closeSessions();
    await modern.close();
  });

  // DNS rebinding: a browser tricked into talking to 127.0.0.1 still sends the attacker's Host/Origin.
  const checkHostAndOrigin = (request: FastifyRequest, reply: FastifyReply): boolean => {
    const host = request.headers.host;
    if (!host || !hostnames.has(hostnameOf(host))) {
      jsonRpcError(reply, 403, -32000, 'Forbidden: Host header is not an allowed local host');
      return false;
    }
    const origin = request.headers.origin;
    if (origin !== undefined) {
      let originHost: string | undefined;
      try {
        originHost = new URL(origin).host;
      } catch {
        originHost = undefined;
      }
      if (!originHost || !hostnames.has(hostnameOf(originHost))) {
        jsonRpcError(reply, 403, -32000, 'Forbidden: Origin is not an allowed local origin');
        return false;
      }
    }
    return true;
  };

  const checkToken = (request: FastifyRequest, reply: FastifyReply): boolean => {
    if (!tokenDigest) return true;
    const header = request.headers.authorization ?? '';
    const presented = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
    const digest = createHash('sha256').update(presented).digest();
    if (presented && timingSafeEqual(digest, tokenDigest)) return true;
    reply.header('www-authenticate', 'Bearer');
    jsonRpcError(reply, 401, -32001, 'Unauthorized: a valid bearer token is required');
    return false;
  };

  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?', 1)[0];
    if (path === '/healthz' || path === '/readyz') return;
    if (!checkHostAndOrigin(request, reply)) return reply;
    if (!checkToken(request, reply)) return reply;
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

  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', 'text/plain; version=0.0.4; charset=utf-8');
    return toolchain.metrics.render();
  });

  app.post('/mcp', async (request, reply) => {
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
    const body = request.body;
    if (isModernRequest(request.headers, body)) {
      reply.hijack();
      await serveModern(modern, request.headers, request.url, body, reply.raw);
      return;
    }
    const batch = Array.isArray(body);
    const raw: unknown[] = batch ? body : [body];
    if (raw.length === 0) return jsonRpcError(reply, 400, -32600, 'Invalid Request: empty batch');
    const messages: JSONRPCMessage[] = [];
    for (const item of raw) {
      let message: JSONRPCMessage;
      try {
        message = parseJSONRPCMessage(item);
      } catch {
        return jsonRpcError(reply, 400, -32600, 'Invalid Request: not a JSON-RPC 2.0 message');
      }
      messages.push(message);
    }
    const initialize = messages.some(isInitializeRequest);
    let session: Session | undefined;
    const sessionHeader = request.headers['mcp-session-id'];
    if (initialize) {
      if (messages.length > 1)
        return jsonRpcError(reply, 400, -32600, 'Invalid Request: initialize must be sent on its own');
      if (sessions.size >= maxSessions && !evictIdleSession())
        return jsonRpcError(reply, 503, -32000, 'TOOLYARD_BUSY: too many open MCP sessions');
      const id = randomUUID();
      const transport = new SessionTransport(id);
      const server = createMcpServer(toolchain, log);
      transport.onclose = () => sessions.delete(id);
      await server.connect(transport);
      session = { server, transport };
      sessions.set(id, session);
    } else {
      if (typeof sessionHeader !== 'string' || sessionHeader === '')
        return jsonRpcError(reply, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      session = sessions.get(sessionHeader);
      if (!session) return jsonRpcError(reply, 404, -32001, 'Session not found');
      const version = request.headers['mcp-protocol-version'];
      if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version))
        return jsonRpcError(reply, 400, -32000, `Bad Request: unsupported MCP-Protocol-Version ${version}`);
    }
    reply.hijack();
    session.transport.handlePost(messages, batch && messages.some(isJSONRPCRequest), reply.raw);
  });

  const evictIdleSession = (): boolean => {
    let oldest: [string, Session] | undefined;
    for (const entry of sessions) {
      if (entry[1].transport.busy) continue;
      if (!oldest || entry[1].transport.lastActivity < oldest[1].transport.lastActivity) oldest = entry;
    }
    if (!oldest) return false;
    void closeSession(oldest[0]);
    return true;
  };

  app.get('/mcp', async (_request, reply) => {
    // No server-initiated messages exist outside requests, so there is no standalone SSE stream.
    reply.header('allow', 'POST, DELETE');
    return jsonRpcError(
      reply,
      405,
      -32000,
      'Method Not Allowed: this server offers no standalone SSE stream',
    );
  });

  app.delete('/mcp', async (request, reply) => {
    const id = request.headers['mcp-session-id'];
    if (typeof id !== 'string' || !sessions.has(id))
      return jsonRpcError(reply, 404, -32001, 'Session not found');
    await closeSession(id);
    return reply.code(200).send();
  });

  return app;
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
 * The probe-only listener: kubelet cannot reach 127.0.0.1 inside the pod, so `health` gets its own app that
 * serves `/healthz` and `/readyz` and nothing else (no MCP, no metrics).
 */
export function buildHealthServer(toolchain: Toolchain): FastifyInstance {
  const app = Fastify({ logger: false, return503OnClosing: false });
  registerHealthRoutes(app, toolchain);
  return app;
}
