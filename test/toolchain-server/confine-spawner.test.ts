/**
 * The resident spawner (`toolyard-confine --serve` and its Node side, ConfineSpawner): calls run concurrently with
 * their own streams and statuses, floods stay bounded, nothing a call starts outlives it — also when its reaper is
 * killed from outside or the spawner itself dies — the checked cwd is entered only if it is still that directory,
 * the scratch directory is made and removed by the helper, and the command inherits no descriptor but 0-2.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildConfine, hostConfinePath } from '../../toolchain-server/scripts/build-confine.ts';
import { parseReports } from '../../toolchain-server/src/confinement/helper.ts';
import { type ConfinedRunRequest, ConfineSpawner } from '../../toolchain-server/src/confinement/spawner.ts';
import { ToolError } from '../../toolchain-server/src/errors.ts';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function waitFor(what: string, check: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the resident spawner', () => {
  let dir: string;
  let spawner: ConfineSpawner;
  const call = (script: string, more: Partial<ConfinedRunRequest> = {}) =>
    spawner.run({
      file: '/bin/sh',
      argv0: 'sh',
      args: ['-c', script],
      cwd: dir,
      env: { PATH: '/usr/bin:/bin' },
      timeoutMs: 20_000,
      maxOutputBytes: 64 * 1024,
      killGraceMs: 300,
      helperArgs: ['--mode', 'best-effort', '--ro', '/', '--rw', dir],
      ...more,
    });

  before(async () => {
    await buildConfine(process.arch === 'arm64' ? 'arm64' : 'amd64');
    dir = mkdtempSync(join(tmpdir(), 'toolyard-spawner-'));
    spawner = new ConfineSpawner(hostConfinePath());
  });
  after(() => {
    spawner.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs concurrent calls, each with its own stdout, stderr, exit code and report', async () => {
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) => call(`echo out-${i}; echo err-${i} >&2; exit ${i}`)),
    );
    results.forEach((r, i) => {
      assert.equal(r.stdout, `out-${i}\n`);
      assert.equal(r.stderr, `err-${i}\n`);
      assert.equal(r.exitCode, i);
      assert.equal(r.signal, null);
      const reports = parseReports(r.confineReport);
      assert.equal(reports[0]?.status, 'enforced');
      assert.equal(reports.at(-1)?.killed, '0');
    });
    assert.equal(spawner.calls, 0);
  });

  it("relays the command's killing signal by name", async () => {
    const r = await call('kill -USR1 $$');
    assert.equal(r.exitCode, null);
    assert.equal(r.signal, 'SIGUSR1');
  });

  it('keeps the tail of a flood within the cap and counts every byte', async () => {
    const r = await call('seq 1 400000');
    const expected = Array.from({ length: 400000 }, (_, i) => `${i + 1}\n`).join('');
    assert.equal(r.stdoutBytes, Buffer.byteLength(expected));
    assert.equal(r.truncated, true);
    assert.ok(expected.endsWith(r.stdout), 'the kept text is the tail of the output');
    assert.ok(Buffer.byteLength(r.stdout) <= 64 * 1024);
  });

  it('gives the command no descriptor beyond 0, 1 and 2', async () => {
    const r = await call('ls /proc/self/fd');
    // ls itself holds one open directory (the listing): everything else would be inherited.
    const fds = r.stdout.trim().split('\n').map(Number);
    assert.deepEqual(
      fds.filter((fd) => fd > 2),
      [3],
      `fds: ${fds.join(' ')}`,
    );
  });

  it('kills what the command left running (setsid, background) when it exits', async () => {
    const pidFile = join(dir, 'left.pid');
    const started = Date.now();
    const r = await call(`setsid sleep 60 & echo $! > ${pidFile}; exit 0`);
    assert.ok(Date.now() - started < 10_000, 'the call does not wait for the sleeper');
    assert.equal(r.exitCode, 0);
    assert.ok(Number(parseReports(r.confineReport).at(-1)?.killed) >= 1, r.confineReport);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await waitFor('the setsid sleeper to be gone', () => !alive(pid));
  });

  it('times out and cancels: the whole call is terminated, and says which', async () => {
    const timed = await call('sleep 30', { timeoutMs: 200 });
    assert.equal(timed.timedOut, true);
    assert.equal(timed.signal, 'SIGTERM');
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 200);
    const cancelled = await call('trap "" TERM; sleep 30; sleep 30', { signal: abort.signal });
    assert.equal(cancelled.cancelled, true);
    assert.equal(cancelled.signal, 'SIGKILL', 'ignored SIGTERM: killed after the grace');
  });

  it('kills the orphans of a reaper killed from outside, and ends the call', async () => {
    const pidFile = join(dir, 'orphan.pid');
    // The shell's parent is its reaper.
    const running = call(`setsid sleep 60 & echo $! $PPID > ${pidFile}; sleep 60`);
    await waitFor('the sleeper to start', () => existsSync(pidFile) && statSync(pidFile).size > 0);
    const [orphan, reaper] = readFileSync(pidFile, 'utf8').trim().split(' ').map(Number) as [number, number];
    process.kill(reaper, 'SIGKILL');
    const r = await running;
    assert.equal(r.signal, 'SIGKILL');
    await waitFor('the orphan to be gone', () => !alive(orphan));
  });

  it('fails the running calls when the spawner dies, and starts a new one for the next call', async () => {
    const running = call('sleep 60');
    await waitFor('the call to start', () => spawner.pid !== undefined && spawner.calls === 1);
    const first = spawner.pid!;
    process.kill(first, 'SIGKILL');
    await assert.rejects(
      running,
      (e: unknown) => e instanceof ToolError && e.code === 'TOOLYARD_CONFINEMENT_FAILED',
    );
    const r = await call('echo again');
    assert.equal(r.stdout, 'again\n');
    assert.notEqual(spawner.pid, first);
  });

  it('ends its calls and exits when the server closes it', async () => {
    const own = new ConfineSpawner(hostConfinePath());
    const running = own.run({
      file: '/bin/sleep',
      argv0: 'sleep',
      args: ['60'],
      cwd: dir,
      env: {},
      timeoutMs: 20_000,
      maxOutputBytes: 1024,
      killGraceMs: 300,
      helperArgs: ['--mode', 'best-effort', '--ro', '/'],
    });
    await waitFor('the call to start', () => own.pid !== undefined && own.calls === 1);
    const pid = own.pid!;
    own.close();
    const r = await running;
    assert.equal(r.signal, 'SIGTERM');
    await waitFor('the spawner to exit', () => !alive(pid));
  });

  it('dies with the server, and so does every call it was running', async () => {
    // A server process of its own (killed with SIGKILL: no drain, no close) running one call.
    const script = join(dir, 'server.ts');
    writeFileSync(
      script,
      `import { ConfineSpawner } from ${JSON.stringify(join(import.meta.dirname, '../../toolchain-server/src/confinement/spawner.ts'))};
const spawner = new ConfineSpawner(${JSON.stringify(hostConfinePath())});
void spawner.run({ file: '/bin/sh', argv0: 'sh', args: ['-c', 'echo $$ $PPID > ${join(dir, 'call.pid')}; exec sleep 60'], cwd: '/',
  env: {}, timeoutMs: 60000, maxOutputBytes: 1024, killGraceMs: 300,
  helperArgs: ['--mode', 'best-effort', '--ro', '/', '--rw', ${JSON.stringify(dir)}] });
setTimeout(() => process.stdout.write('spawner ' + spawner.pid + '\\n'), 100);
setInterval(() => {}, 1000);
`,
    );
    const { spawn } = await import('node:child_process');
    const server = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    server.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    const callPids = join(dir, 'call.pid');
    try {
      await waitFor(
        'the call to start',
        () => /spawner \d+/.test(out) && existsSync(callPids) && statSync(callPids).size > 0,
      );
    } finally {
      if (!/spawner \d+/.test(out) || !existsSync(callPids)) server.kill('SIGKILL');
    }
    const spawnerPid = Number(/spawner (\d+)/.exec(out)![1]);
    // The shell (exec'd into sleep) and its parent, the reaper.
    const [sleeper, reaper] = readFileSync(callPids, 'utf8').trim().split(' ').map(Number) as [
      number,
      number,
    ];
    assert.ok(alive(sleeper) && alive(reaper) && alive(spawnerPid));
    server.kill('SIGKILL');
    await waitFor('the spawner, the reaper and the sleeper to be gone', () =>
      [spawnerPid, reaper, sleeper].every((pid) => !alive(pid)),
    );
  });

  it('enters the checked cwd only while the path still names that directory', async () => {
    const checked = join(dir, 'checked');
    mkdirSync(checked);
    const s = statSync(checked, { bigint: true });
    const id = `${s.dev}:${s.ino}`;
    const same = await call('pwd', { cwd: checked, cwdId: id });
    assert.equal(same.stdout, `${checked}\n`);
    renameSync(checked, join(dir, 'moved'));
    mkdirSync(checked);
    const swapped = await call('pwd', { cwd: checked, cwdId: id });
    assert.equal(swapped.stdout, '', 'nothing ran');
    const reports = parseReports(swapped.confineReport);
    assert.equal(reports[0]?.status, 'enforced', 'the first line is whole');
    assert.deepEqual(
      reports.find((r) => r.error !== undefined),
      { error: 'cwd', errno: '116' },
    );
  });

  it('makes the scratch directory new and private, and removes it unless the call left something there', async () => {
    const scratchOf = (name: string) => join(dir, name);
    const args = (name: string) => [
      '--mode',
      'best-effort',
      '--ro',
      '/',
      '--rw',
      scratchOf(name),
      '--scratch',
      scratchOf(name),
    ];
    const empty = await call('stat -c %a "$0"', {
      helperArgs: args('s1'),
      args: ['-c', 'stat -c %a "$0"', scratchOf('s1')],
    });
    assert.equal(empty.stdout, '700\n');
    assert.match(empty.confineReport, / scratch=removed\b/);
    assert.equal(existsSync(scratchOf('s1')), false);
    const kept = await call('', { helperArgs: args('s2'), args: ['-c', 'touch "$0/left"', scratchOf('s2')] });
    assert.equal(kept.exitCode, 0);
    assert.match(kept.confineReport, / scratch=kept\b/);
    assert.equal(existsSync(join(scratchOf('s2'), 'left')), true);
    // Never a directory that exists already: the call fails before anything runs.
    const reused = await call('echo ran', { helperArgs: args('s2') });
    assert.equal(reused.stdout, '');
    assert.equal(parseReports(reused.confineReport).find((r) => r.error !== undefined)?.error, 'scratch');
  });

  it("a confined command cannot take the server's end of the spawner's socket (control: unconfined, it can)", async (t) => {
    if (spawnSync('python3', ['--version']).error) return t.skip('python3 is not installed');
    // A run request for an unconfined command, as a command would forge it, written to a duplicate of the server's
    // end of the spawner's request socket taken with pidfd_getfd (here this test process is the server). The
    // socket cannot be opened again through /proc, and the spawner's own end sends to the server, not to it.
    const mark = join(dir, 'injected');
    const forged = (id: number) => {
      const strings = [
        '--simulate-no-landlock',
        '--mode',
        'best-effort',
        '--',
        '/bin/sh',
        '-c',
        `echo $$ > ${mark}`,
      ];
      const body = Buffer.from(`${strings.join('\0')}\0`);
      const head = Buffer.alloc(17);
      head.writeUInt32LE(13 + body.length, 0);
      head[4] = 0x52;
      head.writeUInt32LE(id, 5);
      head.writeUInt32LE(strings.length, 9);
      head.writeUInt32LE(0, 13);
      return Buffer.concat([head, body]);
    };
    const inject = join(dir, 'inject.py');
    writeFileSync(
      inject,
      [
        'import ctypes, os, sys',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'fd = libc.syscall(438, os.pidfd_open(int(sys.argv[1])), int(sys.argv[2]), 0)  # pidfd_getfd',
        "if fd < 0: sys.exit('pidfd_getfd: ' + os.strerror(ctypes.get_errno()))",
        "os.write(fd, open(sys.argv[3], 'rb').read())",
        '',
      ].join('\n'),
    );
    await call('true'); // the spawner is running
    const target = `${process.pid} ${spawner.requestFd}`;
    writeFileSync(join(dir, 'frame-1'), forged(0x7fff0001));
    const attack = await call(`python3 ${inject} ${target} ${join(dir, 'frame-1')}`, {
      helperArgs: ['--mode', 'required', '--ro', '/', '--rw', dir],
    });
    assert.notEqual(attack.exitCode, 0, 'the command got no duplicate of the socket');
    assert.match(attack.stderr, /pidfd_getfd: Operation not permitted/);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(existsSync(mark), false, 'nothing injected ran');
    // Control: the same script outside any Landlock domain takes the socket and the spawner runs the forged request
    // (as root here: with Yama's ptrace scope, a child of another uid-mate could not even unconfined).
    if (process.getuid?.() !== 0) return;
    writeFileSync(join(dir, 'frame-2'), forged(0x7fff0002));
    const control = spawnSync('python3', [inject, ...target.split(' '), join(dir, 'frame-2')], {
      encoding: 'utf8',
    });
    assert.equal(control.status, 0, control.stderr);
    await waitFor('the injected command to run', () => existsSync(mark));
  });

  it('refuses an argument with a NUL byte before anything starts', async () => {
    await assert.rejects(
      call('echo x', { args: ['-c', 'echo a\0b'] }),
      (e: unknown) => e instanceof ToolError && e.code === 'TOOLYARD_SPAWN_FAILED',
    );
  });
});

describe('the arm64 spawner under qemu-user (no Landlock, no seccomp filters there: best-effort, --no-wall)', () => {
  it('runs calls and relays their streams and statuses', async (t) => {
    if (spawnSync('qemu-aarch64-static', ['--version']).error)
      return t.skip('qemu-aarch64-static is not installed');
    const dir = mkdtempSync(join(tmpdir(), 'toolyard-spawner-arm64-'));
    try {
      const bin = await buildConfine('arm64', join(dir, 'toolyard-confine'));
      const wrapper = join(dir, 'confine');
      writeFileSync(wrapper, `#!/bin/sh\nexec qemu-aarch64-static ${bin} "$@"\n`, { mode: 0o755 });
      const spawner = new ConfineSpawner(wrapper);
      try {
        const results = await Promise.all(
          [0, 3, 7].map((code) =>
            spawner.run({
              file: '/bin/sh',
              argv0: 'sh',
              args: ['-c', `echo arm-${code}; exit ${code}`],
              cwd: dir,
              env: {},
              timeoutMs: 20_000,
              maxOutputBytes: 1024,
              killGraceMs: 300,
              // qemu-user refuses seccomp filters (its own syscalls would go through them): the server's probe
              // says wall=unavailable and best-effort then passes --no-wall.
              helperArgs: ['--mode', 'best-effort', '--no-wall'],
            }),
          ),
        );
        assert.deepEqual(
          results.map((r) => [r.exitCode, r.stdout, parseReports(r.confineReport)[0]?.status]),
          [
            [0, 'arm-0\n', 'unavailable'],
            [3, 'arm-3\n', 'unavailable'],
            [7, 'arm-7\n', 'unavailable'],
          ],
        );
      } finally {
        spawner.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
