/**
 * Traces of the toolchain server (docs/observability.md): one server span per tool call continuing the
 * caller's context (params._meta wins over the traceparent header), a child span for the process, whose
 * command gets TRACEPARENT; the routing decision and reason, the refusal rule, exit, bytes — and never an
 * argument or environment value.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { memorySpans, Tracer } from '../../toolchain-server/kit/tracing.ts';
import { toolchainServerConfigSchema } from '../../toolchain-server/src/config.ts';
import { buildHealthServer, buildServer } from '../../toolchain-server/src/http.ts';
import { routingReason } from '../../toolchain-server/src/routing-reason.ts';
import { connectClient, listen, makeConfig, makeWorkspace, memoryLog, type Workspace } from './helpers.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = `00-${TRACE}-00f067aa0ba902b7-01`;
const HEADER_TRACE = '11111111111111111111111111111111';
const CANARY = `canary-${Math.random().toString(36).slice(2)}`;

type Spans = ReturnType<typeof memorySpans>;

function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0]?.text ?? '').trim();
}

describe('toolchain server spans', () => {
  let workspace: Workspace;
  let spans: Spans;
  let log: ReturnType<typeof memoryLog>;
  let app: ReturnType<typeof buildServer>;
  let client: Client;
  let url: string;

  before(async () => {
    workspace = makeWorkspace();
    spans = memorySpans();
    log = memoryLog();
    const config = makeConfig(workspace, {
      name: 'rust',
      handles: { commands: ['echo'], files: [] },
      env: { passthrough: ['PATH'], callerAllowed: ['PROJECT_SETTING'] },
      health: { host: '127.0.0.1', port: 0, metrics: true },
    });
    app = buildServer({ config, log: log.sink, toolchainOptions: { tracer: new Tracer({ sink: spans }) } });
    url = await listen(app);
    client = await connectClient(url);
  });

  after(async () => {
    await client.close();
    await app.close();
    workspace.cleanup();
  });

  it('continues the caller trace from params._meta: a server span and a process span whose command gets TRACEPARENT', async () => {
    spans.spans.length = 0;
    const result = await client.callTool({
      name: 'exec_allowed',
      arguments: { command: ['printenv', 'TRACEPARENT'] },
      _meta: { traceparent: PARENT },
    });
    const call = spans.spans.find((s) => s.name === 'tools/call exec_allowed');
    const exec = spans.spans.find((s) => s.name === 'exec printenv');
    assert.ok(call && exec, JSON.stringify(spans.spans.map((s) => s.name)));
    assert.equal(call.kind, 'server');
    assert.equal(call.traceId, TRACE);
    assert.equal(call.parentSpanId, '00f067aa0ba902b7');
    assert.equal(exec.parentSpanId, call.spanId);
    assert.equal(exec.traceId, TRACE);
    // The command continues the process span.
    assert.equal(textOf(result).split('\n').at(-1), `00-${TRACE}-${exec.spanId}-01`);
    const a = Object.fromEntries(call.attributes);
    assert.equal(a['toolyard.class'], 'local-execution');
    assert.equal(a['toolyard.toolchain'], 'rust');
    assert.equal(a['gen_ai.tool.name'], 'exec_allowed');
    assert.equal(a['process.executable.name'], 'printenv');
    assert.equal(a['process.exit.code'], 0);
    assert.equal(a['toolyard.decision'], 'allowed');
    assert.equal(a['toolyard.routing.decision'], 'matched');
    assert.equal(a['toolyard.routing.reason'], 'command printenv is in toolchain rust tools.allowedCommands');
    assert.equal(call.error, undefined);
    const audit = log.lines.findLast((l) => l.event === 'audit');
    assert.equal(audit?.trace, TRACE);
  });

  it('takes the traceparent HTTP header when _meta has none, and says why the command ran here', async () => {
    const headerClient = await connectClient(url, { traceparent: `00-${HEADER_TRACE}-2222222222222222-01` });
    try {
      spans.spans.length = 0;
      await headerClient.callTool({ name: 'exec_allowed', arguments: { command: ['echo', 'hi'] } });
      const call = spans.spans.find((s) => s.name === 'tools/call exec_allowed');
      assert.equal(call?.traceId, HEADER_TRACE);
      assert.equal(call?.parentSpanId, '2222222222222222');
      const a = Object.fromEntries(call?.attributes ?? []);
      assert.equal(a['toolyard.routing.decision'], 'matched');
      assert.match(
        String(a['toolyard.routing.reason']),
        /^command echo matched toolchain rust handles\.commands; command echo is in toolchain rust tools\.allowedCommands$/,
      );
      // _meta wins over the header.
      spans.spans.length = 0;
      await headerClient.callTool({
        name: 'exec_allowed',
        arguments: { command: ['true'] },
        _meta: { traceparent: PARENT },
      });
      assert.equal(spans.spans.find((s) => s.name === 'tools/call exec_allowed')?.traceId, TRACE);
    } finally {
      await headerClient.close();
    }
  });

  it('records a refusal with its rule and code, as an error span, and nothing ran (no process span)', async () => {
    spans.spans.length = 0;
    await client.callTool({
      name: 'exec_allowed',
      arguments: { command: ['git', '-c', 'core.pager=x', 'log'] },
      _meta: { traceparent: PARENT },
    });
    assert.equal(spans.spans.length, 1);
    const [call] = spans.spans;
    const a = Object.fromEntries(call!.attributes);
    assert.equal(a['toolyard.decision'], 'denied');
    assert.equal(a['toolyard.rule'], 'config-override');
    assert.equal(a['toolyard.code'], 'TOOLYARD_POLICY_DENIED');
    assert.equal(a['error.type'], 'TOOLYARD_POLICY_DENIED');
    assert.deepEqual(call!.error, { message: 'TOOLYARD_POLICY_DENIED' });
  });

  it('never puts an argument, environment value or output in a span', async () => {
    spans.spans.length = 0;
    await client.callTool({
      name: 'exec_allowed',
      arguments: { command: ['echo', CANARY], env: { PROJECT_SETTING: CANARY } },
      _meta: { traceparent: PARENT },
    });
    await client.callTool({
      name: 'exec_allowed',
      arguments: { command: ['cat', `/${CANARY}`] },
      _meta: { traceparent: PARENT },
    });
    assert.ok(spans.spans.length >= 3);
    const text = JSON.stringify(spans.spans.map((s) => ({ ...s, attributes: [...s.attributes] })));
    assert.ok(!text.includes(CANARY), text);
    // Control: the canary did reach the command (it is in the output and in the audit's argv).
    assert.ok(log.lines.some((l) => JSON.stringify(l).includes(CANARY)));
  });

  it('with tracing off, records nothing but still hands the caller context to the command', async () => {
    const offSpans = memorySpans();
    const off = buildServer({
      config: makeConfig(workspace),
      log: () => {},
      toolchainOptions: { tracer: Tracer.off },
    });
    const offUrl = await listen(off);
    const offClient = await connectClient(offUrl);
    try {
      const r = await offClient.callTool({
        name: 'exec_allowed',
        arguments: { command: ['printenv', 'TRACEPARENT'] },
        _meta: { traceparent: PARENT },
      });
      assert.equal(textOf(r).split('\n').at(-1), `00-${TRACE}-00f067aa0ba902b7-00`);
      // Without a caller context, no TRACEPARENT at all.
      const none = await offClient.callTool({
        name: 'exec_allowed',
        arguments: { command: ['printenv', 'TRACEPARENT'] },
      });
      assert.match(textOf(none), /^exit 1/);
      assert.equal(offSpans.spans.length, 0);
    } finally {
      await offClient.close();
      await off.close();
    }
  });

  it('serves /metrics on the probe listener only with health.metrics', async () => {
    const health = buildHealthServer(app.toolchain);
    const plain = buildHealthServer(
      buildServer({
        config: makeConfig(workspace, { health: { host: '127.0.0.1', port: 0 } }),
        log: () => {},
      }).toolchain,
    );
    try {
      const base = await listen(health);
      const text = await (await fetch(`${base}/metrics`)).text();
      assert.match(text, /toolyard_tool_calls_total\{/);
      const plainBase = await listen(plain);
      assert.equal((await fetch(`${plainBase}/metrics`)).status, 404);
    } finally {
      await health.close();
      await plain.close();
    }
  });
});

describe('routing reasons', () => {
  const config = toolchainServerConfigSchema.parse({
    name: 'rust',
    listen: { port: 0 },
    workspaceRoots: ['/w'],
    tools: { mode: 'structured', presets: ['cargo'] },
    handles: { commands: ['cargo', 'rustc'] },
  });
  it('names every hint that routes the command here, as explain --command reads them', () => {
    assert.deepEqual(routingReason(config, 'cargo'), {
      decision: 'matched',
      reason:
        'command cargo matched toolchain rust handles.commands; command cargo is run by preset cargo of toolchain rust',
    });
    assert.deepEqual(routingReason(config, 'rustc'), {
      decision: 'matched',
      reason: 'command rustc matched toolchain rust handles.commands',
    });
  });
  it('says when no hint names the command (the client chose this toolchain)', () => {
    assert.deepEqual(routingReason(config, 'make'), {
      decision: 'direct',
      reason:
        'no routing hint of toolchain rust names command make; the client called this toolchain directly',
    });
  });
});
