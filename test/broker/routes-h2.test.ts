/**
 * Routes to an upstream that offers HTTP/2 (as every model provider does): requests go over HTTP/2 streams
 * sharing one TLS connection, the real key arrives and the caller's token does not, the request body is
 * forwarded, SSE comes back chunk by chunk with its token usage audited, and a caller that goes away cancels
 * its upstream stream. Control: an HTTP/1.1-only upstream is still reached over HTTP/1.1.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { createSecureServer, type Http2SecureServer, type Http2ServerRequest } from 'node:http2';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { LOOPBACK_ALLOWED, startBroker, type TestBroker } from './helpers.ts';
import { makeTestCa, type TestCa } from './tls-fixture.ts';

const TOKEN = 'tok-claude-0123456789abcdef';
const KEY = 'sk-ant-REAL-KEY-h2-never-leaks';

/** What the fixture uses of a request and a response, HTTP/1.1 and HTTP/2 alike. */
type FixtureRequest = Pick<Http2ServerRequest, 'httpVersion' | 'headers' | 'setEncoding' | 'on'> & {
  readonly url?: string | undefined;
};
interface FixtureResponse {
  writeHead(status: number, headers: Record<string, string>): unknown;
  write(chunk: string): unknown;
  end(chunk: string): unknown;
  on(event: 'close', listener: () => void): unknown;
}

interface Seen {
  version: string;
  key: string | undefined;
  token: boolean;
  body: string;
}

describe('broker routes over HTTP/2', () => {
  let ca: TestCa;
  let h2: Http2SecureServer;
  let h1: HttpsServer;
  let h2Port = 0;
  let h1Port = 0;
  let broker: TestBroker;
  const seen: Seen[] = [];
  let h2Connections = 0;
  let cancelled = 0;
  const onRequest = (request: FixtureRequest, response: FixtureResponse) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      seen.push({
        version: request.httpVersion,
        key: request.headers['x-api-key'] as string | undefined,
        token: JSON.stringify(request.headers).includes(TOKEN),
        body,
      });
      if (request.url === '/v1/hold') {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write('data: {"type":"ping"}\n\n');
        response.on('close', () => {
          cancelled += 1;
        });
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream', 'x-upstream': 'yes' });
      let n = 0;
      const next = () => {
        n += 1;
        if (n === 3) {
          response.end(
            'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":7}}\n\n',
          );
          return;
        }
        response.write(`event: delta\ndata: {"n":${n}}\n\n`);
        setTimeout(next, 40);
      };
      next();
    });
  };

  before(async () => {
    ca = makeTestCa(['localhost']);
    h2 = createSecureServer({ cert: ca.cert, key: ca.key, allowHTTP1: true }, onRequest);
    h2.on('session', () => {
      h2Connections += 1;
    });
    // The same handler; Node's HTTP/1.1 request type differs only in the events it declares.
    h1 = createHttpsServer({ cert: ca.cert, key: ca.key }, (request, response) =>
      onRequest(request as unknown as FixtureRequest, response),
    );
    await new Promise<void>((resolve) => h2.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => h1.listen(0, '127.0.0.1', resolve));
    h2Port = (h2.address() as { port: number }).port;
    h1Port = (h1.address() as { port: number }).port;
    broker = await startBroker(
      {
        deniedCidrs: LOOPBACK_ALLOWED,
        extraCaFile: ca.caFile,
        routes: [
          {
            name: 'anthropic',
            kind: 'model',
            upstream: `https://localhost:${h2Port}`,
            credential: { header: 'x-api-key' },
          },
          {
            name: 'legacy',
            kind: 'model',
            upstream: `https://localhost:${h1Port}`,
            credential: { header: 'x-api-key' },
          },
        ],
        callers: [{ name: 'claude', routes: ['anthropic', 'legacy'] }],
      },
      { tokens: { claude: TOKEN }, keys: { anthropic: KEY, legacy: KEY } },
    );
  });
  after(async () => {
    await broker?.close();
    h2?.close();
    h1?.closeAllConnections();
    h1?.close();
    ca?.cleanup();
  });

  /** POSTs through the broker; resolves with the status, headers, and each chunk with its arrival time. */
  function post(route: string, path: string, body: string) {
    return new Promise<{
      status: number;
      headers: Record<string, unknown>;
      chunks: { at: number; text: string }[];
    }>((resolve, reject) => {
      const request = httpRequest(
        `${broker.url}/${route}${path}`,
        { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' } },
        (response) => {
          const chunks: { at: number; text: string }[] = [];
          response.setEncoding('utf8');
          response.on('data', (text: string) => chunks.push({ at: performance.now(), text }));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, headers: response.headers, chunks }),
          );
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  }

  it('streams SSE over HTTP/2 chunk by chunk, with the real key upstream, the body forwarded and usage audited', async () => {
    const before = seen.length;
    const result = await post('anthropic', '/v1/messages', '{"model":"m"}');
    assert.equal(result.status, 200);
    assert.equal(result.headers['x-upstream'], 'yes');
    const text = result.chunks.map((c) => c.text).join('');
    assert.match(text, /"n":1[\s\S]*"n":2[\s\S]*output_tokens/);
    assert.ok(result.chunks.length >= 3, `chunks arrive as sent, not buffered: ${result.chunks.length}`);
    assert.ok(
      result.chunks.at(-1)!.at - result.chunks[0]!.at >= 60,
      'the last event came ~80 ms after the first',
    );
    const upstream = seen[before]!;
    assert.equal(upstream.version, '2.0');
    assert.equal(upstream.key, KEY);
    assert.equal(upstream.token, false);
    assert.equal(upstream.body, '{"model":"m"}');
    const audit = broker.audits().at(-1)!;
    assert.equal(audit.decision, 'allowed');
    assert.equal(audit.status, 200);
    assert.equal(audit.address, '127.0.0.1');
    assert.deepEqual(audit.usage, {
      inputTokens: null,
      outputTokens: 7,
      cacheReadTokens: null,
      cacheWriteTokens: null,
    });
    assert.ok(!text.includes(KEY) && !JSON.stringify(broker.lines).includes(KEY));
  });

  it('carries concurrent streams on one connection', async () => {
    const connections = h2Connections;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post('anthropic', `/v1/m${i}`, '{}')),
    );
    assert.ok(results.every((r) => r.status === 200));
    assert.ok(
      h2Connections - connections <= 1,
      `${h2Connections - connections} new connections for 20 streams`,
    );
  });

  it('cancels the upstream stream when the caller goes away', async () => {
    const before = cancelled;
    await new Promise<void>((resolve, reject) => {
      const request = httpRequest(
        `${broker.url}/anthropic/v1/hold`,
        { method: 'POST', headers: { 'x-api-key': TOKEN } },
        (response) => {
          response.once('data', () => {
            request.destroy();
            resolve();
          });
        },
      );
      request.on('error', () => {});
      request.once('error', reject);
      request.end();
    });
    for (let i = 0; i < 50 && cancelled === before; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(cancelled, before + 1);
    const audit = broker.audits().at(-1)!;
    assert.equal(audit.reason, 'the caller went away before the response ended');
  });

  it('control: an upstream that offers only HTTP/1.1 is reached over HTTP/1.1', async () => {
    const before = seen.length;
    const result = await post('legacy', '/v1/messages', '{"x":1}');
    assert.equal(result.status, 200);
    assert.equal(seen[before]!.version, '1.1');
    assert.equal(seen[before]!.key, KEY);
    assert.equal(seen[before]!.body, '{"x":1}');
  });
});

