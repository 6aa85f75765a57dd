/** Shared fixtures for the toolchain-server tests: temp workspaces, configs, clients, process checks. */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import {
  type ToolchainServerConfig,
  type ToolchainServerConfigInput,
  toolchainServerConfigSchema,
} from '../../toolchain-server/src/config.ts';

export interface Workspace {
  readonly root: string;
  readonly outside: string;
  cleanup(): void;
}

/** A workspace root and a sibling directory outside it, both real paths. */
export function makeWorkspace(): Workspace {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'toolyard-ts-')));
  const root = join(base, 'workspace');
  const outside = join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  return { root, outside, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

export function makeConfig(
  workspace: Workspace,
  overrides: Partial<ToolchainServerConfigInput> = {},
): ToolchainServerConfig {
  return toolchainServerConfigSchema.parse({
    name: 'test',
    listen: { host: '127.0.0.1', port: 0 },
    workspaceRoots: [workspace.root],
    tools: {
      mode: 'exec',
      allowedCommands: ['true', 'echo', 'sh', 'sleep', 'cat', 'git', 'printenv', 'pwd'],
    },
    env: { passthrough: ['PATH'] },
    ...overrides,
  });
}

/** Collects log lines instead of printing them. */
export function memoryLog(): {
  lines: Record<string, unknown>[];
  sink: (line: Readonly<Record<string, unknown>>) => void;
} {
  const lines: Record<string, unknown>[] = [];
  return { lines, sink: (line) => lines.push({ ...line }) };
}

export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
}

export async function connectClient(baseUrl: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'toolyard-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers } }),
  );
  return client;
}

/**
 * Whether a process still runs. A zombie (killed, waiting for its new parent to reap it — which, for an
 * orphan, is whenever PID 1 gets to it) has stopped running, so it counts as dead.
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Polls `check` until it returns true or `timeoutMs` passes. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export const INIT_BODY = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
} as const;

export const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
} as const;
