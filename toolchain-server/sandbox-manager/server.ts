/**
 * `buildSandboxManager(config, options)`: the manager's two fastify apps — MCP for the backends (`/mcp`, behind
 * the bearer token and the Host/Origin checks, both protocol eras as the toolchain server serves them) and the
 * health listener (`/healthz`, `/readyz`, `/metrics`) — plus the lifecycle loop, without listening; only main.ts
 * listens. Tests and benches start it in-process the same way.
 */
import { ProtocolError, ProtocolErrorCode, Server, type Tool } from '@modelcontextprotocol/server';
import Fastify, { type FastifyInstance } from 'fastify';
import { type LogSink, stdoutSink } from '../kit/audit-sink.ts';
import { allowedHostnames, isAllowedHost, isAllowedOrigin } from '../kit/host.ts';
import { CallbackGauge, EXPOSITION_CONTENT_TYPE, GaugeMap, Registry } from '../kit/metrics.ts';
import { readTokenFile, TokenSet } from '../kit/token-file.ts';
import { contextFromRequest } from '../kit/trace-context.ts';
import type { Tracer } from '../kit/tracing.ts';
import { noElicitationValidator } from '../src/mcp.ts';
import { jsonRpcError, registerMcpRoutes } from '../src/mcp-routes.ts';
import { createModernHandler } from '../src/modern.ts';
import { SessionRegistry } from '../src/sessions.ts';
import { SERVER_VERSION } from '../src/version.ts';
import { AgentSandboxProvider } from './agent-sandbox-provider.ts';
import type { SandboxManagerConfig } from './config.ts';
import { inClusterServer, KubeClient } from './kube-client.ts';
import { KubernetesProvider } from './kubernetes-provider.ts';
import { SandboxManager } from './manager.ts';
import type { SandboxProvider } from './provider.ts';
import { SandboxTools, sandboxToolsFor } from './tools.ts';

export interface BuildSandboxManagerOptions {
  readonly log?: LogSink;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Tokens to use instead of reading the files the config names. */
  readonly secrets?: { readonly bearerToken: string; readonly bootstrapToken: string };
  /** A provider to use instead of the config's (tests). */
  readonly provider?: SandboxProvider;
  /** Where spans go (main.ts: `startTelemetry(config.telemetry, …)`). Default: `Tracer.off`. */
  readonly tracer?: Tracer;
}

export interface SandboxManagerServer {
  readonly app: FastifyInstance;
  readonly health: FastifyInstance;
  readonly manager: SandboxManager;
  /** Lists and starts watching; resolves once the caches are filled, then runs the lifecycle loop. */
  start(): Promise<void>;
  close(): Promise<void>;
}

const NO_ROUTE_SCHEMAS = {
  compilersFactory: {
    buildValidator: () => () => {
      throw new Error('sandbox manager routes declare no request schemas');
    },
    buildSerializer: () => () => {
      throw new Error('sandbox manager routes declare no response schemas');
    },
  },
};

