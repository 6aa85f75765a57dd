/** The shared tracing kit: W3C trace context, parent-based sampling, the OTLP/HTTP JSON exporter. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import {
  exportRequest,
  httpTransport,
  OtlpExporter,
  unixNanos,
} from '../../toolchain-server/kit/otlp-exporter.ts';
import { SPAN_ATTRIBUTES } from '../../toolchain-server/kit/span-attributes.ts';
import {
  contextFromRequest,
  formatTraceparent,
  parseTraceparent,
} from '../../toolchain-server/kit/trace-context.ts';
import { memorySpans, Tracer } from '../../toolchain-server/kit/tracing.ts';

const PARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('trace context', () => {
  it('parses a valid traceparent and writes it back', () => {
    const context = parseTraceparent(PARENT, 'rojo=00f067aa0ba902b7');
    assert.deepEqual(context, {
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      sampled: true,
      tracestate: 'rojo=00f067aa0ba902b7',
    });
    assert.equal(formatTraceparent(context!), PARENT);
  });

  it('refuses invalid values: zero ids, version ff, extra fields in version 00, upper case, junk', () => {
    for (const bad of [
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      `${PARENT}-extra`,
      PARENT.toUpperCase(),
      'not a traceparent',
      42,
      undefined,
    ])
      assert.equal(parseTraceparent(bad), undefined, String(bad));
    // A later version may carry more fields.
    assert.equal(
      parseTraceparent('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-x')?.sampled,
      false,
    );
  });

  it('takes params._meta over the HTTP header, and the header when _meta has none', () => {
    const header = '00-11111111111111111111111111111111-2222222222222222-01';
    assert.equal(
      contextFromRequest({ traceparent: PARENT }, { traceparent: header })?.traceId,
      '4bf92f3577b34da6a3ce929d0e0e4736',
    );
    assert.equal(
      contextFromRequest({ progressToken: 1 }, { traceparent: header })?.traceId,
      '11111111111111111111111111111111',
    );
    assert.equal(
      contextFromRequest({ traceparent: 'junk' }, { traceparent: header })?.traceId,
      '11111111111111111111111111111111',
    );
    assert.equal(contextFromRequest(undefined, {}), undefined);
  });
});

describe('Tracer', () => {
  it('continues the parent trace: same trace id, the parent span as parent, tracestate kept', () => {
    const sink = memorySpans();
    const tracer = new Tracer({ sink });
    const span = tracer.start('tools/call x', {
      kind: 'server',
      parent: parseTraceparent(PARENT, 'a=b'),
      class: 'local-execution',
    });
    span.set('toolyard.toolchain', 'rust').set('process.exit.code', 0).set('toolyard.rule', null);
    const child = tracer.start('exec cargo', { kind: 'internal', parent: span.context });
    assert.match(child.traceparent(), /^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
    child.end();
    span.end();
    span.end(); // a second end changes nothing
    assert.equal(sink.spans.length, 2);
    const [c, s] = sink.spans as [NonNullable<(typeof sink.spans)[0]>, NonNullable<(typeof sink.spans)[0]>];
    assert.equal(s.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
    assert.equal(s.parentSpanId, '00f067aa0ba902b7');
    assert.equal(s.tracestate, 'a=b');
    assert.equal(c.parentSpanId, s.spanId);
    assert.deepEqual(Object.fromEntries(s.attributes), {
      'toolyard.class': 'local-execution',
      'toolyard.toolchain': 'rust',
      'process.exit.code': 0,
    });
  });

  it('follows a parent that is not sampled, and passes its trace on with the flag off', () => {
    const sink = memorySpans();
    const span = new Tracer({ sink }).start('x', {
      kind: 'server',
      parent: parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00'),
    });
    assert.equal(span.recording, false);
    assert.equal(span.traceparent(), '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00');
    span.set('toolyard.toolchain', 'x').end();
    assert.equal(sink.spans.length, 0);
  });

  it('samples new traces by ratio of trace ids: 0 none, 1 all, 0.5 about half', () => {
    const count = (ratio: number) => {
      const sink = memorySpans();
      const tracer = new Tracer({ sink, sampleRatio: ratio });
      for (let i = 0; i < 2000; i++) tracer.start('x', { kind: 'server' }).end();
      return sink.spans.length;
    };
    assert.equal(count(0), 0);
    assert.equal(count(1), 2000);
    const half = count(0.5);
    assert.ok(half > 800 && half < 1200, `${half}`);
    // Tracer.off records nothing but still hands out a context.
    const off = Tracer.off.start('x', { kind: 'server', parent: parseTraceparent(PARENT) });
    assert.equal(off.recording, false);
    assert.equal(off.context.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
  });
});

describe('OTLP/HTTP JSON exporter', () => {
  it('writes ExportTraceServiceRequest JSON: hex ids, kinds, nanosecond strings, typed values, status', () => {
    const sink = memorySpans();
    const span = new Tracer({ sink }).start('tools/call t', {
      kind: 'client',
      parent: parseTraceparent(PARENT),
      startMs: 1_700_000_000_123.5,
    });
    span
      .set('process.exit.code', 2)
      .set('toolyard.truncated', true)
      .set('toolyard.toolchain', 'go')
      .fail('nonzero-exit');
    span.end(1_700_000_000_124.25);
    const body = JSON.parse(
      exportRequest(sink.spans, { 'service.name': 's', team: 'x' }, { name: 'toolyard', version: '1' }),
    );
    const otlp = body.resourceSpans[0];
    assert.deepEqual(otlp.resource.attributes, [
      { key: 'service.name', value: { stringValue: 's' } },
      { key: 'team', value: { stringValue: 'x' } },
    ]);
    const s = otlp.scopeSpans[0].spans[0];
    assert.equal(s.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
    assert.equal(s.parentSpanId, '00f067aa0ba902b7');
    assert.equal(s.kind, 3);
    assert.equal(s.startTimeUnixNano, '1700000000123500000');
    assert.equal(s.endTimeUnixNano, '1700000000124250000');
    assert.deepEqual(s.status, { code: 2, message: 'nonzero-exit' });
    assert.deepEqual(s.attributes, [
      { key: 'process.exit.code', value: { intValue: '2' } },
      { key: 'toolyard.truncated', value: { boolValue: true } },
      { key: 'toolyard.toolchain', value: { stringValue: 'go' } },
    ]);
    assert.equal(unixNanos(0.000001), '1');
  });

  it('batches, never blocks the caller, bounds its queue and counts drops and failures', async () => {
    const bodies: string[] = [];
    let status = 200;
    const make = (maxBatch: number, maxQueue: number) =>
      new OtlpExporter({
        transport: async (body) => {
          bodies.push(body);
          return status;
        },
        resource: { 'service.name': 't' },
        scope: { name: 'toolyard', version: '0' },
        maxBatch,
        maxQueue,
        intervalMs: 60_000,
      });
    const batching = make(3, 100);
    const tracer = new Tracer({ sink: batching });
    for (let i = 0; i < 3; i++) tracer.start(`s${i}`, { kind: 'server' }).end();
    assert.equal(bodies.length, 1, 'a full batch goes at once');
    tracer.start('t', { kind: 'server' }).end();
    assert.equal(bodies.length, 1, 'a partial batch waits for its interval');
    await batching.flush();
    assert.equal(bodies.length, 2);
    assert.equal(batching.stats.exported, 4);
    // A queue that cannot drain (the interval is long, batches are larger than the queue) drops beyond its bound.
    const bounded = make(100, 5);
    const tracer2 = new Tracer({ sink: bounded });
    for (let i = 0; i < 7; i++) tracer2.start(`u${i}`, { kind: 'server' }).end();
    assert.equal(bounded.stats.dropped, 2);
    status = 500;
    await bounded.flush();
    assert.equal(bounded.stats.failedBatches, 1);
    assert.equal(bounded.stats.exported, 0);
  });

  it('POSTs to <endpoint>/v1/traces with the given headers', async () => {
    const seen: { url?: string; auth?: string; type?: string; body: string } = { body: '' };
    const server = createServer((request, response) => {
      seen.url = request.url;
      seen.auth = request.headers.authorization;
      seen.type = request.headers['content-type'];
      request.on('data', (c: Buffer) => {
        seen.body += c.toString();
      });
      request.on('end', () => response.end('{}'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const send = httpTransport(`http://127.0.0.1:${port}/otlp/`, { authorization: 'Bearer t0k' });
      assert.equal(await send('{"resourceSpans":[]}'), 200);
      assert.deepEqual(seen, {
        url: '/otlp/v1/traces',
        auth: 'Bearer t0k',
        type: 'application/json',
        body: '{"resourceSpans":[]}',
      });
      // Nothing listening: 0, no throw.
      assert.equal(await httpTransport('http://127.0.0.1:1')('{}'), 0);
    } finally {
      server.close();
    }
  });
});

describe('docs/observability.md', () => {
  it('lists exactly the span attributes spans may carry', () => {
    const text = readFileSync(new URL('../../docs/observability.md', import.meta.url), 'utf8');
    const section = text.slice(text.indexOf('## Span attributes'));
    const listed = [...section.matchAll(/^\| `([a-z_.]+)` +\|/gm)].map((m) => m[1]);
    assert.deepEqual(listed, Object.keys(SPAN_ATTRIBUTES));
  });
});
