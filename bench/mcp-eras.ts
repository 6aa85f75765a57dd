/**
 * CPU per MCP request on the toolchain server's two paths, measured in one process and one run: the 2025 session
 * transport (one SDK Server per session) and the 2026-07-28 stateless path (the SDK's HTTP entry, one Server per
 * request). Requests go through fastify's `inject`, so the figures are the server's own work without sockets.
 * `npm run bench:mcp-eras`; figures in docs/toolchain-server.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InjectOptions } from 'fastify';
import { toolchainServerConfigSchema } from '../toolchain-server/src/config.ts';
import { buildServer } from '../toolchain-server/src/http.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const WARMUP = 300;
const MODERN = '2026-07-28';
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  host: '127.0.0.1',
};

const dir = mkdtempSync(join(tmpdir(), 'toolyard-bench-eras-'));
const config = toolchainServerConfigSchema.parse({
  name: 'bench',
  listen: { host: '127.0.0.1', port: 0 },
  workspaceRoots: [dir],
  tools: { mode: 'exec', allowedCommands: ['true'] },
  env: { passthrough: ['PATH'] },
});
const app = buildServer({ config, env: { PATH: process.env.PATH }, log: () => {} });
await app.ready();

const init = await app.inject({
  method: 'POST',
  url: '/mcp',
  headers: HEADERS,
  payload: {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  },
});
const session = {
  ...HEADERS,
  'mcp-session-id': String(init.headers['mcp-session-id']),
  'mcp-protocol-version': '2025-11-25',
};
await app.inject({
  method: 'POST',
  url: '/mcp',
  headers: session,
  payload: { jsonrpc: '2.0', method: 'notifications/initialized' },
});

const envelope = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Case {
  readonly name: string;
  readonly request: (id: number) => InjectOptions;
}

/** The same two calls in each era: list the tools, and call one that runs no process. */
const calls = [
  { label: 'tools/list', method: 'tools/list', params: {} as Record<string, unknown>, name: undefined },
  {
    label: 'tools/call',
    method: 'tools/call',
    params: { name: 'describe_toolchain', arguments: {} },
    name: 'describe_toolchain',
  },
];
const cases: Case[] = [];
for (const call of calls) {
  cases.push({
    name: `2025 session   ${call.label}`,
    request: (id) => ({
      method: 'POST',
      url: '/mcp',
      headers: session,
      payload: { jsonrpc: '2.0', id, method: call.method, params: call.params },
    }),
  });
  cases.push({
    name: `2026 stateless ${call.label}`,
    request: (id) => ({
      method: 'POST',
      url: '/mcp',
      headers: {
        ...HEADERS,
        'mcp-protocol-version': MODERN,
        'mcp-method': call.method,
        ...(call.name ? { 'mcp-name': call.name } : {}),
      },
      payload: { jsonrpc: '2.0', id, method: call.method, params: { ...call.params, _meta: envelope } },
    }),
  });
}

process.stdout.write(
  `MCP request cost by protocol path (node ${process.version}, ${REQUESTS} requests each, in-process)\n`,
);
for (const c of cases) {
  for (let i = 0; i < WARMUP; i++) {
    const response = await app.inject(c.request(i));
    if (response.statusCode !== 200)
      throw new Error(`${c.name}: HTTP ${response.statusCode} ${response.body}`);
  }
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < REQUESTS; i++) await app.inject(c.request(i));
  const used = process.cpuUsage(cpu);
  const wall = performance.now() - started;
  process.stdout.write(
    `${c.name.padEnd(26)} ${((used.user + used.system) / REQUESTS).toFixed(0).padStart(5)} µs CPU/request   ${((wall * 1000) / REQUESTS).toFixed(0).padStart(5)} µs wall/request\n`,
  );
}
await app.close();
rmSync(dir, { recursive: true, force: true });
