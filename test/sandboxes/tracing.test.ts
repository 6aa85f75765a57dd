/**
 * The sandbox manager's spans (issue 33), through its real HTTP app, with the fake provider whose sandbox is a
 * real toolchain server process (the built bundle, `npm run build:server`) exporting to the same in-process OTLP
 * receiver: one trace from the caller's `traceparent` (HTTP header) → the manager's `tools/call sandbox_exec`
 * (server) → its `tools/call exec_allowed` (client, `local-execution`) → the sandbox server's own
 * `tools/call exec_allowed` span; the Kubernetes call of `sandbox_create` as a client span marked
 * `external-authority`, and the bind of the new sandbox's server as one marked `local-execution`; and no exported byte holds the session key, a token or the canary the command got (the
 * control: the canary reached the command and came back in its output).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { memorySink } from '../../toolchain-server/kit/audit-sink.ts';
import { startTelemetry, type Telemetry } from '../../toolchain-server/kit/telemetry.ts';
import { sessionHash, sessionObjectName } from '../../toolchain-server/sandbox-manager/records.ts';
import {
  buildSandboxManager,
  type SandboxManagerServer,
} from '../../toolchain-server/sandbox-manager/server.ts';
import { BUNDLE_PATH } from '../../toolchain-server/scripts/bundle.ts';
import { freePort } from '../support/free-port.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.ts';
import { FakeProvider } from './fake-provider.ts';
import { testManagerConfig, testTemplate } from './manager-config.ts';

const BOOTSTRAP = 'bootstrap-token-tracing-4f1c9e';
const BEARER = 'manager-bearer-token-7d2a51';
const SESSION_KEY = 'conv-secret-session-key-93b7';
const CANARY = 'CANARY-sbx-trace-0c6e2f';
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

/** Starts the built toolchain server as its own process; resolves once it prints `listening`. */
async function launchProcess(
  dir: string,
  raw: Record<string, unknown>,
  children: ChildProcess[],
): Promise<{ close(): Promise<unknown> }> {
  const file = join(dir, `server-${children.length}.json`);
  writeFileSync(file, JSON.stringify(raw));
  const child = spawn(process.execPath, [BUNDLE_PATH, '--config', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await new Promise<void>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.on('line', (line) => {
      if (line.includes('"event":"listening"')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`sandbox server exited ${code}: ${stderr}`)));
  });
  return {
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(undefined);
        child.on('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

describe('the sandbox manager’s spans (real HTTP app, a real sandbox server process)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolyard-sbx-trace-'));
  const bootstrapFile = join(dir, 'bootstrap');
  const children: ChildProcess[] = [];
  let receiver: OtlpReceiver;
  let telemetry: Telemetry;
  let server: SandboxManagerServer;
  let url: string;
  let session: string | undefined;
  let nextId = 1;
  let execOutput = '';

  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${BEARER}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' } : {}),
        ...headers,
      },
      body: JSON.stringify(body),
    });
    session ??= response.headers.get('mcp-session-id') ?? undefined;
    const text = await response.text();
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => l.slice(6));
    return (text === '' ? {} : JSON.parse(data[0] ?? text)) as { result?: Record<string, unknown> };
  };
  const call = (name: string, args: Record<string, unknown>, headers: Record<string, string> = {}) =>
    post({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } }, headers);

  before(async () => {
    writeFileSync(bootstrapFile, `${BOOTSTRAP}\n`);
    receiver = await startOtlpReceiver();
    const port = await freePort();
    const config = testManagerConfig(bootstrapFile, [testTemplate('shell', port)], {
      listen: { host: '127.0.0.1', port: 0 },
      telemetry: { endpoint: receiver.url, sampleRatio: 1 },
    });
    const provider = new FakeProvider(
      dir,
      bootstrapFile,
      port,
      { mode: 'exec', allowedCommands: ['echo'] },
      {
        config: { telemetry: { endpoint: receiver.url, sampleRatio: 1 } },
        launch: (raw) => launchProcess(dir, raw, children),
      },
    );
    telemetry = startTelemetry(config.telemetry, {
      serviceName: 'toolyard-sandbox-manager',
      version: 'test',
      resource: { 'toolyard.agent': config.agent },
    });
    server = buildSandboxManager(config, {
      log: memorySink(),
      provider,
      tracer: telemetry.tracer,
      secrets: { bearerToken: BEARER, bootstrapToken: BOOTSTRAP },
    });
    await server.start();
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(server.app.server.address() as { port: number }).port}/mcp`;
    await post({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  });
  after(async () => {
    await server?.close();
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('continues the caller’s trace: manager span → client span → the sandbox server’s span', async () => {
    const traceparent = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;
    const created = await call('sandbox_create', { sessionKey: SESSION_KEY }, { traceparent });
    assert.equal(created.result?.isError, false, JSON.stringify(created));
    const ran = await call(
      'sandbox_exec',
      { sessionKey: SESSION_KEY, command: ['echo', CANARY] },
      { traceparent },
    );
    assert.equal(ran.result?.isError, false, JSON.stringify(ran));
    execOutput = String((ran.result?.structuredContent as { stdout?: string } | undefined)?.stdout);
    await telemetry.shutdown();
    await receiver.waitFor((spans) =>
      spans.some(
        (s) =>
          s.resource['service.name'] === 'toolyard-toolchain-server' && s.name === 'tools/call exec_allowed',
      ),
    );
    const trace = receiver.spans.filter((s) => s.traceId === CALLER_TRACE);
    const find = (service: string, name: string) => {
      const found = trace.filter((s) => s.resource['service.name'] === service && s.name === name);
      assert.equal(found.length, 1, `${service} ${name}: ${JSON.stringify(trace.map((s) => s.name))}`);
      return found[0] as (typeof found)[number];
    };
    const exec = find('toolyard-sandbox-manager', 'tools/call sandbox_exec');
    const client = find('toolyard-sandbox-manager', 'tools/call exec_allowed');
    const inSandbox = find('toolyard-toolchain-server', 'tools/call exec_allowed');
    assert.equal(exec.parentSpanId, CALLER_SPAN);
    assert.equal(client.parentSpanId, exec.spanId);
    assert.equal(inSandbox.parentSpanId, client.spanId);
    assert.equal(exec.kind, 2); // SERVER
    assert.equal(client.kind, 3); // CLIENT
    const name = sessionObjectName('tester', SESSION_KEY);
    assert.deepEqual(
      {
        class: exec.attributes['toolyard.class'],
        component: exec.attributes['toolyard.component'],
        tool: exec.attributes['gen_ai.tool.name'],
        session: exec.attributes['toolyard.session'],
        sandbox: exec.attributes['toolyard.sandbox.name'],
        template: exec.attributes['toolyard.sandbox.template'],
        decision: exec.attributes['toolyard.decision'],
      },
      {
        class: 'local-execution',
        component: 'sandbox-manager',
        tool: 'sandbox_exec',
        session: sessionHash(SESSION_KEY),
        sandbox: name,
        template: 'shell',
        decision: 'allowed',
      },
    );
    assert.equal(client.attributes['toolyard.class'], 'local-execution');
    assert.equal(client.attributes['toolyard.sandbox.name'], name);

    // sandbox_create: the manager's span and its Kubernetes call, marked as the manager's own authority.
    const create = find('toolyard-sandbox-manager', 'tools/call sandbox_create');
    const kube = find('toolyard-sandbox-manager', 'kubernetes create');
    assert.equal(create.parentSpanId, CALLER_SPAN);
    assert.equal(create.attributes['toolyard.class'], 'external-authority');
    assert.equal(kube.parentSpanId, create.spanId);
    assert.equal(kube.kind, 3);
    assert.deepEqual(
      [kube.attributes['toolyard.class'], kube.attributes['toolyard.sandbox.operation']],
      ['external-authority', 'create'],
    );
    // The new sandbox's server bound to the session, once, inside sandbox_create (the exec reuses the binding).
    const bind = find('toolyard-sandbox-manager', 'sandbox bind');
    assert.equal(bind.parentSpanId, create.spanId);
    assert.equal(bind.kind, 3);
    assert.deepEqual(
      [
        bind.attributes['toolyard.class'],
        bind.attributes['toolyard.sandbox.bind'],
        bind.attributes['toolyard.sandbox.name'],
      ],
      ['local-execution', 'bound', name],
    );
  });

  it('takes the context from params._meta too, and marks a refusal with its code and no call to the sandbox', async () => {
    const trace = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const parent = '1122334455667788';
    const refused = await post({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'tools/call',
      params: {
        name: 'sandbox_download',
        arguments: { sessionKey: SESSION_KEY, path: '../outside' },
        _meta: { traceparent: `00-${trace}-${parent}-01` },
      },
    });
    assert.equal(refused.result?.isError, true);
    await telemetry.exporter?.flush();
    await receiver.waitFor((spans) => spans.some((s) => s.traceId === trace));
    const spans = receiver.spans.filter((s) => s.traceId === trace);
    assert.deepEqual(
      spans.map((s) => [
        s.name,
        s.parentSpanId,
        s.attributes['toolyard.decision'],
        s.attributes['toolyard.code'],
      ]),
      [['tools/call sandbox_download', parent, 'denied', 'TOOLYARD_SANDBOX_PATH_REFUSED']],
    );
    assert.equal(spans[0]?.status.code, 2, 'status ERROR');
  });

  it('exports no session key, token or canary, though the canary reached the command (the control)', () => {
    assert.equal(execOutput.trim(), CANARY);
    assert.ok(receiver.requests.length > 0);
    const exported = receiver.requests.map((r) => r.body).join('\n');
    for (const secret of [SESSION_KEY, BEARER, BOOTSTRAP, CANARY])
      assert.ok(!exported.includes(secret), `an exported span holds ${secret}`);
  });
});
