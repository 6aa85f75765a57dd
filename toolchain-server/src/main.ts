/**
 * `toolyard-toolchain-server --config <file>`: parse the config, build the server, listen, and shut down
 * cleanly on SIGTERM (refuse new calls, let running ones finish within the grace period, kill the rest).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { stdoutSink } from './audit.ts';
import { parseToolchainServerConfig, type ToolchainServerConfig } from './config.ts';
import { buildHealthServer, buildServer } from './http.ts';
import { reclaimIdleMemory } from './reclaim.ts';
import { SERVER_VERSION } from './version.ts';

const USAGE = `Usage: toolyard-toolchain-server --config <file.json> [--shutdown-grace-seconds <n>]

Serves MCP over Streamable HTTP at http://<listen.host>:<listen.port>/mcp for one toolchain.
On start it prints {"event":"listening","port":N} on stdout; audit lines follow, one per tool call.`;

function fail(message: string, code = 2): never {
  process.stderr.write(`toolyard-toolchain-server: ${message}\n`);
  process.exit(code);
}

function loadConfig(file: string): ToolchainServerConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    fail(`cannot read config ${file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    fail(`config ${file} is not valid JSON: ${(error as Error).message}`);
  }
  const result = parseToolchainServerConfig(value);
  if (!result.ok) {
    const lines = result.issues.map((issue) => `  ${issue.path}: ${issue.message}`);
    process.stderr.write(`${JSON.stringify({ event: 'config-error', file, issues: result.issues })}\n`);
    fail(`invalid config ${file}:\n${lines.join('\n')}`);
  }
  return result.config;
}

export async function main(argv: readonly string[]): Promise<void> {
  let values: {
    config?: string | undefined;
    'shutdown-grace-seconds'?: string | undefined;
    help?: boolean | undefined;
    version?: boolean | undefined;
  };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        config: { type: 'string' },
        'shutdown-grace-seconds': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (error) {
    fail(`${(error as Error).message}\n${USAGE}`);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (values.version) {
    process.stdout.write(`${SERVER_VERSION}\n`);
    return;
  }
  if (!values.config) fail(`--config is required\n${USAGE}`);
  const graceSeconds = Number(values['shutdown-grace-seconds'] ?? '10');
  if (!Number.isFinite(graceSeconds) || graceSeconds < 0)
    fail('--shutdown-grace-seconds must be a number >= 0');

  const config = loadConfig(values.config);
  const log = stdoutSink;
  let app: ReturnType<typeof buildServer>;
  try {
    app = buildServer({ config, log });
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
    log({ event: 'stopped', killedProcessGroups: killed });
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
