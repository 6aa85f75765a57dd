/**
 * Routes against a real TLS upstream on 127.0.0.1 (test CA): the real key arrives upstream and the caller's
 * token never does; responses stream chunk by chunk; malformed and smuggling requests are refused with coded
 * JSON; no key or token appears in any response, error or log line.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BROKER_AUDIT_FIELDS } from '../../toolchain-server/broker/audit.ts';
import {
  LOOPBACK_ALLOWED,
  rawExchange,
  startBroker,
  startUpstream,
  type TestBroker,
  type Upstream,
} from './helpers.ts';
import { makeTestCa, type TestCa } from './tls-fixture.ts';

const CLAUDE_TOKEN = 'tok-claude-0123456789abcdef';
const GEMINI_TOKEN = 'tok-gemini-fedcba9876543210';
const ANTHROPIC_KEY = 'sk-ant-REAL-KEY-must-never-leak';
const GEMINI_KEY = 'AIza-REAL-GEMINI-KEY-never-leak';
const SECRETS = [CLAUDE_TOKEN, GEMINI_TOKEN, ANTHROPIC_KEY, GEMINI_KEY];

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: string;
}

function assertNoSecret(text: string, where: string): void {
  for (const secret of SECRETS) assert.ok(!text.includes(secret), `${where} holds a secret: ${text}`);
}

describe('broker routes', () => {
  let ca: TestCa;
  let upstream: Upstream;
  let broker: TestBroker;
  const seen: Seen[] = [];
  let release: (() => void) | undefined;
  const firstChunkArrived = () =>
    new Promise<void>((resolve) => {
      release = resolve;
    });

  before(async () => {
    ca = makeTestCa(['localhost']);
    upstream = await startUpstream(ca, (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', async () => {
        seen.push({
          method: request.method ?? '',
          url: request.url ?? '',
          headers: request.headers,
          rawHeaders: request.rawHeaders,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        if (request.url?.startsWith('/v1/messages')) {
          response.writeHead(200, { 'content-type': 'text/event-stream', connection: 'keep-alive' });
          const waiting = firstChunkArrived();
          response.write(
            'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":25,"output_tokens":1,"cache_read_input_tokens":7}}}\n\n',
          );
          // The rest is sent only once the client has the first chunk: a buffering proxy never completes.
          await waiting;
          response.write(
            'event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"text":"hi"}}\n\n',
          );
          response.write(
            'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":42}}\n\n',
          );
          response.end('event: message_stop\ndata: {"type":"message_stop"}\n\n');
          return;
        }
        if (request.url?.includes('generateContent')) {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({
              candidates: [],
              usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 5 },
            }),
          );
          return;
        }
        response.writeHead(404, { 'content-type': 'application/json', 'set-cookie': 'a=b' });
        response.end('{"error":"not here"}');
      });
    });
    broker = await startBroker(
      {
        deniedCidrs: LOOPBACK_ALLOWED,
        extraCaFile: ca.caFile,
        routes: [
          {
            name: 'anthropic',
            kind: 'model',
            upstream: upstream.origin,
            credential: { header: 'x-api-key' },
          },
          {
            name: 'gemini',
            kind: 'model',
            upstream: `${upstream.origin}/base`,
            credential: { header: 'x-goog-api-key' },
          },
        ],
        callers: [
          { name: 'claude', routes: ['anthropic'] },
          { name: 'gemini', routes: ['gemini'] },
        ],
      },
      {
        tokens: { claude: CLAUDE_TOKEN, gemini: GEMINI_TOKEN },
        keys: { anthropic: ANTHROPIC_KEY, gemini: GEMINI_KEY },
      },
    );
  });
  after(async () => {
    await broker?.close();
    await upstream?.close();
    ca?.cleanup();
  });

  it('streams SSE chunk by chunk, with the real key upstream and the caller token dropped in every casing', async () => {
    seen.length = 0;
    const body = JSON.stringify({ model: 'claude', stream: true });
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(
        `${broker.url}/anthropic/v1/messages?beta=true`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'X-Api-Key': CLAUDE_TOKEN,
            Authorization: `Bearer ${CLAUDE_TOKEN}`,
            Cookie: `session=${CLAUDE_TOKEN}`,
            'Proxy-Authorization': `Bearer ${CLAUDE_TOKEN}`,
            'X-Forwarded-For': '10.0.0.1',
            'anthropic-version': '2023-06-01',
          },
        },
        (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => {
            text += chunk.toString('utf8');
            if (text.includes('message_start')) release?.();
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    assert.equal(status, 200);
    assert.match(text, /message_stop/);
    const got = seen[0]!;
    assert.equal(got.url, '/v1/messages?beta=true');
    assert.equal(got.headers['x-api-key'], ANTHROPIC_KEY);
    assert.equal(got.headers.authorization, undefined);
    assert.equal(got.headers.cookie, undefined);
    assert.equal(got.headers['proxy-authorization'], undefined);
    assert.equal(got.headers['x-forwarded-for'], undefined);
    assert.equal(got.headers['anthropic-version'], '2023-06-01');
    assert.equal(got.headers.host, `localhost:${upstream.port}`);
    assert.equal(got.body, body);
    assert.ok(
      !JSON.stringify(got.rawHeaders).includes(CLAUDE_TOKEN),
      'the caller token reached the upstream',
    );
    await new Promise((r) => setTimeout(r, 20));
    const audit = broker.audits().at(-1)!;
    assert.deepEqual(Object.keys(audit), Object.keys(BROKER_AUDIT_FIELDS), 'every field, in table order');
    assert.equal(audit.agent, 'reviewer');
    assert.equal(audit.kind, 'route');
    assert.equal(audit.target, upstream.origin);
    assert.equal(audit.rule, 'route:anthropic');
    assert.equal(audit.method, 'POST');
    assert.equal(audit.code, null);
    assert.ok(typeof audit.durationMs === 'number' && audit.durationMs >= 0);
    assert.equal(audit.caller, 'claude');
    assert.equal(audit.route, 'anthropic');
    assert.equal(audit.decision, 'allowed');
    assert.equal(audit.status, 200);
    assert.equal(audit.path, '/v1/messages');
    assert.equal(audit.bytesIn, Buffer.byteLength(body));
    assert.equal(audit.bytesOut, Buffer.byteLength(text));
    assert.deepEqual(audit.usage, {
      inputTokens: 25,
      outputTokens: 42,
      cacheReadTokens: 7,
      cacheWriteTokens: null,
    });
  });

  it('takes a Gemini key from ?key=, drops it from the query and sets the real header', async () => {
    seen.length = 0;
    const response = await fetch(
      `${broker.url}/gemini/v1beta/models/gemini-pro:generateContent?alt=json&key=${GEMINI_TOKEN}&x=1`,
      { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } },
    );
    assert.equal(response.status, 200);
    await response.text();
    assert.equal(seen[0]!.url, '/base/v1beta/models/gemini-pro:generateContent?alt=json&x=1');
    assert.equal(seen[0]!.headers['x-goog-api-key'], GEMINI_KEY);
    await new Promise((r) => setTimeout(r, 20));
    const audit = broker.audits().at(-1)!;
    assert.equal(audit.caller, 'gemini');
    assert.deepEqual(audit.usage, {
      inputTokens: 11,
      outputTokens: 5,
      cacheReadTokens: null,
      cacheWriteTokens: null,
    });
  });

  it('passes upstream errors through without hop-by-hop headers or cookies', async () => {
    const response = await fetch(`${broker.url}/anthropic/nope`, { headers: { 'x-api-key': CLAUDE_TOKEN } });
    assert.equal(response.status, 404);
    assert.equal(response.headers.get('set-cookie'), null);
    assert.equal(await response.text(), '{"error":"not here"}');
  });

  const refusals: [string, RequestInit & { path: string }, number, string][] = [
    ['no token', { path: '/anthropic/v1/messages' }, 401, 'TOOLYARD_BROKER_UNAUTHENTICATED'],
    [
      'a wrong token',
      { path: '/anthropic/x', headers: { 'x-api-key': 'nope' } },
      401,
      'TOOLYARD_BROKER_UNAUTHENTICATED',
    ],
    [
      "another caller's route",
      { path: '/gemini/x', headers: { 'x-api-key': CLAUDE_TOKEN } },
      403,
      'TOOLYARD_BROKER_ROUTE_NOT_ALLOWED',
    ],
    [
      'tokens of two callers',
      { path: '/anthropic/x', headers: { 'x-api-key': CLAUDE_TOKEN, 'x-goog-api-key': GEMINI_TOKEN } },
      401,
      'TOOLYARD_BROKER_UNAUTHENTICATED',
    ],
    [
      'an unknown route',
      { path: '/openai/x', headers: { 'x-api-key': CLAUDE_TOKEN } },
      404,
      'TOOLYARD_BROKER_ROUTE_UNKNOWN',
    ],
  ];
  for (const [name, init, status, code] of refusals) {
    it(`refuses ${name} with ${status} ${code}`, async () => {
      const response = await fetch(`${broker.url}${init.path}`, init);
      const text = await response.text();
      assert.equal(response.status, status, text);
      assert.equal(JSON.parse(text).error.code, code);
      assertNoSecret(text, 'the error body');
    });
  }

  const raw: [string, string, number][] = [
    [
      'an absolute-URI target',
      'GET http://evil.example/anthropic/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
      400,
    ],
    ['an encoded dot', 'GET /anthropic/%2e%2e/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 400],
    ['an encoded slash', 'GET /anthropic/a%2Fb HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 400],
    ['a dot-dot segment', 'GET /anthropic/../gemini/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 400],
    [
      'a dot-dot segment with a path parameter',
      'GET /anthropic/..;x/admin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
      400,
    ],
    ['a duplicate Host', 'GET /anthropic/x HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n', 400],
    [
      'Content-Length with Transfer-Encoding',
      'POST /anthropic/x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
    ],
    [
      'a duplicate Content-Length',
      'POST /anthropic/x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}',
      400,
    ],
    [
      'an h2c upgrade',
      'GET /anthropic/x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n',
      400,
    ],
    [
      'a websocket upgrade',
      'GET /anthropic/x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
      400,
    ],
    [
      'a foreign Host',
      `GET /anthropic/x HTTP/1.1\r\nHost: evil.example\r\nx-api-key: ${CLAUDE_TOKEN}\r\n\r\n`,
      403,
    ],
    ['a Host with an invalid port', 'GET /anthropic/x HTTP/1.1\r\nHost: localhost:99999999\r\n\r\n', 403],
    [
      'headers over limits.maxHeaderBytes',
      `GET /anthropic/x HTTP/1.1\r\nHost: 127.0.0.1\r\nx-pad: ${'a'.repeat(40 * 1024)}\r\n\r\n`,
      431,
    ],
    ['an asterisk target', 'OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 400],
    ['a backslash in the path', 'GET /anthropic/..\\gemini/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 400],
    [
      'Transfer-Encoding other than chunked',
      'POST /anthropic/x HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n',
      400,
    ],
  ];
  for (const [name, bytes, status] of raw) {
    it(`refuses ${name} with ${status} and never reaches the upstream`, async () => {
      seen.length = 0;
      const reply = await rawExchange(
        broker.port,
        bytes.replace('\r\n\r\n', `\r\nx-api-key: ${CLAUDE_TOKEN}\r\n\r\n`),
      );
      assert.match(reply, new RegExp(`^HTTP/1\\.1 ${status} `), reply);
      assert.ok(!reply.endsWith('<<timeout>>') || status !== 400, `the connection stayed open: ${reply}`);
      assert.equal(seen.length, 0);
      assertNoSecret(reply, 'the reply');
    });
  }

  it('refuses an upstream whose certificate the broker does not trust', async () => {
    const other = makeTestCa(['localhost']);
    const rogue = await startUpstream(other, (_q, s) => s.end('rogue'));
    const b = await startBroker(
      {
        deniedCidrs: LOOPBACK_ALLOWED,
        extraCaFile: ca.caFile,
        routes: [
          { name: 'anthropic', kind: 'model', upstream: rogue.origin, credential: { header: 'x-api-key' } },
        ],
        callers: [{ name: 'claude', routes: ['anthropic'] }],
      },
      { tokens: { claude: CLAUDE_TOKEN }, keys: { anthropic: ANTHROPIC_KEY } },
    );
    try {
      const response = await fetch(`${b.url}/anthropic/v1/messages`, {
        headers: { 'x-api-key': CLAUDE_TOKEN },
      });
      const text = await response.text();
      assert.equal(response.status, 502);
      assert.equal(JSON.parse(text).error.code, 'TOOLYARD_BROKER_UPSTREAM_FAILED');
      assert.match(text, /UNABLE_TO_VERIFY|SELF_SIGNED|certificate/i);
    } finally {
      await b.close();
      await rogue.close();
      other.cleanup();
    }
  });

  it('refuses an upstream whose certificate, from a trusted CA, names another host', async () => {
    const other = ca.issue(['other.example']);
    const wrong = await startUpstream({ ...ca, cert: other.cert, key: other.key }, (_q, s) => s.end('wrong'));
    const b = await startBroker(
      {
        deniedCidrs: LOOPBACK_ALLOWED,
        extraCaFile: ca.caFile,
        routes: [
          { name: 'anthropic', kind: 'model', upstream: wrong.origin, credential: { header: 'x-api-key' } },
        ],
        callers: [{ name: 'claude', routes: ['anthropic'] }],
      },
      { tokens: { claude: CLAUDE_TOKEN }, keys: { anthropic: ANTHROPIC_KEY } },
    );
    try {
      const response = await fetch(`${b.url}/anthropic/v1/messages`, {
        headers: { 'x-api-key': CLAUDE_TOKEN },
      });
      const text = await response.text();
      assert.equal(response.status, 502);
      assert.match(text, /ERR_TLS_CERT_ALTNAME_INVALID/);
      assertNoSecret(text, 'the error body');
    } finally {
      await b.close();
      await wrong.close();
    }
  });

  it('forwards to a plain-HTTP upstream only when the route says insecureHttp', async () => {
    const { createServer } = await import('node:http');
    let seenKey: string | undefined;
    const paths: string[] = [];
    const plain = createServer((q, s) => {
      seenKey = q.headers['x-api-key'] as string;
      paths.push(q.url ?? '');
      s.end('plain ok');
    });
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    const port = (plain.address() as { port: number }).port;
    const b = await startBroker(
      {
        deniedCidrs: LOOPBACK_ALLOWED,
        routes: [
          {
            name: 'double',
            kind: 'gateway',
            upstream: `http://127.0.0.1:${port}/mcp`,
            insecureHttp: true,
            credential: { header: 'x-api-key' },
          },
        ],
        callers: [{ name: 'claude', routes: ['double'] }],
      },
      { tokens: { claude: CLAUDE_TOKEN }, keys: { double: ANTHROPIC_KEY } },
    );
    try {
      const response = await fetch(`${b.url}/double`, {
        headers: { authorization: `Bearer ${CLAUDE_TOKEN}` },
      });
      assert.equal(response.status, 200);
      assert.equal(await response.text(), 'plain ok');
      assert.equal(seenKey, ANTHROPIC_KEY);
      await (
        await fetch(`${b.url}/double/sessions/1?x=1`, {
          headers: { authorization: `Bearer ${CLAUDE_TOKEN}` },
        })
      ).text();
      assert.deepEqual(paths, ['/mcp', '/mcp/sessions/1?x=1']);
    } finally {
      await b.close();
      plain.close();
    }
  });

  it('writes no secret to any log line, and counts requests in /metrics', async () => {
    assertNoSecret(JSON.stringify(broker.lines), 'the log');
    const metrics = await (await fetch(`http://127.0.0.1:${broker.healthPort}/metrics`)).text();
    assert.match(
      metrics,
      /toolyard_broker_requests_total\{caller="claude",kind="route",target="anthropic",decision="allowed",status="200"\} 1/,
    );
    assert.match(
      metrics,
      /toolyard_broker_tokens_total\{caller="claude",route="anthropic",type="output"\} 42/,
    );
    assert.match(
      metrics,
      /toolyard_broker_request_duration_seconds_count\{caller="claude",kind="route",target="anthropic"\} \d+/,
    );
    assert.match(
      metrics,
      /toolyard_broker_bytes_total\{caller="claude",kind="route",target="anthropic",direction="out"\} \d+/,
    );
    assert.match(
      metrics,
      /toolyard_broker_requests_total\{caller="-",kind="route",target="-",decision="denied",status="401"\} \d+/,
    );
    assertNoSecret(metrics, '/metrics');
    const health = await fetch(`http://127.0.0.1:${broker.healthPort}/healthz`);
    assert.equal(health.status, 200);
    const ready = await fetch(`http://127.0.0.1:${broker.healthPort}/readyz`);
    assert.equal(ready.status, 200);
  });
});

describe('broker routes: secrets reload and limits', () => {
  let ca: TestCa;
  let upstream: Upstream;
  const keys: string[] = [];
  let hold: (() => void)[] = [];

  before(async () => {
    ca = makeTestCa(['localhost']);
    upstream = await startUpstream(ca, (request, response) => {
      keys.push(String(request.headers.authorization));
      if (request.url === '/hold') {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write('data: {}\n\n');
        hold.push(() => response.end());
        return;
      }
      response.end('ok');
    });
  });
  after(async () => {
    for (const release of hold) release();
    await upstream?.close();
    ca?.cleanup();
  });

  it('uses the new key after reloadSecrets, and keeps the old secrets when a file is bad', async () => {
    const broker = await startBroker(
      {
        deniedCidrs: LOOPBACK_ALLOWED,
        extraCaFile: ca.caFile,
        routes: [
          {
            name: 'openai',
            kind: 'model',
            upstream: upstream.origin,
            credential: { header: 'authorization', prefix: 'Bearer ' },
          },
        ],
        callers: [{ name: 'codex', routes: ['openai'] }],
      },
      { tokens: { codex: 'tok-codex-00000000' }, keys: { openai: 'sk-old' } },
    );
    try {
      const call = async () => {
        const response = await fetch(`${broker.url}/openai/v1/responses`, {
          headers: { authorization: 'Bearer tok-codex-00000000' },
        });
        await response.text();
        return response.status;
      };
      assert.equal(await call(), 200);
      assert.equal(keys.at(-1), 'Bearer sk-old');
      writeFileSync(join(broker.dir, 'key-openai'), 'sk-new\n');
      broker.broker.reloadSecrets();
      assert.equal(await call(), 200);
      assert.equal(keys.at(-1), 'Bearer sk-new');
      writeFileSync(join(broker.dir, 'key-openai'), '\n');
      assert.throws(() => broker.broker.reloadSecrets(), /\/routes\/0\/credential\/file .* is empty/);
      assert.equal(await call(), 200);
      assert.equal(keys.at(-1), 'Bearer sk-new');
    } finally {
      await broker.close();
    }
  });

  it('refuses a caller beyond limits.maxConnectionsPerCaller with 429 while its stream is open', async () => {
    const broker = await startBroker(
      {
        deniedCidrs: LOOPBACK_ALLOWED,
        extraCaFile: ca.caFile,
        limits: { maxConnectionsPerCaller: 1 },
        routes: [{ name: 'openai', kind: 'model', upstream: upstream.origin }],
        callers: [{ name: 'codex', routes: ['openai'] }],
      },
      { tokens: { codex: 'tok-codex-00000000' } },
    );
    try {
      const headers = { authorization: 'Bearer tok-codex-00000000' };
      const open = await fetch(`${broker.url}/openai/hold`, { headers });
      assert.equal(open.status, 200);
      const second = await fetch(`${broker.url}/openai/other`, { headers });
      assert.equal(second.status, 429);
      assert.equal(
        ((await second.json()) as { error: { code: string } }).error.code,
        'TOOLYARD_BROKER_TOO_MANY_CONNECTIONS',
      );
      for (const release of hold) release();
      hold = [];
      await open.text();
      await new Promise((r) => setTimeout(r, 20));
      const third = await fetch(`${broker.url}/openai/other`, { headers });
      assert.equal(third.status, 200);
      await third.text();
    } finally {
      await broker.close();
    }
  });
});
