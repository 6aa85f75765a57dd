/** The command line: invalid configs exit non-zero naming the bad field; the listening line; --help. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SERVER_OWN_ENV } from '../../toolchain-server/src/policy/env.ts';
import { connectClient, makeWorkspace, type Workspace } from './helpers.ts';
import { SOURCE_ENTRY, startServerProcess } from './process-helpers.ts';

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [SOURCE_ENTRY, ...args], { encoding: 'utf8', timeout: 15_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('toolyard-toolchain-server CLI', () => {
  let ws: Workspace;
  before(() => {
    ws = makeWorkspace();
  });
  after(() => ws.cleanup());

  const invalid: ReadonlyArray<readonly [string, unknown, readonly string[]]> = [
    [
      'bad name and port',
      { name: 'Bad_Name', listen: { port: 70000 }, workspaceRoots: ['/w'] },
      ['/name', '/listen/port'],
    ],
    ['missing roots', { name: 'x', listen: { port: 0 } }, ['/workspaceRoots']],
    ['relative root', { name: 'x', listen: { port: 0 }, workspaceRoots: ['rel'] }, ['/workspaceRoots/0']],
    [
      'unknown preset',
      { name: 'x', listen: { port: 0 }, workspaceRoots: ['/w'], tools: { presets: ['java'] } },
      ['/tools/presets/0'],
    ],
    [
      'path as command',
      { name: 'x', listen: { port: 0 }, workspaceRoots: ['/w'], tools: { allowedCommands: ['/bin/sh'] } },
      ['/tools/allowedCommands/0'],
    ],
    [
      'negative queue',
      { name: 'x', listen: { port: 0 }, workspaceRoots: ['/w'], limits: { maxQueue: -1 } },
      ['/limits/maxQueue'],
    ],
    ['unknown field', { name: 'x', listen: { port: 0 }, workspaceRoots: ['/w'], shell: true }, ['/']],
  ];
  for (const [label, config, paths] of invalid) {
    it(`exits non-zero naming the field for ${label}`, () => {
      const file = join(ws.outside, `${label.replace(/\W/g, '-')}.json`);
      writeFileSync(file, JSON.stringify(config));
      const r = run(['--config', file]);
      assert.equal(r.status, 2, r.stderr);
      for (const path of paths)
        assert.ok(r.stderr.includes(`  ${path}: `), `stderr names ${path}:\n${r.stderr}`);
      assert.equal(r.stdout, '');
    });
  }

  it('exits non-zero for a missing file, bad JSON, missing --config and unknown flags', () => {
    const bad = join(ws.outside, 'bad.json');
    writeFileSync(bad, '{ nope');
    for (const args of [
      ['--config', join(ws.outside, 'missing.json')],
      ['--config', bad],
      [],
      ['--config', bad, '--shell'],
    ]) {
      const r = run(args);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /toolyard-toolchain-server: /);
    }
  });

  it('prints usage with --help', () => {
    const r = run(['--help']);
    assert.equal(r.status, 0);
    assert.match(r.stdout, /--config <file.json>/);
  });

  it('prints {"event":"listening","port":N} first, then reports missing binaries', async () => {
    const server = await startServerProcess({
      dir: ws.outside,
      config: {
        name: 'cli',
        listen: { host: '127.0.0.1', port: 0 },
        health: { host: '127.0.0.1', port: 0 },
        workspaceRoots: [ws.root],
        tools: { mode: 'structured', presets: ['helm'] },
      },
      env: { PATH: '/usr/bin:/bin' },
    });
    try {
      assert.deepEqual(server.lines[0], { event: 'listening', port: server.port });
      assert.ok(server.port > 0);
      await new Promise((r) => setTimeout(r, 200));
      const health = server.lines.find((l) => l.event === 'health-listening');
      assert.ok(health && typeof health.port === 'number' && health.port !== server.port);
      const ready = await fetch(`http://127.0.0.1:${health.port as number}/readyz`);
      assert.equal(ready.status, 503, 'helm is missing, so not ready');
      const report = server.lines.find((l) => l.event === 'toolchain');
      assert.deepEqual(report?.missingBinaries, ['helm']);
      assert.match(server.stderr(), /not ready: missing binaries \[helm\]/);
    } finally {
      server.child.kill('SIGTERM');
      assert.equal((await server.exited).code, 0);
    }
  });

  it('re-executes with the passthrough names and its own malloc setting; a child gets neither the rest nor that setting', async () => {
    const server = await startServerProcess({
      dir: ws.outside,
      config: {
        name: 'env',
        listen: { host: '127.0.0.1', port: 0 },
        workspaceRoots: [ws.root],
        tools: { mode: 'exec', allowedCommands: ['printenv'] },
        env: { passthrough: ['PATH'] },
        limits: { confinement: 'off' },
      },
      env: {
        PATH: '/usr/bin:/bin',
        HOME: '/home/x',
        GLIBC_TUNABLES: 'glibc.malloc.arena_max=9',
        SECRET: 'canary',
      },
    });
    try {
      const environ = readFileSync(`/proc/${server.child.pid}/environ`, 'utf8').split('\0').filter(Boolean);
      assert.deepEqual(
        environ.sort(),
        ['PATH=/usr/bin:/bin', `GLIBC_TUNABLES=${SERVER_OWN_ENV.GLIBC_TUNABLES}`].sort(),
      );
      const client = await connectClient(server.url);
      const result = await client.callTool({ name: 'exec_allowed', arguments: { command: ['printenv'] } });
      const text = (result.content as { type: string; text: string }[]).map((c) => c.text).join('');
      assert.doesNotMatch(text, /GLIBC_TUNABLES|SECRET|HOME=\/home\/x/);
      assert.match(text, /^PATH=\/usr\/bin:\/bin$/m);
      await client.close();
    } finally {
      server.child.kill('SIGTERM');
      assert.equal((await server.exited).code, 0);
    }
  });
});
