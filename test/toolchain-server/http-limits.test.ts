/**
 * The HTTP layer under abuse, over real sockets: a full server never evicts a live session (503 with
 * Retry-After instead), idle sessions expire and busy ones do not, stalled bodies and silent or trickling
 * connections are cut, idle keep-alive connections close, no session exists without the token — and none of
 * these limits shortens a tool call.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../toolchain-server/src/http.ts';
import {
  INIT_BODY,
  listen,
  MCP_HEADERS,
  makeConfig,
  makeWorkspace,
  type Workspace,
  waitFor,
} from './helpers.ts';

const FAST = { headersMs: 300, requestMs: 500, keepAliveMs: 300, checkIntervalMs: 50 };

async function initialize(base: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...headers },
    body: JSON.stringify(INIT_BODY),
  });
}

async function listTools(
  base: string,
  session: string,
  headers: Record<string, string> = {},
): Promise<number> {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, 'mcp-session-id': session, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  await res.text();
  return res.status;
}

async function sessionsGauge(base: string, headers: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${base}/metrics`, { headers })).text();
  return Number(/^toolyard_mcp_sessions (\d+)$/m.exec(text)?.[1]);
}

/** Opens a raw connection, writes `data`, and resolves with what came back and when the server closed it. */
function rawExchange(
  port: number,
  data: string,
  waitMs: number,
): Promise<{ response: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket: Socket = connect(port, '127.0.0.1', () => {
      if (data) socket.write(data);
    });
    let response = '';
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(`the server kept the connection open for ${waitMs} ms; got ${JSON.stringify(response)}`),
      );
    }, waitMs);
    socket.on('data', (chunk) => {
      response += chunk.toString();
    });
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve({ response, closedAfterMs: Date.now() - started });
    });
    socket.on('error', () => {});
  });
}

