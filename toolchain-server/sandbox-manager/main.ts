/**
 * `toolyard-sandbox-manager --config <file>`: parse the config, read the backends' token and the sandboxes'
 * bootstrap token from their files, list and watch the agent's sandboxes with the pod's ServiceAccount token,
 * listen, print `{"event":"listening","port":N,"healthPort":M}`, run the lifecycle loop, and on SIGTERM stop
 * taking calls and exit. Secrets are read from files only; the manager starts no child process.
 */
import { stdoutSink } from '../kit/audit-sink.ts';
import { fail as failWith, loadConfigFile, type Program, parseServerArgs } from '../kit/command-line.ts';
import { startTelemetry } from '../kit/telemetry.ts';
import { SERVER_VERSION } from '../src/version.ts';
import { parseSandboxManagerConfig } from './config.ts';

const USAGE = `Usage: toolyard-sandbox-manager --config <file.json> [--shutdown-grace-seconds <n>]

Serves the agent's sandbox tools over MCP (http://<host>:<listen.port>/mcp) and /healthz, /readyz, /metrics on
health.port, and stops idle sandboxes and destroys expired ones. On start it prints
{"event":"listening","port":N,"healthPort":M}; one sandbox-audit line per tool call follows.`;

const PROGRAM: Program = { name: 'toolyard-sandbox-manager', usage: USAGE, version: SERVER_VERSION };

export async function main(argv: readonly string[]): Promise<void> {
  const args = parseServerArgs(PROGRAM, argv);
  if (!args) return;
  const config = loadConfigFile(PROGRAM, args.config, parseSandboxManagerConfig);
  const { buildSandboxManager } = await import('./server.ts');
  const log = stdoutSink;
  let server: ReturnType<typeof buildSandboxManager>;
  let telemetry: ReturnType<typeof startTelemetry>;
  try {
    // Spans go to telemetry.endpoint (the broker's otlp route when rendered), with the token of its file.
    telemetry = startTelemetry(config.telemetry, {
      serviceName: 'toolyard-sandbox-manager',
      version: SERVER_VERSION,
      resource: { 'toolyard.agent': config.agent },
    });
    server = buildSandboxManager(config, { log, tracer: telemetry.tracer });
  } catch (error) {
    failWith(PROGRAM, (error as Error).message);
  }
  try {
    await server.start();
  } catch (error) {
    failWith(PROGRAM, `cannot list the agent's sandboxes: ${(error as Error).message}`, 1);
  }
  let port: number;
  let healthPort: number;
  try {
    await server.health.listen({ port: config.health.port, host: config.health.host });
    await server.app.listen({ port: config.listen.port, host: config.listen.host });
    port = (server.app.server.address() as { port: number }).port;
    healthPort = (server.health.server.address() as { port: number }).port;
  } catch (error) {
    failWith(PROGRAM, `cannot listen: ${(error as Error).message}`, 1);
  }
  log({ event: 'listening', port, healthPort });
  log({
    event: 'sandbox-manager-config',
    agent: config.agent,
    namespace: config.namespace,
    provider: config.provider,
    templates: config.templates.map((t) => ({
      name: t.name,
      warmPool: t.warmPool ?? null,
      idleTimeoutSeconds: t.idleTimeoutSeconds,
      retentionSeconds: t.retentionSeconds,
    })),
    quota: config.quota,
  });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    log({ event: 'shutdown', signal });
    const grace = setTimeout(() => process.exit(0), args.graceSeconds * 1000);
    grace.unref();
    await server.close();
    await Promise.race([telemetry.shutdown(), new Promise((r) => setTimeout(r, 2000).unref())]);
    log({ event: 'stopped' });
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
