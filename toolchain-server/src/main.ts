/**
 * `toolyard-toolchain-server --config <file>`: parse the config, build the server, listen, and shut down
 * cleanly on SIGTERM (refuse new calls, let running ones finish within the grace period, kill the rest).
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stdoutSink } from '../kit/audit-sink.ts';
import { fail as failWith, loadConfigFile, type Program, parseServerArgs } from '../kit/command-line.ts';
import { startTelemetry } from '../kit/telemetry.ts';
import { parseToolchainServerConfig } from './config.ts';
import { serverProcessEnvironment } from './policy/env.ts';
import { proxyAddressForCalls } from './policy/proxy-env.ts';
import { SERVER_VERSION } from './version.ts';

const USAGE = `Usage: toolyard-toolchain-server --config <file.json> [--shutdown-grace-seconds <n>]

Serves MCP over Streamable HTTP at http://<listen.host>:<listen.port>/mcp for one toolchain.
On start it prints {"event":"listening","port":N} on stdout; audit lines follow, one per tool call.`;

const PROGRAM: Program = { name: 'toolyard-toolchain-server', usage: USAGE, version: SERVER_VERSION };

function fail(message: string, code = 2): never {
  return failWith(PROGRAM, message, code);
}

/**
 * Deleting a variable from process.env does not change what /proc/<pid>/environ shows, and a child can read
 * its parent's. So when the environment holds anything beyond the passthrough names, the server replaces
 * itself (execve, same pid) with a copy started from exactly those names and its own malloc setting
 * (SERVER_OWN_ENV); the second start finds nothing to scrub and goes on. The token is read from its file only after this, so it never enters the environment.
 */
function reexecWithScrubbedEnvironment(passthrough: readonly string[]): void {
  const scrubbed = serverProcessEnvironment(passthrough, process.env);
  const current = Object.entries(process.env);
  if (current.length === Object.keys(scrubbed).length && current.every(([k, v]) => scrubbed[k] === v)) return;
  if (typeof process.execve !== 'function') {
    process.stderr.write(
      'toolyard-toolchain-server: this Node has no process.execve; the server environment cannot be scrubbed\n',
    );
    return;
  }
  process.execve(
    process.execPath,
    [process.execPath, ...process.execArgv, ...process.argv.slice(1)],
    scrubbed,
  );
}

export async function main(argv: readonly string[]): Promise<void> {
  const args = parseServerArgs(PROGRAM, argv);
  if (!args) return;
  const { graceSeconds } = args;

  const config = loadConfigFile(PROGRAM, args.config, parseToolchainServerConfig);
  reexecWithScrubbedEnvironment(config.env.passthrough);
  // Loaded only now: a re-exec above does not pay for loading the HTTP stack twice.
  const { buildHealthServer, buildServer } = await import('./http.ts');
  const { reclaimIdleMemory } = await import('./reclaim.ts');
  const log = stdoutSink;
  let app: Awaited<ReturnType<typeof buildServer>>;
  let telemetry: ReturnType<typeof startTelemetry>;
  try {
    // Spans go to telemetry.endpoint (docs/observability.md); the token is read from its file, after the re-exec.
    telemetry = startTelemetry(config.telemetry, {
      serviceName: 'toolyard-toolchain-server',
      version: SERVER_VERSION,
      resource: { 'toolyard.toolchain': config.name },
    });
    // No child may read the config file or the bundle (the server's code, Node and the helper).
    const ownFiles = [resolve(args.config), dirname(fileURLToPath(import.meta.url))];
    const proxyAddress =
      config.egressProxy && config.limits.confinement !== 'off'
        ? await proxyAddressForCalls(config.egressProxy.url, config.limits.connect, (message) =>
            process.stderr.write(`toolyard-toolchain-server: ${message}\n`),
          )
        : undefined;
    app = buildServer({
      config,
      log,
      toolchainOptions: { ownFiles, proxyAddress, tracer: telemetry.tracer },
    });
  } catch (error) {
    fail((error as Error).message);
  }
  const toolchain = app.toolchain;
  const health = config.health ? buildHealthServer(toolchain) : undefined;

  await app.listen({ host: config.listen.host, port: config.listen.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.listen.port;
  log({ event: 'listening', port });
  if (health && config.health) {
    await health.listen({ host: config.health.host, port: config.health.port });
    const healthAddress = health.server.address();
    log({
      event: 'health-listening',
      port: typeof healthAddress === 'object' && healthAddress ? healthAddress.port : 0,
    });
  }
  const report = toolchain.startupReport();
  log(report);
  const missing = (report.missingBinaries as string[]).length + (report.missingRoots as string[]).length;
  if (missing > 0) {
    process.stderr.write(
      `toolyard-toolchain-server: not ready: missing binaries [${(report.missingBinaries as string[]).join(', ')}], missing roots [${(report.missingRoots as string[]).join(', ')}]\n`,
    );
  }

  const confinement = toolchain.confinement;
  if (confinement.status === 'unavailable' || confinement.status === 'no-helper') {
    const why =
      confinement.status === 'unavailable'
        ? 'this kernel offers no Landlock'
        : 'the toolyard-confine helper is missing';
    process.stderr.write(
      `toolyard-toolchain-server: limits.confinement is best-effort and ${why}: commands run unconfined (argv policy only; docs/confinement.md)\n`,
    );
  }

  // Start-up (module compilation, version probes) leaves garbage that would otherwise sit in RSS until load.
  void toolchain.versions.then(() => setTimeout(reclaimIdleMemory, 50).unref());

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      // A second signal: stop waiting.
      await toolchain.groups.killAll(0);
      process.exit(1);
    }
    stopping = true;
    log({ event: 'shutdown', signal, inFlight: toolchain.callsInFlight });
    const { killed } = await toolchain.drain(graceSeconds * 1000);
    await app.close();
    await health?.close();
    await Promise.race([telemetry.shutdown(), new Promise((r) => setTimeout(r, 2000).unref())]);
    log({ event: 'stopped', killedProcessGroups: killed });
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