describe('sessions: capped, never evicted', () => {
  let ws: Workspace;
  let app: FastifyInstance;
  let base: string;
  before(async () => {
    ws = makeWorkspace();
    app = buildServer({ config: makeConfig(ws), log: () => {}, maxSessions: 3, sessionIdleMs: 60_000 });
    base = await listen(app);
  });
  after(async () => {
    await app.close();
    ws.cleanup();
  });

  it('answers initialize beyond the cap with 503 and Retry-After, and every live session keeps working', async () => {
    const live: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await initialize(base);
      await res.text();
      assert.equal(res.status, 200);
      live.push(res.headers.get('mcp-session-id')!);
    }
    const flood = await Promise.all(
      Array.from({ length: 300 }, async () => {
        const res = await initialize(base);
        await res.text();
        return { status: res.status, retryAfter: res.headers.get('retry-after') };
      }),
    );
    for (const { status, retryAfter } of flood) {
      assert.equal(status, 503);
      const seconds = Number(retryAfter);
      assert.ok(Number.isInteger(seconds) && seconds >= 1 && seconds <= 60, `Retry-After ${retryAfter}`);
    }
    for (const session of live)
      assert.equal(await listTools(base, session), 200, 'a live session was evicted');
    assert.equal(await sessionsGauge(base), 3);
    // A session that ends frees its place.
    await fetch(`${base}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': live[0]! } });
    const next = await initialize(base);
    await next.text();
    assert.equal(next.status, 200);
  });
});

describe('sessions: idle ones expire, busy ones do not', () => {
  let ws: Workspace;
  let app: FastifyInstance;
  let base: string;
  before(async () => {
    ws = makeWorkspace();
    app = buildServer({ config: makeConfig(ws), log: () => {}, maxSessions: 2, sessionIdleMs: 300 });
    base = await listen(app);
  });
  after(async () => {
    await app.close();
    ws.cleanup();
  });

  it('closes a session idle past its time and keeps one whose call is still running', async () => {
    const idle = (await initialize(base)).headers.get('mcp-session-id')!;
    const busy = (await initialize(base)).headers.get('mcp-session-id')!;
    const call = fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-session-id': busy },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'exec_allowed', arguments: { command: ['sleep', '1'] } },
      }),
    }).then((r) => r.json() as Promise<{ result: { structuredContent: { exitCode: number } } }>);
    // Polling the idle session would keep it alive: watch the sessions gauge instead.
    await waitFor(async () => (await sessionsGauge(base)) === 1, 3000, 'the idle session to expire');
    assert.equal(await listTools(base, idle), 404);
    const answer = await call;
    assert.equal(answer.result.structuredContent.exitCode, 0, 'the busy session was not cut off');
    assert.equal(await listTools(base, busy), 200);
  });
});

describe('HTTP timeouts', () => {
  let ws: Workspace;
  let app: FastifyInstance;
  let base: string;
  let port: number;
  before(async () => {
    ws = makeWorkspace();
    app = buildServer({ config: makeConfig(ws), log: () => {}, timeouts: FAST });
    base = await listen(app);
    port = Number(new URL(base).port);
  });
  after(async () => {
    await app.close();
    ws.cleanup();
  });

  it('answers a stalled request body with 408 and closes the connection', async () => {
    const headers = [
      'POST /mcp HTTP/1.1',
      'Host: 127.0.0.1',
      'Content-Type: application/json',
      'Accept: application/json, text/event-stream',
      'Content-Length: 1000',
      '',
      '',
    ].join('\r\n');
    const { response, closedAfterMs } = await rawExchange(port, `${headers}{"jsonrpc":`, 5000);
    assert.match(response, /^HTTP\/1\.1 408/);
    assert.ok(closedAfterMs < 2000, `closed after ${closedAfterMs} ms`);
  });

  it('closes a connection that never sends anything', async () => {
    const { response, closedAfterMs } = await rawExchange(port, '', 5000);
    // Closed silently by the first-byte guard, or with a 408 by Node's header timeout: either way, closed.
    assert.match(response, /^(|HTTP\/1\.1 408[\s\S]*)$/, response);
    assert.ok(
      closedAfterMs >= FAST.headersMs - 50 && closedAfterMs < 2000,
      `closed after ${closedAfterMs} ms`,
    );
  });

  it('closes a connection whose headers trickle in and stop', async () => {
    const { closedAfterMs } = await rawExchange(port, 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n', 5000);
    assert.ok(closedAfterMs < 2000, `closed after ${closedAfterMs} ms`);
  });

  it('closes an idle keep-alive connection after the keep-alive time', async () => {
    const { response, closedAfterMs } = await rawExchange(
      port,
      'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n',
      5000,
    );
    assert.match(response, /^HTTP\/1\.1 200/);
    assert.ok(
      closedAfterMs >= FAST.keepAliveMs - 50 && closedAfterMs < 2000,
      `closed after ${closedAfterMs} ms`,
    );
  });

  it('lets a tool call run longer than every HTTP timeout', async () => {
    const session = (await initialize(base)).headers.get('mcp-session-id')!;
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-session-id': session },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: { name: 'exec_allowed', arguments: { command: ['sleep', '1.2'] } },
      }),
    });
    const answer = (await res.json()) as { result: { structuredContent: { exitCode: number } } };
    assert.equal(answer.result.structuredContent.exitCode, 0);
  });
});

describe('auth before session', () => {
  let ws: Workspace;
  let app: FastifyInstance;
  let base: string;
  let port: number;
  const token = 'auth-before-session-token';
  const bearer = { authorization: `Bearer ${token}` };
  before(async () => {
    ws = makeWorkspace();
    writeFileSync(join(ws.outside, 'token'), token);
    app = buildServer({
      config: makeConfig(ws, { auth: { bearerTokenFile: join(ws.outside, 'token') } }),
      log: () => {},
      maxSessions: 2,
      // A body gets 5 s here: long enough for a 300-request flood on a busy machine, and far longer than
      // the refusal below may take.
      timeouts: { ...FAST, headersMs: 5000, requestMs: 5000 },
    });
    base = await listen(app);
    port = Number(new URL(base).port);
  });
  after(async () => {
    await app.close();
    ws.cleanup();
  });

  it('opens no session for 300 initialize requests without the token, so they cannot fill the cap', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 300 }, async (_, i) => {
        const res = await initialize(base, i % 2 ? { authorization: 'Bearer wrong' } : {});
        await res.text();
        assert.equal(res.headers.get('mcp-session-id'), null);
        return res.status;
      }),
    );
    assert.deepEqual([...new Set(statuses)], [401]);
    assert.equal(await sessionsGauge(base, bearer), 0);
    const res = await initialize(base, bearer);
    await res.text();
    assert.equal(res.status, 200);
  });

  it('refuses a request without the token before reading its body', async () => {
    const headers = [
      'POST /mcp HTTP/1.1',
      'Host: 127.0.0.1',
      'Content-Type: application/json',
      'Accept: application/json, text/event-stream',
      'Content-Length: 1000000',
      '',
      '',
    ].join('\r\n');
    const started = Date.now();
    const answered = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(headers));
      let response = '';
      socket.on('data', (chunk) => {
        response += chunk.toString();
        if (response.includes('\r\n\r\n')) {
          socket.destroy();
          resolve(response);
        }
      });
      socket.on('error', () => {});
    });
    assert.match(answered, /^HTTP\/1\.1 401/);
    assert.ok(Date.now() - started < 2000, 'answered without waiting for the body (which never comes)');
  });
});

describe('Host header with an invalid port', () => {
  let ws: Workspace;
  let app: FastifyInstance;
  let port: number;
  before(async () => {
    ws = makeWorkspace();
    // Default timeouts: nothing but the Host check itself may close the connection within the test's wait.
    app = buildServer({ config: makeConfig(ws), log: () => {} });
    port = Number(new URL(await listen(app)).port);
  });
  after(async () => {
    await app.close();
    ws.cleanup();
  });

  // Once, `localhost:99999999` passed the Host check (its hostname is loopback) and a modern-era request then
  // built a URL from it after the reply was taken over: the URL threw and the socket hung with no answer.
  for (const host of ['localhost:99999999', 'localhost:0', 'localhost:8x', '127.0.0.1:', 'local host']) {
    it(`answers Host ${JSON.stringify(host)} with 403 and closes, whatever the request`, async () => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
      });
      const request = [
        'POST /mcp HTTP/1.1',
        `Host: ${host}`,
        'Content-Type: application/json',
        'Accept: application/json, text/event-stream',
        'MCP-Protocol-Version: 2026-07-28',
        'Mcp-Method: tools/list',
        `Content-Length: ${Buffer.byteLength(body)}`,
        '',
        body,
      ].join('\r\n');
      const { response, closedAfterMs } = await rawExchange(port, request, 3000);
      assert.match(response, /^HTTP\/1\.1 (403|400) /, response);
      assert.ok(closedAfterMs < 1000, `closed after ${closedAfterMs} ms`);
    });
  }
});