export function buildSandboxManager(
  config: SandboxManagerConfig,
  options: BuildSandboxManagerOptions = {},
): SandboxManagerServer {
  const log = options.log ?? stdoutSink;
  const env = options.env ?? process.env;
  const bearerToken =
    options.secrets?.bearerToken ?? readTokenFile(config.auth.bearerTokenFile, '/auth/bearerTokenFile');
  const bootstrapToken =
    options.secrets?.bootstrapToken ?? readTokenFile(config.bootstrapTokenFile, '/bootstrapTokenFile');
  const onError = (error: Error) => log({ event: 'kubernetes-error', message: error.message });
  let provider = options.provider;
  let launchType: ((name: string) => Promise<'warm' | 'cold' | undefined>) | undefined;
  let client: KubeClient | undefined;
  if (!provider) {
    const server = config.kubernetes.server ?? inClusterServer(env);
    if (!server)
      throw new Error(
        'kubernetes.server is not set and KUBERNETES_SERVICE_HOST/PORT are not in the environment: run in a pod, or set kubernetes.server',
      );
    client = new KubeClient({
      server,
      tokenFile: config.kubernetes.tokenFile,
      caFile: config.kubernetes.caFile,
    });
    if (config.provider === 'agent-sandbox') {
      const agentSandbox = new AgentSandboxProvider(client, config, onError);
      launchType = (name) => agentSandbox.launchType(name);
      provider = agentSandbox;
    } else provider = new KubernetesProvider(client, config, onError);
  }
  const manager = new SandboxManager(config, provider, bootstrapToken, {
    ...(launchType ? { launchType } : {}),
    ...(options.tracer ? { tracer: options.tracer } : {}),
  });
  const tools = new SandboxTools(manager, log);
  const tokens = new TokenSet().add('bearer', bearerToken);
  const hostnames = allowedHostnames(config.listen.host, config.listen.allowedHosts);
  const sessions = new SessionRegistry(256, 60 * 60 * 1000);
  const maxUpload = Math.max(...config.templates.map((t) => t.maxUploadBytes));
  const offered = sandboxToolsFor(config);

  const createServer = (): Server => {
    const server = new Server(
      { name: `toolyard-sandboxes-${config.agent}`, version: SERVER_VERSION },
      {
        capabilities: { tools: { listChanged: false } },
        instructions:
          `Sandboxes of agent "${config.agent}": an isolated computer per session key, with a persistent workspace ` +
          '(create or reuse with sandbox_create, then sandbox_exec, sandbox_upload, sandbox_download; artifacts under outputs/). ' +
          `Templates: ${config.templates.map((t) => t.name).join(', ')}.` +
          (offered.some((t) => t.name === 'sandbox_run_code')
            ? ` Programs (sandbox_run_code) run in: ${config.templates
                .filter((t) => t.codeMode)
                .map((t) => t.name)
                .join(', ')}.`
            : ''),
        jsonSchemaValidator: noElicitationValidator,
      },
    );
    const listed = { tools: offered as unknown as Tool[] };
    server.setRequestHandler('tools/list', () => listed);
    server.setRequestHandler('tools/call', async (request) => {
      if (!offered.some((t) => t.name === request.params.name))
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
      // The POST handler copies an HTTP traceparent header into _meta when the request has none there.
      return (await tools.call(
        request.params.name,
        request.params.arguments,
        contextFromRequest(request.params._meta),
      )) as never;
    });
    return server;
  };

  const app = Fastify({
    logger: false,
    schemaController: NO_ROUTE_SCHEMAS,
    // An upload's base64 is 4/3 of its bytes, plus the JSON-RPC envelope.
    bodyLimit: Math.ceil(maxUpload * 1.4) + 64 * 1024,
    return503OnClosing: true,
  });
  const modern = createModernHandler(createServer, (error) =>
    log({ event: 'mcp-rejected', message: error.message }),
  );
  app.addHook('onRequest', async (request, reply) => {
    if (!isAllowedHost(request.headers.host, hostnames)) {
      reply.header('connection', 'close');
      return jsonRpcError(reply, 403, -32000, 'Forbidden: Host header is not an allowed host');
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !isAllowedOrigin(origin, hostnames))
      return jsonRpcError(reply, 403, -32000, 'Forbidden: Origin is not an allowed origin');
    const header = request.headers.authorization ?? '';
    if (!tokens.matches('bearer', header.startsWith('Bearer ') ? header.slice(7).trim() : '')) {
      reply.header('www-authenticate', 'Bearer');
      return jsonRpcError(reply, 401, -32001, 'Unauthorized: a valid bearer token is required');
    }
  });
  registerMcpRoutes(app, { sessions, modern, createServer });

  const metrics = new Registry();
  const byState = new GaugeMap('toolyard_sandboxes', 'Sandboxes of the agent by template and state.');
  metrics.register(byState);
  metrics.register(
    new CallbackGauge('toolyard_sandbox_mcp_sessions', 'Open MCP sessions of backends.', () => sessions.size),
  );
  let synced = false;
  const health = Fastify({ logger: false, schemaController: NO_ROUTE_SCHEMAS });
  health.get('/healthz', async () => ({ status: 'ok' }));
  health.get('/readyz', async (_request, reply) =>
    reply.code(synced ? 200 : 503).send({ status: synced ? 'ready' : 'syncing' }),
  );
  health.get('/metrics', async (_request, reply) => {
    for (const template of config.templates)
      for (const state of ['creating', 'starting', 'running', 'stopped', 'failed'])
        byState.set({ template: template.name, state }, 0);
    for (const view of manager.list()) byState.add({ template: view.template, state: view.state }, 1);
    reply.header('content-type', EXPOSITION_CONTENT_TYPE);
    return metrics.render();
  });

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  return {
    app,
    health,
    manager,
    start: async () => {
      await provider.start();
      synced = true;
      timer = setInterval(() => {
        if (running) return;
        running = manager
          .lifecycle()
          .then(({ stopped, destroyed }) => {
            for (const name of stopped)
              log({ event: 'sandbox-lifecycle', action: 'stopped', sandbox: name, reason: 'idle' });
            for (const name of destroyed)
              log({ event: 'sandbox-lifecycle', action: 'destroyed', sandbox: name, reason: 'retention' });
          })
          .catch((error: Error) => log({ event: 'sandbox-lifecycle-error', message: error.message }))
          .finally(() => {
            running = undefined;
          });
      }, config.lifecycleIntervalSeconds * 1000);
      timer.unref();
    },
    close: async () => {
      if (timer) clearInterval(timer);
      await sessions.closeAll();
      await modern.close();
      await app.close();
      await health.close();
      manager.close();
      client?.close();
    },
  };
}
