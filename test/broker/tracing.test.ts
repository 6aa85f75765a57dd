/**
 * The broker's spans (docs/observability.md): a model request continues the caller's traceparent, goes
 * upstream with the broker span as its parent, and carries the route, upstream host, status, bytes and the
 * provider's token usage — never the key, the caller's token, the path or the body. Callers export through
 * the telemetry route (its credential set by the broker), whose own requests are never traced; the broker's
 * spans leave through that same route. Tunnels are spans too.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.ts';
import {
  basicAuth,
  connectVia,
  LOOPBACK_ALLOWED,
  startBroker,
  startUpstream,
  type TestBroker,
  type Upstream,
} from './helpers.ts';
import { makeTestCa, type TestCa } from './tls-fixture.ts';

const TRACE = '6bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = `00-${TRACE}-20f067aa0ba902b7-01`;
const CLAUDE_TOKEN = 'tok-claude-trace-0123456789';
const TOOLCHAIN_TOKEN = 'tok-toolchain-trace-9876543210';
const MODEL_KEY = 'sk-ant-REAL-KEY-trace-never-leaks';
const OTLP_KEY = 'otlp-ingest-key-never-leaks';
const PROMPT_CANARY = 'prompt-canary-4f3e2d1c';

function post(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

describe('broker spans', () => {
  let ca: TestCa;
  let upstream: Upstream;
  let receiver: OtlpReceiver;
  let broker: TestBroker;
  const upstreamTraceparents: (string | undefined)[] = [];

  before(async () => {
    ca = makeTestCa(['localhost']);
    receiver = await startOtlpReceiver();
    upstream = await startUpstream(ca, (request, response) => {
      upstreamTraceparents.push(request.headers.traceparent as string | undefined);
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(
          'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":25,"output_tokens":1}}}\n\n',
        );
        response.end('event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":42}}\n\n');
      });
    });
    broker = await startBroker(
      {
        deniedCidrs: LOOPBACK_ALLOWED,
        extraCaFile: ca.caFile,
        routes: [
          {
            name: 'model-claude',
            kind: 'model',
            upstream: upstream.origin,
            credential: { header: 'x-api-key' },
            pricing: { input: 3, output: 15 },
          },
          {
            name: 'otlp',
            kind: 'telemetry',
            upstream: `${receiver.url}/collector`,
            insecureHttp: true,
            credential: { header: 'authorization', prefix: 'Bearer ' },
          },
        ],
        callers: [
          { name: 'claude', routes: ['model-claude', 'otlp'] },
          {
            name: 'toolchain-node',
            routes: ['otlp'],
            egress: [{ host: 'registry.example.com', ports: [upstream.port] }],
          },
        ],
        telemetry: { route: 'otlp', resource: { team: 'platform' } },
        metricsLabels: { agent: 'reviewer' },
      },
      {
        tokens: { claude: CLAUDE_TOKEN, 'toolchain-node': TOOLCHAIN_TOKEN },
        keys: { 'model-claude': MODEL_KEY, otlp: OTLP_KEY },
        resolve: async () => [{ address: '127.0.0.1', family: 4 }],
      },
    );
  });

  after(async () => {
    await broker?.close();
    await upstream?.close();
    await receiver?.close();
    ca?.cleanup();
  });

  it('continues the caller trace on a model request and sends its own span as the upstream parent', async () => {
    const answer = await post(
      `${broker.url}/model-claude/v1/messages?beta=true`,
      { 'x-api-key': CLAUDE_TOKEN, traceparent: PARENT, 'content-type': 'application/json' },
      JSON.stringify({ messages: [{ role: 'user', content: PROMPT_CANARY }] }),
    );
    assert.equal(answer.status, 200);
    await broker.broker.telemetry.shutdown();
    await receiver.waitFor((spans) => spans.some((s) => s.traceId === TRACE));
    const span = receiver.spans.find((s) => s.traceId === TRACE);
    assert.ok(span);
    assert.equal(span.name, 'POST model-claude');
    assert.equal(span.kind, 2);
    assert.equal(span.parentSpanId, '20f067aa0ba902b7');
    assert.equal(upstreamTraceparents.at(-1), `00-${TRACE}-${span.spanId}-01`);
    assert.deepEqual(
      {
        class: span.attributes['toolyard.class'],
        caller: span.attributes['toolyard.broker.caller'],
        route: span.attributes['toolyard.broker.route'],
        host: span.attributes['server.address'],
        status: span.attributes['http.response.status_code'],
        input: span.attributes['gen_ai.usage.input_tokens'],
        output: span.attributes['gen_ai.usage.output_tokens'],
        op: span.attributes['gen_ai.operation.name'],
      },
      {
        class: 'model',
        caller: 'claude',
        route: 'model-claude',
        host: 'localhost',
        status: 200,
        input: 25,
        output: 42,
        op: 'chat',
      },
    );
    assert.ok(Number(span.attributes['toolyard.bytes_out']) > 0);
    assert.equal(span.resource['service.name'], 'toolyard-broker');
    assert.equal(span.resource.team, 'platform');
    // The broker's own export went through the telemetry route, with the route's credential.
    assert.ok(
      receiver.requests.some(
        (r) => r.path === '/collector/v1/traces' && r.authorization === `Bearer ${OTLP_KEY}`,
      ),
    );
  });

  it('counts the estimated cost from the usage and the route pricing, every sample labelled with the agent', async () => {
    const text = await (await fetch(`http://127.0.0.1:${broker.healthPort}/metrics`)).text();
    // 25 input and 42 output tokens at 3 and 15 USD per million.
    assert.match(
      text,
      /^toolyard_broker_cost_usd_total\{agent="reviewer",caller="claude",route="model-claude"\} 0\.000705$/m,
    );
    assert.match(
      text,
      /^toolyard_broker_tokens_total\{agent="reviewer",caller="claude",route="model-claude",type="output"\} 42$/m,
    );
    assert.ok(
      text
        .split('\n')
        .filter((l) => l && !l.startsWith('#'))
        .every((l) => l.includes('agent="reviewer"')),
    );
  });

  it('forwards a caller export through the telemetry route with the route credential, and never traces it', async () => {
    const before = receiver.spans.length;
    const body = JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: TRACE,
                  spanId: '3333333333333333',
                  name: 'cli span',
                  kind: 1,
                  startTimeUnixNano: '1',
                  endTimeUnixNano: '2',
                },
              ],
            },
          ],
        },
      ],
    });
    const answer = await post(
      `${broker.url}/otlp/v1/traces`,
      { authorization: `Bearer ${TOOLCHAIN_TOKEN}`, 'content-type': 'application/json', traceparent: PARENT },
      body,
    );
    assert.equal(answer.status, 200);
    const forwarded = receiver.requests.at(-1);
    assert.equal(forwarded?.authorization, `Bearer ${OTLP_KEY}`);
    assert.equal(forwarded?.path, '/collector/v1/traces');
    await broker.broker.telemetry.shutdown();
    assert.deepEqual(
      receiver.spans.slice(before).map((s) => s.name),
      ['cli span'],
    );
  });

  it("makes a tunnel's span the child of the context its proxy user carries; the token alone says who calls", async () => {
    const traced = await connectVia(broker.port, `registry.example.com:${upstream.port}`, {
      'Proxy-Authorization': basicAuth(`toolchain-node~${PARENT}`, TOOLCHAIN_TOKEN),
    });
    assert.equal(traced.status, 200);
    traced.socket.destroy();
    // Another caller's name with this token is still refused, context or not.
    const impostor = await connectVia(broker.port, `registry.example.com:${upstream.port}`, {
      'Proxy-Authorization': basicAuth(`claude~${PARENT}`, TOOLCHAIN_TOKEN),
    });
    assert.equal(impostor.status, 407);
    impostor.socket.destroy();
    const tunnel = `CONNECT registry.example.com:${upstream.port}`;
    await receiver.waitFor((spans) => spans.some((s) => s.name === tunnel && s.traceId === TRACE));
    const span = receiver.spans.find((s) => s.name === tunnel && s.traceId === TRACE);
    assert.equal(span?.parentSpanId, '20f067aa0ba902b7');
    assert.equal(span?.attributes['toolyard.broker.caller'], 'toolchain-node');
    const audits = broker.audits().filter((a) => a.kind === 'connect');
    // The tunnel closed before a byte went up (so its first-bytes check ends it), but its caller was known.
    assert.deepEqual(
      audits.slice(-2).map((a) => [a.caller, a.status]),
      [
        ['toolchain-node', 403],
        [null, 407],
      ],
    );
    assert.equal(audits.at(-1)?.code, 'TOOLYARD_BROKER_UNAUTHENTICATED');
    assert.ok(!JSON.stringify(audits).includes(TRACE), 'the context is never audited');
  });

  it('makes a span of a tunnel, and exports no key, token or request content', async () => {
    const tunnel = await connectVia(broker.port, `registry.example.com:${upstream.port}`, {
      'Proxy-Authorization': basicAuth('toolchain-node', TOOLCHAIN_TOKEN),
    });
    assert.equal(tunnel.status, 200);
    tunnel.socket.destroy();
    await receiver.waitFor(() => broker.audits().some((a) => a.kind === 'connect'));
    await broker.broker.telemetry.shutdown();
    const span = receiver.spans.find((s) => s.name === `CONNECT registry.example.com:${upstream.port}`);
    assert.ok(span, JSON.stringify(receiver.spans.map((s) => s.name)));
    assert.equal(span.attributes['toolyard.class'], 'external-authority');
    assert.equal(span.attributes['toolyard.broker.rule'], `registry.example.com:${upstream.port}`);
    const exported = receiver.requests
      .filter((r) => r.path === '/collector/v1/traces' && !r.body.includes('cli span'))
      .map((r) => r.body)
      .join('\n');
    for (const secret of [
      CLAUDE_TOKEN,
      TOOLCHAIN_TOKEN,
      MODEL_KEY,
      OTLP_KEY,
      PROMPT_CANARY,
      'beta=true',
      '/v1/messages',
    ])
      assert.ok(!exported.includes(secret), `the broker's spans contain ${secret}`);
  });
});
