/**
 * The bundled broker as the image runs it: the single file next to bin/node with no node_modules above it,
 * started with the image's entrypoint and an empty environment, answers /healthz and a route, stops on
 * SIGTERM; a bad config is reported as `config-error` with exit code 2.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { brokerCommand } from '../../toolchain-server/broker/launch.ts';
import { bundleBroker } from '../../toolchain-server/scripts/bundle.ts';

function start(argv: readonly string[]): { child: ChildProcess; stdout: () => string; stderr: () => string } {
  const child = spawn(argv[0]!, argv.slice(1), { env: {}, cwd: '/', stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
  });
  return { child, stdout: () => out, stderr: () => err };
}

async function until<T>(check: () => T | undefined, what: () => string, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out: ${what()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('bundled broker (image entrypoint contract)', () => {
  let dir: string;
  let opt: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolyard-broker-bundle-'));
    opt = join(dir, 'opt', 'toolyard');
    mkdirSync(join(opt, 'bin'), { recursive: true });
    symlinkSync(process.execPath, join(opt, 'bin', 'node'));
    await bundleBroker(join(opt, 'toolyard-broker.mjs'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('has no node_modules to lean on anywhere above the bundle', () => {
    for (let d = opt; ; d = dirname(d)) {
      assert.equal(existsSync(join(d, 'node_modules')), false, `${d}/node_modules exists`);
      if (d === dirname(d)) break;
    }
  });

  it('listens, answers /healthz and a route refusal, and stops on SIGTERM', async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'bundle-test-token\n');
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        agent: 'bundle-test',
        listen: { host: '127.0.0.1', port: 0 },
        health: { host: '127.0.0.1', port: 0 },
        callers: [{ name: 'claude', tokenFile }],
      }),
    );
    const broker = start([...brokerCommand(opt), '--config', config]);
    try {
      const listening = await until(
        () => {
          const line = broker
            .stdout()
            .split('\n')
            .find((l) => l.includes('"listening"'));
          return line ? (JSON.parse(line) as { port: number; healthPort: number }) : undefined;
        },
        () => broker.stderr(),
      );
      const health = await fetch(`http://127.0.0.1:${listening.healthPort}/healthz`);
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { status: 'ok' });
      const refused = await fetch(`http://127.0.0.1:${listening.port}/anthropic/v1/messages`, {
        headers: { 'x-api-key': 'not-a-token' },
      });
      assert.equal(refused.status, 401);
      await until(
        () => (broker.stdout().includes('"broker-audit"') ? true : undefined),
        () => broker.stdout(),
      );
    } finally {
      broker.child.kill('SIGTERM');
    }
    const code = await new Promise<number | null>((resolve) => broker.child.once('exit', resolve));
    assert.equal(code, 0, broker.stderr());
    assert.match(broker.stdout(), /"event":"stopped"/);
    assert.ok(!broker.stdout().includes('bundle-test-token'), 'the token reached stdout');
  });

  it('reports a bad config as config-error lines and exits 2', async () => {
    const config = join(dir, 'bad.json');
    writeFileSync(
      config,
      JSON.stringify({
        agent: 'x',
        listen: { port: 8480 },
        health: { port: 9480 },
        deniedCidrs: ['10.0.0.1/8'],
        routes: [{ name: 'r', kind: 'model', upstream: 'http://api.example' }],
        callers: [{ name: 'c', tokenFile: '/t', routes: ['nope'] }],
      }),
    );
    const broker = start([...brokerCommand(opt), '--config', config]);
    const code = await new Promise<number | null>((resolve) => broker.child.once('exit', resolve));
    assert.equal(code, 2);
    const line = broker
      .stderr()
      .split('\n')
      .find((l) => l.startsWith('{'))!;
    const report = JSON.parse(line) as { event: string; issues: { path: string }[] };
    assert.equal(report.event, 'config-error');
    assert.deepEqual(report.issues.map((i) => i.path).sort(), [
      '/callers/0/routes/0',
      '/deniedCidrs/0',
      '/routes/0/upstream',
    ]);
  });
});
