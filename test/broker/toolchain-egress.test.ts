/**
 * The toolchain server's children reach the internet through the broker by name: a workspace script run by
 * `exec_allowed` fetches over TLS with curl, which finds the broker in `https_proxy` (this toolchain's caller
 * name and token in the URL), through a CONNECT tunnel the broker allows for that caller's list only. Traced, the
 * proxy user carries the call's context (kit/proxy-user.ts), so the broker's tunnel span is the child of the
 * call's process span, though curl sends no `traceparent`; untraced, the user is the caller's name alone.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_DENIED_CIDRS } from '../../toolchain-server/broker/config.ts';
import { type FinishedSpan, Tracer } from '../../toolchain-server/kit/tracing.ts';
import { Toolchain } from '../../toolchain-server/src/toolchain.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.ts';
import { makeConfig, makeWorkspace, type Workspace } from '../toolchain-server/helpers.ts';
import { startBroker, type TestBroker } from './helpers.ts';
import { makeTestCa, type TestCa } from './tls-fixture.ts';

const TOKEN = 'tok-toolchain-rust-0123456789';
const hasCurl = (() => {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('toolchain children through the broker', { skip: hasCurl ? false : 'curl is not installed' }, () => {
  let ca: TestCa;
  let ws: Workspace;
  let broker: TestBroker;
  let registry: ReturnType<typeof createServer>;
  let port: number;
  let toolchain: Toolchain;
  let untraced: Toolchain;
  let receiver: OtlpReceiver;
  /** The toolchain server's own spans. */
  const spans: FinishedSpan[] = [];

  before(async () => {
    receiver = await startOtlpReceiver();
    ca = makeTestCa(['registry.example', 'unlisted.example']);
    registry = createServer({ cert: ca.cert, key: ca.key }, (request, response) => {
      response.end(`package from ${request.headers.host}`);
    });
    await new Promise<void>((r) => registry.listen(0, '127.0.0.2', r));
    port = (registry.address() as { port: number }).port;
    broker = await startBroker(
      {
        deniedCidrs: DEFAULT_DENIED_CIDRS.filter((c) => c !== '127.0.0.0/8'),
        callers: [
          { name: 'toolchain-rust', routes: ['otlp'], egress: [{ host: 'registry.example', ports: [port] }] },
        ],
        // The broker's spans leave through its telemetry route, to the test's receiver.
        routes: [
          {
            name: 'otlp',
            kind: 'telemetry',
            upstream: `${receiver.url}/collector`,
            insecureHttp: true,
            credential: { header: 'authorization', prefix: 'Bearer ' },
          },
        ],
        telemetry: { route: 'otlp' },
      },
      {
        tokens: { 'toolchain-rust': TOKEN },
        keys: { otlp: 'otlp-key' },
        resolve: async () => [{ address: '127.0.0.2', family: 4 }],
      },
    );
    ws = makeWorkspace();
    const tokenFile = join(ws.outside, 'broker-token');
    writeFileSync(tokenFile, `${TOKEN}\n`);
    // The test CA inside the workspace: the call's confinement lets children read the image and the workspace,
    // not the server's own TMPDIR, where makeTestCa writes it.
    copyFileSync(ca.caFile, join(ws.root, 'test-ca.pem'));
    writeFileSync(
      join(ws.root, 'fetch.sh'),
      `curl --silent --show-error --fail --max-time 10 --cacert test-ca.pem "https://$1:${port}/crate"\n`,
    );
    const config = makeConfig(ws, {
      tools: { mode: 'exec', allowedCommands: ['sh'] },
      egressProxy: { url: broker.url, user: 'toolchain-rust', tokenFile },
    });
    const options = { config, env: { PATH: process.env.PATH }, log: () => {}, probeVersions: false };
    toolchain = new Toolchain({
      ...options,
      tracer: new Tracer({ sink: { add: (span) => spans.push(span) } }),
    });
    untraced = new Toolchain(options);
  });
  after(async () => {
    await broker?.close();
    await receiver?.close();
    registry?.close();
    ws?.cleanup();
    ca?.cleanup();
  });

  const auditLine = async (match: (line: Record<string, unknown>) => boolean) => {
    for (let i = 0; i < 100; i++) {
      const line = broker.audits().findLast(match);
      if (line) return line;
      await new Promise((r) => setTimeout(r, 20));
    }
    return undefined;
  };

  const fetchVia = async (host: string, via = toolchain) => {
    const result = await via.callTool('exec_allowed', {
      command: ['sh', 'fetch.sh', host],
      cwd: ws.root,
    });
    return result.structuredContent as { exitCode: number; stdout: string; stderr: string };
  };

  it('fetches from a listed name through the broker, authenticated as this toolchain', async () => {
    const out = await fetchVia('registry.example');
    assert.equal(out.exitCode, 0, out.stderr);
    assert.equal(out.stdout, `package from registry.example:${port}`);
    // The tunnel's line is written once both sides have closed, which may be just after curl exits.
    const audit = await auditLine((a) => a.kind === 'connect' && a.decision === 'allowed');
    assert.equal(audit?.caller, 'toolchain-rust');
    assert.equal(audit?.target, `registry.example:${port}`);
  });

  it('fails with the broker refusal for an unlisted name', async () => {
    const out = await fetchVia('unlisted.example');
    assert.notEqual(out.exitCode, 0);
    assert.match(out.stderr, /403/);
    const audit = await auditLine((a) => a.target === `unlisted.example:${port}`);
    assert.equal(audit?.code, 'TOOLYARD_BROKER_HOST_NOT_ALLOWED');
    assert.equal(audit?.caller, 'toolchain-rust');
  });

  it("makes the broker's tunnel span a child of the call's process span, though curl sends no traceparent", async () => {
    const out = await fetchVia('registry.example');
    assert.equal(out.exitCode, 0, out.stderr);
    const exec = spans.findLast((span) => span.name === 'exec sh');
    assert.ok(exec, JSON.stringify(spans.map((span) => span.name)));
    const tunnel = `CONNECT registry.example:${port}`;
    await receiver.waitFor((received) =>
      received.some((span) => span.name === tunnel && span.traceId === exec.traceId),
    );
    const connect = receiver.spans.find((span) => span.name === tunnel && span.traceId === exec.traceId);
    assert.equal(connect?.parentSpanId, exec.spanId);
    assert.equal(connect?.attributes['toolyard.broker.caller'], 'toolchain-rust');
    assert.equal(connect?.attributes['toolyard.class'], 'external-authority');
    // The audit line names the caller alone: the context is no part of the identity and is never audited.
    const audit = await auditLine((a) => a.kind === 'connect' && a.decision === 'allowed');
    assert.equal(audit?.caller, 'toolchain-rust');
    assert.ok(!JSON.stringify(broker.audits()).includes(exec.traceId));
  });

  it('control: an untraced call sends the caller name alone, and its tunnel starts a trace of its own', async () => {
    const before = receiver.spans.length;
    const out = await fetchVia('registry.example', untraced);
    assert.equal(out.exitCode, 0, out.stderr);
    const tunnel = `CONNECT registry.example:${port}`;
    await receiver.waitFor((received) => received.slice(before).some((span) => span.name === tunnel));
    const connect = receiver.spans.slice(before).find((span) => span.name === tunnel);
    assert.equal(connect?.parentSpanId, undefined);
    assert.ok(!spans.some((span) => span.traceId === connect?.traceId));
  });
});
