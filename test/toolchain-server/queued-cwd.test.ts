/**
 * Issue 18's queued cwd swap: a call checked while the concurrency slots were taken waits in the queue, and the
 * calls before it may rename directories and plant symlinks meanwhile. The cwd checked must be the cwd used
 * (pinned-cwd.ts), and the operands are checked again once the call leaves the queue. Confinement is off here:
 * this is the server's own guarantee, not the kernel's (which would stop the writes too).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { PinnedCwd } from '../../toolchain-server/src/pinned-cwd.ts';
import { connectClient, makeWorkspace, type Workspace, waitFor } from './helpers.ts';
import { type ServerProcess, startServerProcess } from './process-helpers.ts';

interface Result {
  isError?: boolean;
  structuredContent?: { stdout: string; exitCode: number | null; cwd: string };
  _meta?: Record<string, { code: string } | undefined>;
}

const SECRET = 'queued-cwd-secret-canary';

describe('a queued call runs in the cwd it was checked with', () => {
  let ws: Workspace;
  let server: ServerProcess;
  let client: Client;
  before(async () => {
    ws = makeWorkspace();
    for (const d of ['a', 'b', 'c/d', 'keep', 'sub']) mkdirSync(join(ws.root, d), { recursive: true });
    mkdirSync(join(ws.outside, 'd'));
    writeFileSync(join(ws.outside, 'x'), `${SECRET}\n`);
    writeFileSync(join(ws.root, 'sub', 'x'), 'inside\n');
    // Writes a mark into its working directory, wherever that is.
    writeFileSync(join(ws.root, 'mark.sh'), 'echo pwned > mark && pwd\n');
    // The first call: holds the only slot until the others are queued, then swaps what they were checked with.
    writeFileSync(
      join(ws.root, 'swap.sh'),
      [
        'until [ -e go ]; do sleep 0.02; done',
        'mv a a.orig && ln -s "$1" a', // renamed, a symlink out in its place
        'rmdir b && ln -s "$1" b', // removed, a symlink out in its place
        'mv c c.orig && ln -s "$1" c', // a parent swapped: c/d now leads to outside/d
        'mv keep kept', // renamed within the roots, nothing put in its place
        'mv sub sub.orig && ln -s "$1" sub', // an operand's parent swapped
        '',
      ].join('\n'),
    );
    server = await startServerProcess({
      dir: ws.outside,
      config: {
        name: 'queued',
        listen: { host: '127.0.0.1', port: 0 },
        workspaceRoots: [ws.root],
        tools: { mode: 'exec', allowedCommands: ['sh', 'cat'] },
        env: { passthrough: ['PATH'] },
        limits: { maxConcurrency: 1, maxQueue: 8, confinement: 'off' },
      },
    });
    client = await connectClient(server.url);
  });
  after(async () => {
    await client?.close();
    server?.child.kill('SIGTERM');
    await server?.exited;
    ws?.cleanup();
  });

  it('refuses every queued call whose cwd or operand an earlier call swapped', async () => {
    const exec = (command: string[], cwd?: string) =>
      client.callTool({
        name: 'exec_allowed',
        arguments: cwd ? { command, cwd } : { command },
      }) as Promise<Result>;
    const swap = exec(['sh', 'swap.sh', ws.outside]);
    await waitFor(
      async () => /toolyard_tool_calls_in_flight 1/.test(await (await fetch(`${server.url}/metrics`)).text()),
      5000,
      'the swapping call to hold the slot',
    );
    const script = join(ws.root, 'mark.sh');
    const queued = [
      exec(['sh', script], 'a'),
      exec(['sh', script], 'b'),
      exec(['sh', script], 'c/d'),
      exec(['sh', script], 'keep'),
      exec(['cat', 'sub/x']),
    ];
    await waitFor(
      async () => /toolyard_tool_queue_depth 5/.test(await (await fetch(`${server.url}/metrics`)).text()),
      5000,
      'five calls to queue behind it',
    );
    writeFileSync(join(ws.root, 'go'), '');
    assert.equal(((await swap).structuredContent as { exitCode: number }).exitCode, 0);
    const results = await Promise.all(queued);

    const outside = readdirSync(ws.outside).filter((f) => !f.startsWith('config-'));
    assert.deepEqual(outside.sort(), ['d', 'x'], 'nothing was written outside the roots');
    assert.equal(existsSync(join(ws.outside, 'd', 'mark')), false);
    for (const r of results) assert.ok(!JSON.stringify(r).includes(SECRET), 'the swapped operand was read');
    const codes = results.map((r) => r._meta?.['dev.toolyard/error']?.code);
    // Every moved cwd is refused, saying it moved; the operand swapped under `sub` is refused by the re-check.
    assert.deepEqual(codes, [
      'TOOLYARD_CWD_NOT_FOUND',
      'TOOLYARD_CWD_NOT_FOUND',
      'TOOLYARD_CWD_NOT_FOUND',
      'TOOLYARD_CWD_NOT_FOUND',
      'TOOLYARD_POLICY_DENIED',
    ]);
    assert.match(JSON.stringify(results[0]), /was moved or replaced after it was checked/);
  });

  it('the pinned directory is the one a child starts in, whatever its path names since', () => {
    mkdirSync(join(ws.root, 'pin'));
    const pinned = PinnedCwd.open(join(ws.root, 'pin'));
    try {
      renameSync(join(ws.root, 'pin'), join(ws.root, 'pinned'));
      symlinkSync(ws.outside, join(ws.root, 'pin'));
      assert.equal(pinned.unchanged(), false);
      const r = spawnSync('pwd', ['-P'], { cwd: pinned.spawnPath, encoding: 'utf8' });
      assert.equal(r.stdout.trim(), join(ws.root, 'pinned'));
    } finally {
      pinned.close();
    }
  });

  it('control: a path-based cwd and operand follow the swap (what the server used to run)', () => {
    // The swap has happened: the checked directories are now symlinks out of the workspace.
    for (const dir of ['a', 'b', 'c/d']) {
      const r = spawnSync('sh', [join(ws.root, 'mark.sh')], { cwd: join(ws.root, dir), encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
    }
    assert.ok(existsSync(join(ws.outside, 'mark')) && existsSync(join(ws.outside, 'd', 'mark')));
    const read = spawnSync('cat', ['sub/x'], { cwd: ws.root, encoding: 'utf8' });
    assert.equal(read.stdout.trim(), SECRET);
  });
});