describe('broker routes: an upstream whose TLS handshake never ends', () => {
  it('fails the request within limits.connectTimeoutMs and drops the stuck connection, so later requests do not queue on it', async () => {
    let accepted = 0;
    let closed = 0;
    const silent = createNetServer((socket) => {
      accepted += 1;
      socket.resume(); // reads the ClientHello and never answers; reading is how the close is seen
      socket.on('error', () => {});
      socket.on('close', () => {
        closed += 1;
      });
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const broker = await startBroker(
      {
        deniedCidrs: LOOPBACK_ALLOWED,
        limits: { connectTimeoutMs: 300 },
        routes: [{ name: 'stuck', kind: 'model', upstream: `https://localhost:${port}` }],
        callers: [{ name: 'claude', routes: ['stuck'] }],
      },
      { tokens: { claude: TOKEN } },
    );
    try {
      for (let i = 0; i < 2; i++) {
        const t = performance.now();
        const response = await fetch(`${broker.url}/stuck/v1/messages`, { headers: { 'x-api-key': TOKEN } });
        const text = await response.text();
        const ms = performance.now() - t;
        assert.ok(response.status === 502 || response.status === 504, text);
        assert.match(text, /TOOLYARD_BROKER_UPSTREAM_TIMEOUT/);
        assert.ok(ms < 2000, `request ${i} took ${Math.round(ms)} ms`);
        for (let w = 0; w < 50 && closed < accepted; w++) await new Promise((r) => setTimeout(r, 20));
        assert.equal(closed, accepted, 'the connection whose handshake never ended was closed');
      }
      assert.equal(accepted, 2, 'the second request opened a connection of its own');
    } finally {
      await broker.close();
      silent.close();
    }
  });
});
