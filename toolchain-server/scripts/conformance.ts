/**
 * Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against the toolchain server on
 * 127.0.0.1. Offline: the suite is an npm devDependency and talks only to the local server. Exits non-zero
 * when any required scenario fails.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listeningPort } from './listening-port.ts';

export const REQUIRED_SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'dns-rebinding-protection',
  'logging-set-level',
] as const;

const here = dirname(fileURLToPath(import.meta.url));
const mainEntry = join(here, '..', 'bin', 'toolyard-toolchain-server.js');

function conformanceCli(): string {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve('@modelcontextprotocol/conformance/package.json');
  return join(dirname(pkg), 'dist', 'index.js');
}

async function startServer(configPath: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [mainEntry, '--config', configPath], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await listeningPort(child, { timeoutMs: 10_000 });
  return { child, port };
}

function runScenario(url: string, scenario: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [conformanceCli(), 'server', '--url', url, '--scenario', scenario],
      {
        stdio: 'inherit',
      },
    );
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

async function run(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'toolyard-conformance-'));
  const workspace = join(dir, 'workspace');
  const configPath = join(dir, 'config.json');
  mkdirSync(workspace);
  writeFileSync(
    configPath,
    JSON.stringify({
      name: 'conformance',
      listen: { host: '127.0.0.1', port: 0 },
      workspaceRoots: [workspace],
      tools: { mode: 'exec', allowedCommands: ['true', 'echo'] },
      env: { passthrough: ['PATH'] },
    }),
  );
  const { child, port } = await startServer(configPath);
  const url = `http://127.0.0.1:${port}/mcp`;
  const failed: string[] = [];
  try {
    for (const scenario of REQUIRED_SCENARIOS) {
      process.stdout.write(`\n=== conformance: ${scenario} ===\n`);
      if ((await runScenario(url, scenario)) !== 0) failed.push(scenario);
    }
  } finally {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
  const passed = REQUIRED_SCENARIOS.length - failed.length;
  process.stdout.write(`\nconformance: ${passed} passed, ${failed.length} failed\n`);
  if (failed.length) process.stdout.write(`failed scenarios: ${failed.join(', ')}\n`);
  return failed.length === 0 ? 0 : 1;
}

process.exitCode = await run();
