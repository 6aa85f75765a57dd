/**
 * Protocol revisions over real HTTP with the current official SDK client (@modelcontextprotocol/client): the
 * newest revision it supports, reached through `server/discover`, and every 2025 revision from 2025-03-26.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { isLegacyRequest, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/server';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../toolchain-server/src/http.ts';
import { isModernRequest } from '../../toolchain-server/src/modern.ts';
import {
  listen,
  MCP_HEADERS,
  makeConfig,
  makeWorkspace,
  memoryLog,
  pidAlive,
  type Workspace,
  waitFor,
} from './helpers.ts';
import { readPid } from './process-helpers.ts';

/** The revisions the SDK negotiates through `server/discover` (2026-07-28 onwards). */
const MODERN_REVISION = '2026-07-28';
const LEGACY_REVISIONS = ['2025-03-26', '2025-06-18', LATEST_PROTOCOL_VERSION];

/** A raw 2026-07-28 request: the per-request `_meta` envelope and the standard headers. */
function modernPost(
  baseUrl: string,
  id: number,
  method: string,
  params: Record<string, unknown>,
  signal?: AbortSignal,
) {
  return fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    signal,
    headers: {
      ...MCP_HEADERS,
      'mcp-protocol-version': MODERN_REVISION,
      'mcp-method': method,
      ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
}

async function connect(baseUrl: string, options: ConstructorParameters<typeof Client>[1]): Promise<Client> {
  const client = new Client({ name: 'toolyard-protocol-test', version: '1.0.0' }, options);
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`)));
  return client;
}

async function echoThrough(client: Client, word: string): Promise<string> {
  const result = await client.callTool({ name: 'exec_allowed', arguments: { command: ['echo', word] } });
  assert.notEqual(result.isError, true, JSON.stringify(result));
  return String((result.structuredContent as { stdout: string }).stdout).trim();
}

describe('protocol revisions (official SDK client over HTTP)', () => {
  let ws: Workspace;
  let app: FastifyInstance;
  let baseUrl: string;
  before(async () => {
    ws = makeWorkspace();
    app = buildServer({ config: makeConfig(ws), env: { PATH: process.env.PATH }, log: memoryLog().sink });
    baseUrl = await listen(app);
  });
  after(async () => {
    await app.close();
    ws.cleanup();
  });

  it(`negotiates ${MODERN_REVISION} through server/discover when the client auto-negotiates`, async () => {
    const client = await connect(baseUrl, { versionNegotiation: { mode: 'auto' } });
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), MODERN_REVISION);
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'exec_allowed'));
      assert.equal(await echoThrough(client, 'modern-nonce'), 'modern-nonce');
    } finally {
      await client.close();
    }
  });

  it(`serves a client pinned to ${MODERN_REVISION} (no fallback)`, async () => {
    const client = await connect(baseUrl, { versionNegotiation: { mode: { pin: MODERN_REVISION } } });
    try {
      assert.equal(await echoThrough(client, 'pinned'), 'pinned');
    } finally {
      await client.close();
    }
  });

  for (const revision of LEGACY_REVISIONS) {
    it(`serves the initialize handshake at ${revision}`, async () => {
      const client = await connect(baseUrl, { supportedProtocolVersions: [revision] });
      try {
        assert.equal(client.getNegotiatedProtocolVersion(), revision);
        assert.equal(await echoThrough(client, `legacy-${revision}`), `legacy-${revision}`);
      } finally {
        await client.close();
      }
    });
  }

  it('answers a raw server/discover with the revisions, capabilities and server info', async () => {
    const response = await modernPost(baseUrl, 7, 'server/discover', {});
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('mcp-session-id'), null, 'the modern revision has no sessions');
    const body = (await response.json()) as {
      id: number;
      result: {
        supportedVersions: string[];
        capabilities: { tools?: unknown };
        _meta: Record<string, { name: string }>;
      };
    };
    assert.equal(body.id, 7);
    assert.ok(body.result.supportedVersions.includes(MODERN_REVISION), JSON.stringify(body.result));
    assert.ok(body.result.capabilities.tools);
    assert.equal(body.result._meta['io.modelcontextprotocol/serverInfo']?.name, 'toolyard-toolchain-test');
  });

  it('answers an unknown tool with -32602 and a bare message in both eras', async () => {
    for (const options of [{}, { versionNegotiation: { mode: 'auto' as const } }]) {
      const client = await connect(baseUrl, options);
      try {
        await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (error: Error) => {
          assert.equal((error as Error & { code?: number }).code, -32602);
          assert.equal(error.message, 'Unknown tool: no_such_tool');
          return true;
        });
      } finally {
        await client.close();
      }
    }
  });

  it('kills the child when a 2026-07-28 client disconnects mid-call', async () => {
    writeFileSync(join(ws.root, 'spawn.sh'), 'sleep 60 & echo $! > "$1"; wait\n');
    const pidFile = join(ws.root, 'modern-disconnect.pid');
    const controller = new AbortController();
    const pending = modernPost(
      baseUrl,
      9,
      'tools/call',
      { name: 'exec_allowed', arguments: { command: ['sh', 'spawn.sh', pidFile] } },
      controller.signal,
    ).catch((error: Error) => error);
    await waitFor(() => readPid(pidFile) !== undefined, 5000, 'child to start');
    const grandchild = readPid(pidFile) as number;
    controller.abort();
    assert.ok((await pending) instanceof Error);
    await waitFor(() => !pidAlive(grandchild), 5000, 'child of the disconnected call to die');
  });

  it('lists output schemas with one `type` per schema (nullable fields as anyOf)', async () => {
    const client = await connect(baseUrl, {});
    try {
      const { tools } = await client.listTools();
      const arrayTypes: string[] = [];
      const visit = (node: unknown, path: string): void => {
        if (node === null || typeof node !== 'object') return;
        for (const [key, value] of Object.entries(node)) {
          if (key === 'type' && Array.isArray(value)) arrayTypes.push(path);
          else visit(value, `${path}/${key}`);
        }
      };
      for (const tool of tools) visit(tool, tool.name);
      assert.deepEqual(arrayTypes, []);
      const exec = tools.find((t) => t.name === 'exec_allowed');
      const properties = exec?.outputSchema?.properties as Record<string, { anyOf?: unknown }> | undefined;
      assert.deepEqual(properties?.signal?.anyOf, [{ type: 'string' }, { type: 'null' }]);
    } finally {
      await client.close();
    }
  });
});

describe('era routing', () => {
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const cases: { name: string; headers: Record<string, string>; body: unknown }[] = [
    { name: 'initialize', headers: {}, body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} } },
    {
      name: 'a session call',
      headers: { 'mcp-protocol-version': '2025-06-18' },
      body: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    },
    { name: 'a notification', headers: {}, body: { jsonrpc: '2.0', method: 'notifications/initialized' } },
    { name: 'a batch', headers: {}, body: [{ jsonrpc: '2.0', id: 3, method: 'ping' }] },
    {
      name: 'server/discover',
      headers: { 'mcp-protocol-version': MODERN_REVISION, 'mcp-method': 'server/discover' },
      body: { jsonrpc: '2.0', id: 4, method: 'server/discover', params: { _meta: envelope } },
    },
    {
      name: 'a modern header without the envelope',
      headers: { 'mcp-protocol-version': MODERN_REVISION },
      body: { jsonrpc: '2.0', id: 5, method: 'tools/list' },
    },
    {
      name: 'an envelope whose version disagrees with the header',
      headers: { 'mcp-protocol-version': '2025-06-18' },
      body: { jsonrpc: '2.0', id: 6, method: 'tools/list', params: { _meta: envelope } },
    },
    {
      name: 'a batch with a modern element',
      headers: {},
      body: [{ jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: envelope } }],
    },
  ];
  for (const { name, headers, body } of cases) {
    it(`routes ${name} as the SDK's isLegacyRequest does`, async () => {
      const request = new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: { ...MCP_HEADERS, ...headers },
        body: JSON.stringify(body),
      });
      assert.equal(isModernRequest({ ...MCP_HEADERS, ...headers }, body), !(await isLegacyRequest(request)));
    });
  }
});
