/** The HTTP layer with fastify inject and over real sockets: DNS rebinding, bearer token, health, metrics. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { parseToolchainServerConfig } from '../../toolchain-server/src/config.ts';
import { buildHealthServer, buildServer } from '../../toolchain-server/src/http.ts';
import {
  connectClient,
  INIT_BODY,
  listen,
  MCP_HEADERS,
  makeConfig,
  makeWorkspace,
  memoryLog,
  type Workspace,
} from './helpers.ts';

async function initialize(app: FastifyInstance, headers: Record<string, string> = {}): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...MCP_HEADERS, host: '127.0.0.1', ...headers },
    payload: INIT_BODY,
  });
  assert.equal(res.statusCode, 200, res.body);
  const id = res.headers['mcp-session-id'];
  assert.equal(typeof id, 'string');
  return id as string;
}

describe('HTTP transport (inject)', () => {
  let ws: Workspace;
  let app: FastifyInstance;
  before(() => {
    ws = makeWorkspace();
    app = buildServer({ config: makeConfig(ws), env: { PATH: process.env.PATH }, log: () => {} });
  });
  after(async () => {
    await app.close();
    ws.cleanup();
  });

  const hostCases: ReadonlyArray<readonly [string, Record<string, string>, number]> = [
    ['evil Host', { host: 'evil.example.com' }, 403],
    ['evil Host with port', { host: 'evil.example.com:8080' }, 403],
    ['localhost.evil.com Host', { host: 'localhost.evil.com' }, 403],
    ['good Host, evil Origin', { host: '127.0.0.1:1234', origin: 'http://evil.example.com' }, 403],
    ['good Host, null Origin', { host: '127.0.0.1', origin: 'null' }, 403],
    ['localhost Host and Origin', { host: 'localhost:9', origin: 'http://localhost:9' }, 200],
    ['127.0.0.1 Host', { host: '127.0.0.1:5000' }, 200],
    ['[::1] Host', { host: '[::1]:5000', origin: 'http://[::1]:5000' }, 200],
  ];
  for (const [label, headers, status] of hostCases) {
    it(`${label} → ${status}`, async () => {
      const res = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { ...MCP_HEADERS, ...headers },
        payload: INIT_BODY,
      });
      assert.equal(res.statusCode, status, res.body);
      if (status === 403) assert.equal(res.json().error.code, -32000);
    });
  }

  it('rejects bad requests with the right status and JSON-RPC code', async () => {
    const base = { ...MCP_HEADERS, host: '127.0.0.1' };
    const cases: ReadonlyArray<readonly [Record<string, string>, string, number, number]> = [
      [{ ...base, accept: 'application/json' }, JSON.stringify(INIT_BODY), 406, -32000],
      [{ ...base, 'content-type': 'text/plain' }, JSON.stringify(INIT_BODY), 415, -32000],
      [base, '{"jsonrpc": "2.0", ', 400, -32700],
      [base, JSON.stringify({ hello: 'world' }), 400, -32600],
      [base, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), 400, -32000],
      [
        { ...base, 'mcp-session-id': 'unknown' },
        JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
        404,
        -32001,
      ],
    ];
    for (const [headers, payload, status, code] of cases) {
      const res = await app.inject({ method: 'POST', url: '/mcp', headers, payload });
      assert.equal(res.statusCode, status, `${payload}: ${res.body}`);
      assert.equal(res.json().error.code, code);
    }
  });

  it('serves a session: tools/list as JSON, notifications as 202, DELETE ends it', async () => {
    const session = await initialize(app);
    const headers = {
      ...MCP_HEADERS,
      host: '127.0.0.1',
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-06-18',
    };
    const note = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers,
      payload: { jsonrpc: '2.0', method: 'notifications/initialized' },
    });
    assert.equal(note.statusCode, 202);
    const list = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers,
      payload: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    });
    assert.equal(list.statusCode, 200);
    assert.match(list.headers['content-type'] as string, /application\/json/);
    assert.equal(
      Number(list.headers['content-length']),
      Buffer.byteLength(list.body),
      'a length, not chunks',
    );
    assert.equal(list.headers['transfer-encoding'], undefined);
    assert.deepEqual(
      list.json().result.tools.map((t: { name: string }) => t.name),
      ['exec_allowed', 'describe_toolchain'],
    );
    const badVersion = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...headers, 'mcp-protocol-version': '1999-01-01' },
      payload: { jsonrpc: '2.0', id: 3, method: 'ping' },
    });
    assert.equal(badVersion.statusCode, 400);
    const { 'content-type': _json, ...bodyless } = headers;
    const get = await app.inject({ method: 'GET', url: '/mcp', headers: bodyless });
    assert.equal(get.statusCode, 405);
    const del = await app.inject({ method: 'DELETE', url: '/mcp', headers: bodyless });
    assert.equal(del.statusCode, 200);
    const after = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers,
      payload: { jsonrpc: '2.0', id: 4, method: 'ping' },
    });
    assert.equal(after.statusCode, 404);
  });

  it('keeps sessions apart: one session id never answers for another', async () => {
    const a = await initialize(app);
    const b = await initialize(app);
    assert.notEqual(a, b);
  });

  it('serves /healthz, /readyz and Prometheus /metrics', async () => {
    const health = await app.inject({ method: 'GET', url: '/healthz', headers: { host: '10.0.0.7' } });
    assert.equal(health.statusCode, 200);
    const ready = await app.inject({ method: 'GET', url: '/readyz', headers: { host: '127.0.0.1' } });
    assert.equal(ready.statusCode, 200, ready.body);
    const session = await initialize(app);
    await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...MCP_HEADERS, host: '127.0.0.1', 'mcp-session-id': session },
      payload: {
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'exec_allowed', arguments: { command: ['find', '.', '-delete'] } },
      },
    });
    const metrics = await app.inject({ method: 'GET', url: '/metrics', headers: { host: '127.0.0.1' } });
    assert.equal(metrics.statusCode, 200);
    assert.match(metrics.headers['content-type'] as string, /text\/plain; version=0.0.4/);
    assert.match(metrics.body, /toolyard_tool_calls_total\{tool="exec_allowed",outcome="denied"\} 1/);
    assert.match(metrics.body, /toolyard_tool_calls_in_flight 0/);
    assert.match(metrics.body, /toolyard_tool_queue_depth 0/);
    assert.match(
      metrics.body,
      /toolyard_tool_call_duration_seconds_bucket\{tool="exec_allowed",le="\+Inf"\} 1/,
    );
    // find is not allowlisted in this config, so the denial is by the command allowlist
    assert.match(metrics.body, /toolyard_policy_denials_total\{rule="command-allowlist"\} 1/);
    const evil = await app.inject({ method: 'GET', url: '/metrics', headers: { host: 'evil.example.com' } });
    assert.equal(evil.statusCode, 403);
  });

  it('reports not ready when a root or binary is missing', async () => {
    const broken = buildServer({
      config: makeConfig(ws, {
        workspaceRoots: [ws.root, `${ws.root}/missing`],
        tools: { mode: 'exec', presets: [], allowedCommands: ['no-such-binary'] },
      }),
      env: { PATH: '/usr/bin' },
      log: () => {},
    });
    const res = await broken.inject({ method: 'GET', url: '/readyz' });
    assert.equal(res.statusCode, 503);
    assert.deepEqual(res.json().missingRoots, [`${ws.root}/missing`]);
    assert.deepEqual(res.json().missingBinaries, ['no-such-binary']);
    await broken.close();
  });
});

describe('bearer token', () => {
  let ws: Workspace;
  let app: FastifyInstance;
  const token = 's3cret-token-value';
  const log = memoryLog();
  before(() => {
    ws = makeWorkspace();
    writeFileSync(join(ws.outside, 'token'), `${token}\n`);
    app = buildServer({
      config: makeConfig(ws, { auth: { bearerTokenFile: join(ws.outside, 'token') } }),
      log: log.sink,
    });
  });
  after(async () => {
    await app.close();
    ws.cleanup();
  });

  it('requires the token on /mcp and /metrics, not on probes', async () => {
    for (const authorization of [
      undefined,
      'Bearer wrong',
      `Bearer ${token}x`,
      `Basic ${token}`,
      'Bearer ',
    ]) {
      const headers: Record<string, string> = { ...MCP_HEADERS, host: '127.0.0.1' };
      if (authorization !== undefined) headers.authorization = authorization;
      const res = await app.inject({ method: 'POST', url: '/mcp', headers, payload: INIT_BODY });
      assert.equal(res.statusCode, 401, String(authorization));
      assert.equal(res.headers['www-authenticate'], 'Bearer');
    }
    assert.equal(
      (await app.inject({ method: 'GET', url: '/metrics', headers: { host: '127.0.0.1' } })).statusCode,
      401,
    );
    assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    await initialize(app, { authorization: `Bearer ${token}` });
  });

  it('opens no session for a request without a valid token', async () => {
    for (let i = 0; i < 20; i++) {
      const res = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { ...MCP_HEADERS, host: '127.0.0.1' },
        payload: INIT_BODY,
      });
      assert.equal(res.statusCode, 401);
      assert.equal(res.headers['mcp-session-id'], undefined);
    }
    const metrics = await app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { host: '127.0.0.1', authorization: `Bearer ${token}` },
    });
    assert.match(
      metrics.body,
      /^toolyard_mcp_sessions 1$/m,
      'only the authenticated session of the test above',
    );
  });

  it('never passes the token to children or logs it', async () => {
    const base = await listen(app);
    const client = await connectClient(base, { authorization: `Bearer ${token}` });
    const result = await client.callTool({ name: 'exec_allowed', arguments: { command: ['printenv'] } });
    await client.close();
    const stdout = (result.structuredContent as { stdout: string }).stdout;
    assert.doesNotMatch(stdout, /TOOLYARD_TOKEN|s3cret/);
    assert.ok(log.lines.length > 0);
    assert.doesNotMatch(JSON.stringify(log.lines), /s3cret/);
  });

  it('refuses to build when the token file is missing or empty, and has no environment form', () => {
    writeFileSync(join(ws.outside, 'empty'), '\n');
    assert.throws(
      () =>
        buildServer({
          config: makeConfig(ws, { auth: { bearerTokenFile: join(ws.outside, 'empty') } }),
          log: () => {},
        }),
      /\/auth\/bearerTokenFile .*empty/,
    );
    const parsed = parseToolchainServerConfig({
      name: 'x',
      listen: { port: 0 },
      workspaceRoots: ['/w'],
      auth: { bearerTokenFile: '/t', bearerTokenEnv: 'TOKEN' },
    });
    assert.equal(parsed.ok, false);
    assert.match(JSON.stringify(!parsed.ok && parsed.issues), /bearerTokenEnv.*removed.*environ/);
    assert.throws(
      () =>
        buildServer({
          config: makeConfig(ws, { auth: { bearerTokenFile: `${ws.root}/nope` } }),
          env: {},
          log: () => {},
        }),
      /\/auth\/bearerTokenFile/,
    );
  });
});

describe('over real HTTP', () => {
  let ws: Workspace;
  let app: FastifyInstance;
  let base: string;
  before(async () => {
    ws = makeWorkspace();
    app = buildServer({
      config: makeConfig(ws),
      env: { PATH: process.env.PATH },
      log: () => {},
      toolchainOptions: { progressIntervalMs: 50 },
    });
    base = await listen(app);
  });
  after(async () => {
    await app.close();
    ws.cleanup();
  });

  it('answers the SDK client, streaming progress over SSE when asked', async () => {
    const client = await connectClient(base);
    const plain = await client.callTool({
      name: 'exec_allowed',
      arguments: { command: ['echo', 'over http'] },
    });
    assert.equal((plain.structuredContent as { stdout: string }).stdout, 'over http\n');
    const progress: number[] = [];
    const streamed = await client.callTool(
      { name: 'exec_allowed', arguments: { command: ['sleep', '0.3'] } },
      undefined,
      {
        onprogress: (p) => progress.push(p.progress),
      },
    );
    assert.equal(streamed.isError, false);
    assert.ok(progress.length >= 2, `received ${progress.length} progress notifications`);
    assert.equal(await client.ping().then(() => 'pong'), 'pong');
    await client.close();
  });

  it('serves only /healthz and /readyz on the health listener', async () => {
    const health = buildHealthServer(app.toolchain);
    const healthBase = await listen(health);
    try {
      assert.equal((await fetch(`${healthBase}/healthz`)).status, 200);
      assert.equal((await fetch(`${healthBase}/readyz`)).status, 200);
      assert.equal((await fetch(`${healthBase}/metrics`)).status, 404);
      const mcp = await fetch(`${healthBase}/mcp`, {
        method: 'POST',
        headers: MCP_HEADERS,
        body: JSON.stringify(INIT_BODY),
      });
      assert.equal(mcp.status, 404);
    } finally {
      await health.close();
    }
  });
});
