/** The process runner: argv only, process-group timeouts, bounded output tails, cancellation, progress. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it, mock } from 'node:test';
import {
  type RunRequest,
  runCommand,
  TailBuffer,
  terminateGroup,
} from '../../toolchain-server/src/runner.ts';
import { makeWorkspace, pidAlive, type Workspace, waitFor } from './helpers.ts';

let ws: Workspace;
before(() => {
  ws = makeWorkspace();
});
after(() => ws.cleanup());

function request(file: string, args: string[], extra: Partial<RunRequest> = {}): RunRequest {
  return {
    file,
    argv0: file.split('/').pop()!,
    args,
    cwd: ws.root,
    env: { PATH: '/usr/bin:/bin' },
    timeoutMs: 10_000,
    maxOutputBytes: 1024 * 1024,
    killGraceMs: 300,
    ...extra,
  };
}

describe('TailBuffer', () => {
  it('keeps exactly the last cap bytes and counts the rest as dropped', () => {
    const tail = new TailBuffer(10);
    for (const part of ['0123456789', 'abcdef', 'XYZ']) tail.push(Buffer.from(part));
    assert.equal(tail.text(), '789abcdefXYZ'.slice(-10));
    assert.equal(tail.total, 19);
    assert.equal(tail.dropped, 9);
    tail.push(Buffer.alloc(100, 'z'));
    assert.equal(tail.text(), 'z'.repeat(10));
    assert.equal(tail.dropped, 109);
  });

  it('matches a naive tail for random chunk sizes across ring wrap-arounds', () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 50; round++) {
      const cap = 1 + Math.floor(random() * 40);
      const tail = new TailBuffer(cap);
      let all = '';
      for (let i = 0; i < 30; i++) {
        const part = Array.from({ length: Math.floor(random() * cap * 1.5) }, () =>
          String.fromCharCode(97 + Math.floor(random() * 26)),
        ).join('');
        all += part;
        tail.push(Buffer.from(part));
        assert.equal(tail.text(), all.slice(-cap), `cap ${cap} after ${all.length} bytes`);
        assert.equal(tail.dropped, Math.max(0, all.length - cap));
      }
    }
  });

  it('does not start the tail in the middle of a UTF-8 character', () => {
    const tail = new TailBuffer(5);
    tail.push(Buffer.from('ééé')); // 6 bytes: the cut falls inside the first é
    assert.equal(tail.text(), 'éé');
  });
});

describe('runCommand', () => {
  it('runs argv without a shell and captures both streams', async () => {
    const r = await runCommand(
      request('/bin/sh', ['-c', 'echo "$0:$1"; echo err >&2; exit 3', 'literal $(id)', '`x`']),
    );
    assert.equal(r.exitCode, 3);
    assert.equal(r.stdout, 'literal $(id):`x`\n');
    assert.equal(r.stderr, 'err\n');
    assert.equal(r.truncated, false);
    assert.equal(r.timedOut, false);
  });

  it('passes only the given environment', async () => {
    process.env.TOOLYARD_TEST_SECRET = 'must-not-leak';
    const r = await runCommand(request('/usr/bin/env', [], { env: { ONLY: 'this' } }));
    delete process.env.TOOLYARD_TEST_SECRET;
    assert.equal(r.stdout.trim(), 'ONLY=this');
  });

  it('kills the whole process group on timeout, grandchildren included', async () => {
    const pidFile = join(ws.root, 'timeout.pid');
    const r = await runCommand(
      request('/bin/sh', ['-c', `sleep 30 & echo $! > ${pidFile}; wait`], { timeoutMs: 200 }),
    );
    assert.equal(r.timedOut, true);
    assert.equal(r.exitCode, null);
    assert.equal(r.signal, 'SIGTERM');
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    await waitFor(() => !pidAlive(grandchild), 2000, 'grandchild to die');
  });

  it('escalates to SIGKILL when the group ignores SIGTERM', async () => {
    const r = await runCommand(
      request('/bin/sh', ['-c', 'trap "" TERM; sleep 30 & wait; sleep 30'], {
        timeoutMs: 150,
        killGraceMs: 150,
      }),
    );
    assert.equal(r.timedOut, true);
    assert.equal(r.signal, 'SIGKILL');
  });

  it('leaves no straggler when the child exits and a grandchild lingers in its group', async () => {
    const pidFile = join(ws.root, 'daemon.pid');
    const r = await runCommand(
      request('/bin/sh', ['-c', `(sleep 30 >/dev/null 2>&1 &  echo $! > ${pidFile})`]),
    );
    assert.equal(r.exitCode, 0);
    const daemon = Number(readFileSync(pidFile, 'utf8'));
    await waitFor(() => !pidAlive(daemon), 2000, 'lingering grandchild to die');
  });

  it('keeps the tail of large output and says how much was dropped', async () => {
    const script =
      "process.stdout.write('a'.repeat(3_000_000)); process.stdout.write('TAIL-END'); process.stderr.write('e'.repeat(10))";
    const r = await runCommand(request(process.execPath, ['-e', script], { maxOutputBytes: 64 * 1024 }));
    assert.equal(r.exitCode, 0);
    assert.equal(r.stdout.length, 64 * 1024);
    assert.ok(r.stdout.endsWith('TAIL-END'));
    assert.equal(r.stdoutBytes, 3_000_008);
    assert.equal(r.stdoutDroppedBytes, 3_000_008 - 64 * 1024);
    assert.equal(r.stderr, 'eeeeeeeeee');
    assert.equal(r.stderrDroppedBytes, 0);
    assert.equal(r.truncated, true);
  });

  it('holds memory bounded whatever the child prints', async () => {
    const script =
      "const b = Buffer.alloc(1 << 20, 120); let n = 0; const w = () => { while (n < 150) { n++; if (!process.stdout.write(b)) return process.stdout.once('drain', w); } }; w();";
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    const r = await runCommand(request(process.execPath, ['-e', script], { maxOutputBytes: 1024 * 1024 }));
    clearInterval(sampler);
    assert.equal(r.stdoutBytes, 150 * 1024 * 1024);
    assert.equal(r.stdout.length, 1024 * 1024);
    const growthMb = (peak - baseline) / 1024 / 1024;
    assert.ok(growthMb < 32, `RSS grew ${growthMb.toFixed(1)} MB while the child printed 150 MB`);
  });

  it('kills the group when the signal aborts, and reports cancellation', async () => {
    const pidFile = join(ws.root, 'cancel.pid');
    const controller = new AbortController();
    const running = runCommand(
      request('/bin/sh', ['-c', `sleep 30 & echo $! > ${pidFile}; wait`], { signal: controller.signal }),
    );
    await waitFor(() => {
      try {
        return readFileSync(pidFile, 'utf8').trim() !== '';
      } catch {
        return false;
      }
    });
    controller.abort();
    const r = await running;
    assert.equal(r.cancelled, true);
    assert.equal(r.timedOut, false);
    await waitFor(() => !pidAlive(Number(readFileSync(pidFile, 'utf8'))), 2000, 'grandchild to die');
  });

  it('reports progress while the command runs', async () => {
    const progress: number[] = [];
    await runCommand(
      request('/bin/sleep', ['0.35'], {
        progressIntervalMs: 100,
        onProgress: (p) => progress.push(p.elapsedMs),
      }),
    );
    assert.ok(progress.length >= 2, `got ${progress.length} progress callbacks`);
    assert.ok(
      progress.every((v, i) => i === 0 || v > progress[i - 1]!),
      'progress increases',
    );
  });

  it('rejects with TOOLYARD_SPAWN_FAILED when the binary cannot start', async () => {
    await assert.rejects(runCommand(request(join(ws.root, 'missing-binary'), [])), {
      code: 'TOOLYARD_SPAWN_FAILED',
    });
  });
});

describe('terminateGroup (fake timers)', () => {
  it('sends SIGTERM at once and SIGKILL only after the grace period', async () => {
    const child = spawn('/bin/sh', ['-c', 'trap "" TERM; echo ready; while :; do sleep 1; done'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    await new Promise((r) => child.stdout.once('data', r));
    const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_c, s) => r(s)));
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      terminateGroup(child.pid!, 5000, () => false);
      mock.timers.tick(4999);
      await new Promise((r) => setImmediate(r));
      assert.equal(child.exitCode, null);
      assert.equal(
        child.signalCode,
        null,
        'SIGTERM is ignored, so the group is still alive before the grace ends',
      );
      mock.timers.tick(1);
    } finally {
      mock.timers.reset();
    }
    assert.equal(await exited, 'SIGKILL');
  });

  it('does not SIGKILL when the process finished within the grace period', () => {
    const kill = mock.method(process, 'kill', () => true);
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      terminateGroup(424242, 1000, () => true);
      mock.timers.tick(1000);
      assert.deepEqual(
        kill.mock.calls.map((c) => c.arguments),
        [[-424242, 'SIGTERM']],
      );
    } finally {
      mock.timers.reset();
      kill.mock.restore();
    }
  });
});
