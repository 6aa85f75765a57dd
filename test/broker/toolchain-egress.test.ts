/**
 * The toolchain server's children reach the internet through the broker by name: a workspace script run by
 * `exec_allowed` fetches over TLS with curl, which finds the broker in `https_proxy` (this toolchain's caller
 * name and token in the URL), through a CONNECT tunnel the broker allows for that caller's list only.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_DENIED_CIDRS } from '../../toolchain-server/broker/config.ts';
import { Toolchain } from '../../toolchain-server/src/toolchain.ts';
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

  before(async () => {
    ca = makeTestCa(['registry.example', 'unlisted.example']);
    registry = createServer({ cert: ca.cert, key: ca.key }, (request, response) => {
      response.end(`package from ${request.headers.host}`);
    });
    await new Promise<void>((r) => registry.listen(0, '127.0.0.2', r));
    port = (registry.address() as { port: number }).port;
    broker = await startBroker(
      {
        deniedCidrs: DEFAULT_DENIED_CIDRS.filter((c) => c !== '127.0.0.0/8'),
        callers: [{ name: 'toolchain-rust', egress: [{ host: 'registry.example', ports: [port] }] }],
      },
      { tokens: { 'toolchain-rust': TOKEN }, resolve: async () => [{ address: '127.0.0.2', family: 4 }] },
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
    toolchain = new Toolchain({
      config: makeConfig(ws, {
        tools: { mode: 'exec', allowedCommands: ['sh'] },
        egressProxy: { url: broker.url, user: 'toolchain-rust', tokenFile },
      }),
      env: { PATH: process.env.PATH },
      log: () => {},
      probeVersions: false,
    });
  });
  after(async () => {
    await broker?.close();
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

  const fetchVia = async (host: string) => {
    const result = await toolchain.callTool('exec_allowed', {
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
});
