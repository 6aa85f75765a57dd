/**
 * The sandbox manager's operations over a fake provider whose sandboxes are real sandbox servers (in process, each
 * on its own loopback address): session affinity, bind and per-sandbox tokens, exec and files end to end, the
 * quota with its figures, idle stop with files surviving resume, destroy after retention, a sandbox bound by
 * someone else refused and destroyed, paths refused before anything is sent, and the audit lines. The real
 * providers against a real API server: test/cluster/e2e/sandboxes.e2e.ts.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { memorySink } from '../../toolchain-server/kit/audit-sink.ts';
import type { SandboxManagerConfig } from '../../toolchain-server/sandbox-manager/config.ts';
import { SandboxManager } from '../../toolchain-server/sandbox-manager/manager.ts';
import { sandboxToken, sessionObjectName } from '../../toolchain-server/sandbox-manager/records.ts';
import { SandboxTools } from '../../toolchain-server/sandbox-manager/tools.ts';
import { freePort } from '../support/free-port.ts';
import { FakeProvider } from './fake-provider.ts';
import { testManagerConfig, testTemplate } from './manager-config.ts';

const BOOTSTRAP = 'bootstrap-token-for-the-manager-test';

interface Answer {
  isError: boolean;
  content: { text: string }[];
  structuredContent?: Record<string, unknown>;
}

describe('the sandbox manager (fake provider, real sandbox servers)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolyard-sbx-'));
  const bootstrapFile = join(dir, 'bootstrap');
  let provider: FakeProvider;
  let manager: SandboxManager;
  let tools: SandboxTools;
  let config: SandboxManagerConfig;
  const log = memorySink();
  let offset = 0;
  const clock = { now: () => Date.now() + offset };
  const call = async (tool: string, args: Record<string, unknown>) =>
    (await tools.call(tool, args)) as unknown as Answer;

  before(async () => {
    writeFileSync(bootstrapFile, `${BOOTSTRAP}\n`);
    const port = await freePort();
    config = testManagerConfig(bootstrapFile, [testTemplate('shell', port, { idleTimeoutSeconds: 60 })]);
    provider = new FakeProvider(dir, bootstrapFile, port);
    manager = new SandboxManager(config, provider, BOOTSTRAP, { clock });
    tools = new SandboxTools(manager, log);
  });
  after(() => {
    manager.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a sandbox for a session key, and returns the same one for the same key', async () => {
    const first = await call('sandbox_create', { sessionKey: 'conv-1' });
    assert.equal(first.isError, false, first.content[0]?.text);
    const outcome = first.structuredContent as {
      created: boolean;
      sandbox: { sandbox: string; state: string };
    };
    assert.equal(outcome.created, true);
    assert.equal(outcome.sandbox.state, 'running');
    assert.equal(outcome.sandbox.sandbox, sessionObjectName('tester', 'conv-1'));
    const again = (await call('sandbox_create', { sessionKey: 'conv-1' }))
      .structuredContent as typeof outcome;
    assert.equal(again.created, false);
    assert.equal(again.sandbox.sandbox, outcome.sandbox.sandbox);
    assert.deepEqual(
      provider.calls.filter((c) => c.startsWith('create')),
      [`create ${outcome.sandbox.sandbox}`],
    );
  });

  it('binds the server with a token of that sandbox alone: the bootstrap token no longer works there', async () => {
    const record = provider.record(sessionObjectName('tester', 'conv-1'));
    const url = `http://${record?.endpoint?.ip}:${config.templates[0]!.serverPort}/metrics`;
    const own = sandboxToken(BOOTSTRAP, record?.endpoint?.instance ?? '');
    assert.equal((await fetch(url, { headers: { authorization: `Bearer ${own}` } })).status, 200);
    assert.equal((await fetch(url, { headers: { authorization: `Bearer ${BOOTSTRAP}` } })).status, 401);
  });

  it('uploads, runs a command on the upload, lists and downloads', async () => {
    const up = await call('sandbox_upload', {
      sessionKey: 'conv-1',
      path: 'data/in.txt',
      content: 'hello sandbox\n',
    });
    assert.equal(up.isError, false, up.content[0]?.text);
    const ran = await call('sandbox_exec', { sessionKey: 'conv-1', command: ['cat', 'data/in.txt'] });
    assert.equal(ran.isError, false, ran.content[0]?.text);
    assert.equal(ran.structuredContent?.stdout, 'hello sandbox\n');
    const listed = await call('sandbox_list_files', { sessionKey: 'conv-1', path: 'data' });
    assert.deepEqual(
      ((listed.structuredContent?.entries ?? []) as { path: string }[]).map((e) => e.path),
      ['data/in.txt'],
    );
    const down = await call('sandbox_download', { sessionKey: 'conv-1', path: 'data/in.txt' });
    assert.equal(down.structuredContent?.text, 'hello sandbox\n');
  });

  it('refuses bad paths and oversized uploads before they reach the sandbox', async () => {
    for (const path of ['../etc/passwd', '/etc/passwd', 'a/../../b', ''])
      assert.match(
        (await call('sandbox_download', { sessionKey: 'conv-1', path })).content[0]!.text,
        /TOOLYARD_SANDBOX_(PATH_REFUSED|INVALID_ARGUMENTS)/,
      );
    const big = await call('sandbox_upload', {
      sessionKey: 'conv-1',
      path: 'big',
      content: 'x'.repeat(3000),
    });
    assert.match(big.content[0]!.text, /TOOLYARD_SANDBOX_FILE_TOO_LARGE/);
    assert.match(
      (await call('sandbox_exec', { sessionKey: 'nobody', command: ['ls'] })).content[0]!.text,
      /TOOLYARD_SANDBOX_NOT_FOUND/,
    );
  });

  it('refuses a create beyond maxSandboxes with the figures and the way out, and allows it after a stop', async () => {
    assert.equal((await call('sandbox_create', { sessionKey: 'conv-2' })).isError, false);
    const refused = await call('sandbox_create', { sessionKey: 'conv-3' });
    assert.equal(refused.isError, true);
    assert.match(
      refused.content[0]!.text,
      /TOOLYARD_SANDBOX_QUOTA: 2 sandboxes of the agent are running, the most spec\.sandboxes\.quota\.maxSandboxes allows \(2\)/,
    );
    assert.match(refused.content[0]!.text, /hint: stop or destroy a sandbox/);
    assert.equal(provider.record(sessionObjectName('tester', 'conv-3')), undefined, 'nothing was created');
    assert.equal((await call('sandbox_stop', { sessionKey: 'conv-2' })).isError, false);
    assert.equal((await call('sandbox_create', { sessionKey: 'conv-3' })).isError, false);
    const kept = await call('sandbox_create', { sessionKey: 'conv-4' });
    assert.match(kept.content[0]!.text, /TOOLYARD_SANDBOX_QUOTA: the agent keeps 3 sandboxes/);
  });

  it('stops a sandbox idle past its timeout; its files survive the resume a later call makes', async () => {
    await call('sandbox_stop', { sessionKey: 'conv-3' });
    offset += 61_000;
    const pass = await manager.lifecycle();
    assert.deepEqual(pass.stopped, [sessionObjectName('tester', 'conv-1')]);
    assert.equal(provider.record(sessionObjectName('tester', 'conv-1'))?.state, 'stopped');
    const down = await call('sandbox_download', { sessionKey: 'conv-1', path: 'data/in.txt' });
    assert.equal(down.isError, false, down.content[0]?.text);
    assert.equal(down.structuredContent?.text, 'hello sandbox\n', 'the workspace survived stop and resume');
    assert.ok(provider.calls.includes(`resume ${sessionObjectName('tester', 'conv-1')}`));
  });

  it('destroys stopped sandboxes and their workspaces after the retention period', async () => {
    offset += 3_601_000;
    const name = sessionObjectName('tester', 'conv-2');
    assert.ok(existsSync(join(dir, name)));
    const pass = await manager.lifecycle();
    assert.ok(pass.destroyed.includes(name), JSON.stringify(pass));
    assert.equal(existsSync(join(dir, name)), false);
    assert.equal(provider.record(name), undefined);
  });

  it('refuses and destroys a sandbox someone else bound first', async () => {
    await call('sandbox_destroy', { sessionKey: 'conv-3' });
    const name = sessionObjectName('tester', 'hijacked');
    await provider.create(name, 'hijacked', config.templates[0]!);
    const record = provider.record(name);
    const bind = await fetch(
      `http://${record?.endpoint?.ip}:${config.templates[0]!.serverPort}/sandbox/bind`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${BOOTSTRAP}`, 'content-type': 'application/json' },
        body: JSON.stringify({ session: 'attacker', token: 'z'.repeat(64) }),
      },
    );
    assert.equal(bind.status, 200, 'control: the first bind wins');
    const answer = await call('sandbox_exec', { sessionKey: 'hijacked', command: ['ls'] });
    assert.match(
      answer.content[0]!.text,
      /TOOLYARD_SANDBOX_BIND_FAILED: sandbox .* was bound to a session by someone else/,
    );
    assert.equal(provider.record(name), undefined, 'the manager destroyed it');
  });

  it('writes one audit line per call, with the session hashed and never the key', () => {
    const audits = log.lines.filter((l) => l.event === 'sandbox-audit');
    assert.ok(audits.length >= 12);
    assert.ok(audits.some((l) => l.decision === 'denied' && l.code === 'TOOLYARD_SANDBOX_QUOTA'));
    assert.ok(audits.every((l) => Object.keys(l).length === 12));
    assert.doesNotMatch(JSON.stringify(audits), /conv-1|hijacked"/);
  });
});
