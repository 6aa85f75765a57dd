/**
 * `toolyard-broker --config <file>`: parse the config, read the caller tokens and route keys from their files,
 * listen, print `{"event":"listening","port":N,"healthPort":M}`, and on SIGTERM stop accepting, let open
 * requests and tunnels finish within the grace period, then exit. SIGHUP reads the token and key files again.
 *
 * Secrets are only ever read from files (mounted Secrets), never from the environment, and the broker starts
 * no child process: there is no environment to scrub and no child to inherit one.
 */
import { stdoutSink } from '../kit/audit-sink.ts';
import { fail as failWith, loadConfigFile, type Program, parseServerArgs } from '../kit/command-line.ts';
import { SERVER_VERSION } from '../src/version.ts';
import { parseBrokerConfig } from './config.ts';

const USAGE = `Usage: toolyard-broker --config <file.json> [--shutdown-grace-seconds <n>]

Serves the agent's model and gateway routes (http://<host>:<listen.port>/<route>/...) and its CONNECT proxy,
and /healthz, /readyz, /metrics on health.port. On start it prints {"event":"listening","port":N,"healthPort":M}
on stdout; one audit line per request or tunnel follows.`;

const PROGRAM: Program = { name: 'toolyard-broker', usage: USAGE, version: SERVER_VERSION };

function fail(message: string, code = 2): never {
  return failWith(PROGRAM, message, code);
}

export async function main(argv: readonly string[]): Promise<void> {
  const args = parseServerArgs(PROGRAM, argv);
  if (!args) return;
  const { graceSeconds } = args;

  const config = loadConfigFile(PROGRAM, args.config, parseBrokerConfig);
  const { buildBroker } = await import('./server.ts');
  const log = stdoutSink;
  let broker: ReturnType<typeof buildBroker>;
  try {
    broker = buildBroker(config, { log, version: SERVER_VERSION });
  } catch (error) {
    fail((error as Error).message);
  }
  const listen = (server: typeof broker.proxy, host: string, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  let port: number;
  let healthPort: number;
  try {
    healthPort = await listen(broker.health, config.health.host, config.health.port);
    port = await listen(broker.proxy, config.listen.host, config.listen.port);
  } catch (error) {
    fail(`cannot listen: ${(error as Error).message}`, 1);
  }
  log({ event: 'listening', port, healthPort });
  if (
    config.listen.allowedHosts.length === 0 &&
    !['127.0.0.1', '::1', 'localhost'].includes(config.listen.host)
  )
    log({
      event: 'warning',
      message:
        'listen.allowedHosts is empty: requests naming the broker by its Service name get 403 TOOLYARD_BROKER_HOST_HEADER; list the Service names there',
    });
  log({
    event: 'broker-config',
    agent: config.agent,
    routes: config.routes.map((r) => ({ name: r.name, upstream: r.upstream })),
    callers: config.callers.map((c) => ({
      name: c.name,
      routes: c.routes,
      egress: c.egress.flatMap((e) => e.ports.map((p) => `${e.host}:${p}`)),
      openPorts: c.openPorts,
    })),
    deniedCidrs: config.deniedCidrs,
  });

  process.on('SIGHUP', () => {
    try {
      broker.reloadSecrets();
      log({ event: 'secrets-reloaded' });
    } catch (error) {
      log({ event: 'secrets-reload-failed', message: (error as Error).message });
    }
  });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    log({ event: 'shutdown', signal });
    await broker.close(graceSeconds * 1000);
    log({ event: 'stopped' });
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
