/**
 * Traces through a real toolchain server process with code mode (uid 65532, confinement required), exporting
 * over OTLP/HTTP to a receiver with its token file: the run_code call continues the caller's trace, the program
 * has a span of its own, each proxied MCP call is a client span — `external-authority` for a gateway,
 * `local-execution` for this toolchain — whose context reaches the target (the gateway's request carries it in
 * `params._meta` and the `traceparent` header; this toolchain's own tool call is its child span), and the
 * exporter presents the telemetry token. No span carries the program's text or an argument.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type FakeGateway, startFakeGateway } from '../backends/fake-gateway.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.ts';
import { Lab, type LabServer } from './code-mode/lab.ts';

const TRACE = '5bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = `00-${TRACE}-10f067aa0ba902b7-01`;
const CANARY = `canary-${Math.random().toString(36).slice(2)}`;
const TOKENS = { cm: 'cm-token-8a7b6c5d4e3f', gateway: 'gw-token-1a2b3c4d5e6f', otlp: 'otlp-token-99aa88bb' };

describe('code mode spans through a real server process', { timeout: 120_000 }, () => {
  let lab: Lab;
  let cm: LabServer;
  let gateway: FakeGateway;
  let receiver: OtlpReceiver;

  before(async () => {
    await Lab.build();
    lab = new Lab();
    receiver = await startOtlpReceiver();
    gateway = await startFakeGateway({ token: TOKENS.gateway, toolName: 'lookup_ticket', answer: 'open' });
    const secrets = lab.dir('own-cm/secrets', 0o700);
    const files = {
      cm: lab.file(join(secrets, 'token'), TOKENS.cm),
      gateway: lab.file(join(secrets, 'gateway-token'), TOKENS.gateway),
      otlp: lab.file(join(secrets, 'otlp-token'), TOKENS.otlp),
    };
    cm = await lab.server(
      'cm',
      {
        name: 'cm',
        listen: { host: '127.0.0.1', port: 0 },
        workspaceRoots: [lab.workspace],
        tools: { mode: 'exec', allowedCommands: ['echo'] },
        handles: { commands: ['echo'] },
        env: { passthrough: ['PATH'] },
        auth: { bearerTokenFile: files.cm },
        limits: { confinement: 'required' },
        codeMode: {
          languages: ['node'],
          servers: [
            {
              name: 'tickets',
              kind: 'gateway',
              url: `http://127.0.0.1:${gateway.port}/mcp`,
              tokenFile: files.gateway,
            },
            { name: 'cm', kind: 'toolchain' },
          ],
        },
        telemetry: {
          endpoint: `${receiver.url}/otlp`,
          tokenFile: files.otlp,
          resource: { 'toolyard.agent': 'reviewer' },
        },
      },
      TOKENS.cm,
    );
  });

  after(async () => {
    await lab?.close();
    await gateway?.close();
    await receiver?.close();
  });

  it('exports the run, the program, each proxied call and the nested tool call as one trace', async () => {
    const client = await cm.client();
    const code = [
      `const t = await mcp_tickets.lookup_ticket({ id: '${CANARY}' });`,
      `const e = await mcp_cm.exec_allowed({ command: ['echo', '${CANARY}'] });`,
      'export default [t.text, e.isError];',
    ].join('\n');
    const result = await client.callTool({
      name: 'run_code',
      arguments: { language: 'javascript', code, timeoutSeconds: 60 },
      _meta: { traceparent: PARENT },
    });
    assert.deepEqual((result.structuredContent as { returnValue: unknown }).returnValue, ['open', false]);
    await receiver.waitFor((spans) => spans.filter((s) => s.traceId === TRACE).length >= 6);
    const spans = receiver.spans.filter((s) => s.traceId === TRACE);
    const byName = (name: string) => spans.filter((s) => s.name === name);
    const [runCall] = byName('tools/call run_code');
    const [program] = byName('run_code javascript');
    const [gatewayCall] = spans.filter((s) => s.name === 'tools/call lookup_ticket');
    const execCalls = byName('tools/call exec_allowed');
    const [exec] = byName('exec echo');
    assert.ok(runCall && program && gatewayCall && exec, JSON.stringify(spans.map((s) => s.name)));
    assert.equal(runCall.parentSpanId, '10f067aa0ba902b7');
    assert.equal(runCall.kind, 2);
    assert.equal(program.parentSpanId, runCall.spanId);
    assert.equal(gatewayCall.parentSpanId, program.spanId);
    assert.equal(gatewayCall.kind, 3);
    assert.equal(gatewayCall.attributes['toolyard.class'], 'external-authority');
    assert.equal(gatewayCall.attributes['toolyard.code_mode.server'], 'tickets');
    // This toolchain's own tool: a client span of the program, and its server span below it.
    const client2 = execCalls.find((s) => s.kind === 3);
    const server2 = execCalls.find((s) => s.kind === 2);
    assert.ok(client2 && server2);
    assert.equal(client2.attributes['toolyard.class'], 'local-execution');
    assert.equal(server2.parentSpanId, client2.spanId);
    assert.equal(
      server2.attributes['toolyard.routing.reason'],
      'command echo matched toolchain cm handles.commands; command echo is in toolchain cm tools.allowedCommands',
    );
    assert.equal(exec.parentSpanId, server2.spanId);
    // The gateway got the proxied call's context, in _meta and in the header.
    const call = gateway.requests.find((r) => r.method === 'tools/call');
    assert.equal(call?.metaTraceparent, `00-${TRACE}-${gatewayCall.spanId}-01`);
    assert.equal(call?.traceparent, `00-${TRACE}-${gatewayCall.spanId}-01`);
    // Resource and credential of the export.
    assert.equal(runCall.resource['service.name'], 'toolyard-toolchain-server');
    assert.equal(runCall.resource['toolyard.agent'], 'reviewer');
    assert.ok(
      receiver.requests.every(
        (r) => r.path === '/otlp/v1/traces' && r.authorization === `Bearer ${TOKENS.otlp}`,
      ),
    );
    // Nothing of the program or its arguments, and no token, in what was exported.
    const exported = receiver.requests.map((r) => r.body).join('\n');
    for (const secret of [CANARY, TOKENS.cm, TOKENS.gateway, TOKENS.otlp, 'lookup_ticket({'])
      assert.ok(!exported.includes(secret), `exported spans contain ${secret}`);
  });
});
