/**
 * The second wall under Landlock (issue 32), in the helper itself, run as the pod's uid: every system call the
 * wall decides on, made by a probe under the helper, on both mechanisms — per-call user and IPC namespaces with
 * the filter (this kernel), and the filter alone (`--simulate-no-userns`: a node that forbids user namespaces) —
 * with and without a connect rule. Each answer is compared with the same probe under the helper with `--no-wall`
 * (Landlock alone, the helper before this issue): that is the control, and every rule must refuse something the
 * control lets through (or the kernel itself refuses, which the test names).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildConfine, hostConfinePath } from '../../toolchain-server/scripts/build-confine.ts';
import { parseReports } from '../../toolchain-server/src/confinement/helper.ts';
import { type ConfinedRunRequest, ConfineSpawner } from '../../toolchain-server/src/confinement/spawner.ts';
import { asPodUser, chownForPod, POD_UID, SWITCHES_UID, subjectUid } from '../support/pod-user.ts';

const PROBE_SOURCE = fileURLToPath(new URL('./wall/probe.c', import.meta.url));
/** Not the pod's uid itself: the user-wide operations (PRIO_USER, IOPRIO_WHO_USER) renice every process of the
 *  uid, and no other test's processes should share it. Any unprivileged uid is the same case. */
const UID = POD_UID + 1;
const as = () => asPodUser(UID);
const EPERM = 1;
const EINVAL = 22;
const EACCES = 13;
const EFAULT = 14;
const ENOSYS = 38;
const EPROTONOSUPPORT = 93;
const EAFNOSUPPORT = 97;

type Wall = 'namespaces' | 'seccomp';
const FLAGS: Record<Wall | 'off', readonly string[]> = {
  namespaces: [],
  seccomp: ['--simulate-no-userns'],
  off: ['--no-wall'],
};

/** One row: an operation of the probe and what the wall answers (undefined: whatever Landlock alone answers). */
interface Row {
  readonly op: string;
  readonly wall: (w: Wall, egress: boolean, abi: number) => number | undefined;
  /** Landlock refuses it already (EACCES): the rule is for a node without Landlock. */
  readonly landlockToo?: true;
}
const always = (errno: number) => () => errno;
const egressOnly = (errno: number) => (_w: Wall, egress: boolean) => (egress ? errno : undefined);
const seccompOnly = (errno: number) => (w: Wall) => (w === 'seccomp' ? errno : undefined);
const untouched = () => undefined;

describe('the second wall in toolyard-confine (as the pod uid)', () => {
  let dir: string;
  let probe: string;
  let victim: ChildProcess;
  let tcp: Server;
  let udp: Socket;
  let tcpPort: number;
  let udpPort: number;
  let outsideShm: number;
  let abi: number;
  let connections = 0;
  let datagrams = 0;

  /** The probe under the helper with `flags`; `egress` adds the connect rule (`--no-connect`, no port). */
  const underHelper = (flags: readonly string[], egress: boolean, ops: readonly string[]) => {
    const args = [...flags, '--mode', 'required', '--scope-signals', '--scope-abstract', '--ro', '/'];
    if (egress) args.push('--no-connect');
    const r = spawnSync(hostConfinePath(), [...args, '--report-fd', '3', '--', probe, ...ops], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      timeout: 20_000,
      ...as(),
    });
    assert.equal(r.status, 0, `${r.stderr}${r.output[3]}`);
    return { answers: parse(r.stdout), report: parseReports((r.output[3] as string | null) ?? '')[0] };
  };
  const parse = (text: string) =>
    Object.fromEntries(
      text
        .trim()
        .split('\n')
        .map((line) => {
          const eq = line.lastIndexOf('=');
          return [line.slice(0, eq), Number(line.slice(eq + 1))];
        }),
    ) as Record<string, number>;
  const direct = (ops: readonly string[]) => parse(execFileSync(probe, ops, { encoding: 'utf8', ...as() }));

  /** The table: every operation, with the pid or port it takes filled in by `ops()`. */
  const rows = (): Row[] => {
    const v = victim.pid!;
    const own = ['prlimit', 'setpriority', 'ioprio_set', 'sched_setaffinity', 'sched_setscheduler'];
    return [
      { op: 'add_key', wall: always(EPERM) },
      { op: 'request_key', wall: always(EPERM) },
      { op: 'keyctl', wall: always(EPERM) },
      { op: 'io_uring_setup', wall: always(ENOSYS) },
      // Another process of the same uid: refused by either mechanism (a user namespace alone would not).
      ...[...own, 'sched_setparam', 'sched_setattr'].map((op) => ({ op: `${op}:${v}`, wall: always(EPERM) })),
      { op: `setpriority-pgrp:${v}`, wall: always(EPERM) }, // the victim leads its own process group
      { op: `ioprio_set-pgrp:${v}`, wall: always(EPERM) },
      // Every process of the uid: only where this test has a uid of its own.
      ...(SWITCHES_UID
        ? [
            { op: `setpriority-user:${UID}`, wall: always(EPERM) },
            { op: `ioprio_set-user:${UID}`, wall: always(EPERM) },
          ]
        : []),
      // The caller itself (pid 0), and reading another's limits: untouched.
      ...[...own, 'sched_setparam', 'sched_setattr'].map((op) => ({ op: `${op}:0`, wall: untouched })),
      { op: `prlimit-read:${v}`, wall: untouched },
      // SysV IPC: the call's own namespace, or refused; an outside segment is out of reach either way.
      { op: 'shmget', wall: seccompOnly(EPERM) },
      { op: 'msgget', wall: seccompOnly(EPERM) },
      { op: 'semget', wall: seccompOnly(EPERM) },
      { op: `shmctl:${outsideShm}`, wall: (w) => (w === 'seccomp' ? EPERM : EINVAL) },
      { op: 'mq_open', wall: seccompOnly(EPERM), landlockToo: true },
      // Sockets with a connect rule: plain TCP (any flags), socketpair and netlink only.
      { op: 'tcp', wall: untouched },
      { op: 'tcp-ipproto', wall: untouched },
      { op: 'tcp6', wall: untouched },
      { op: 'socketpair', wall: untouched },
      { op: 'netlink', wall: untouched },
      { op: 'mptcp', wall: egressOnly(EPROTONOSUPPORT) },
      { op: 'mptcp6', wall: egressOnly(EPROTONOSUPPORT) },
      { op: 'sctp', wall: egressOnly(EPROTONOSUPPORT) },
      { op: 'sctp-seqpacket', wall: egressOnly(EPROTONOSUPPORT) },
      { op: 'smc-ipproto', wall: egressOnly(EPROTONOSUPPORT) },
      { op: 'udp', wall: egressOnly(EACCES) },
      { op: 'udp6', wall: egressOnly(EACCES) },
      { op: 'udplite', wall: egressOnly(EACCES) },
      { op: 'icmp', wall: egressOnly(EACCES) },
      // Below ABI 9 Landlock cannot tell the call's own pathname sockets from others': no unix socket at all.
      ...['unix-stream', 'unix-dgram'].map((op) => ({
        op,
        wall: (_w: Wall, egress: boolean, a: number) => (egress && a < 9 ? EACCES : undefined),
      })),
      { op: 'smc', wall: egressOnly(EAFNOSUPPORT) },
      { op: `connect:${tcpPort}`, wall: untouched }, // Landlock's own rule (EACCES with egress)
      { op: `fastopen-sendto:${tcpPort}`, wall: egressOnly(EACCES) },
      { op: `fastopen-sendmsg:${tcpPort}`, wall: egressOnly(EACCES) },
      { op: `fastopen-sendmmsg:${tcpPort}`, wall: egressOnly(EACCES) },
      { op: `mptcp-connect:${tcpPort}`, wall: egressOnly(EPROTONOSUPPORT) },
      { op: `udp-send:${udpPort}`, wall: egressOnly(EACCES) },
      // Other system call tables (x32, i386 through int 0x80) bypass a filter written for this one: refused.
      ...(process.arch === 'x64' ? ['x32', 'i386'].map((op) => ({ op, wall: always(ENOSYS) })) : []),
    ];
  };

  before(async () => {
    await buildConfine(process.arch === 'arm64' ? 'arm64' : 'amd64');
    dir = mkdtempSync(join(tmpdir(), 'toolyard-wall-'));
    probe = join(dir, 'probe');
    execFileSync('gcc', ['-O1', '-o', probe, PROBE_SOURCE]);
    chownForPod(dir, UID);
    // The spawner below runs as this process's uid: root in a user namespace keeps no DAC override over files of
    // an unmapped owner, so the directory is open to others (it holds only the probe).
    chmodSync(dir, 0o755);
    victim = spawn('sleep', ['600'], { stdio: 'ignore', detached: true, ...as() });
    outsideShm = Number(direct(['shm-create'])['shm-create']);
    tcp = createServer((s) => {
      connections++;
      s.on('error', () => {});
      s.end();
    });
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    tcpPort = (tcp.address() as { port: number }).port;
    udp = createSocket('udp4');
    udp.on('message', () => {
      datagrams++;
    });
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    udpPort = udp.address().port;
    abi = Number(parseReports(execFileSync(hostConfinePath(), ['--probe'], { encoding: 'utf8' }))[0]?.abi);
  });
  after(() => {
    if (outsideShm >= 0) direct([`shm-remove:${outsideShm}`]);
    victim?.kill('SIGKILL');
    tcp?.close();
    udp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('probes the mechanism a call gets: namespaces here, seccomp without user namespaces, off with --no-wall', () => {
    const wallOf = (flags: readonly string[]) =>
      parseReports(execFileSync(hostConfinePath(), ['--probe', ...flags], { encoding: 'utf8', ...as() }))[0]
        ?.wall;
    assert.equal(wallOf([]), 'namespaces', 'this kernel lets the pod uid create user namespaces');
    assert.equal(wallOf(FLAGS.seccomp), 'seccomp');
    assert.equal(wallOf(FLAGS.off), 'off');
    assert.equal(wallOf([...FLAGS.seccomp, ...FLAGS.off]), 'off');
  });

  for (const egress of [true, false])
    for (const wall of ['namespaces', 'seccomp'] as const)
      it(`${wall}, ${egress ? 'connect rule (egress)' : 'no connect rule (pod)'}: refuses what each rule names, nothing else`, (t) => {
        const table = rows();
        const ops = table.map((r) => r.op);
        const control = underHelper(FLAGS.off, egress, ops);
        const walled = underHelper(FLAGS[wall], egress, ops);
        const kernel = direct(ops);
        assert.equal(control.report?.wall, 'off');
        assert.equal(walled.report?.wall, wall);
        const wrong: string[] = [];
        const kernelRefuses: string[] = [];
        for (const row of table) {
          const rule = row.wall(wall, egress, abi);
          const got = walled.answers[row.op];
          const without = control.answers[row.op];
          const want = rule ?? without;
          if (got !== want) wrong.push(`${row.op}: ${got}, expected ${want}`);
          if (rule === undefined) continue;
          // The control: what a rule refuses goes through without the wall (an outside segment answers EFAULT
          // to a NULL buffer: found), unless Landlock or the kernel itself refuses it, which is said.
          const bites = without === 0 || (row.op.startsWith('shmctl:') && without === EFAULT);
          if (bites) continue;
          if (row.landlockToo && without === EACCES && kernel[row.op] === 0) continue;
          if (kernel[row.op] !== 0 && kernel[row.op] === without) kernelRefuses.push(`${row.op}=${without}`);
          else wrong.push(`${row.op}: the control (no wall) got ${without}: the rule holds nothing`);
        }
        if (kernelRefuses.length) t.diagnostic(`the kernel itself refuses: ${kernelRefuses.join(' ')}`);
        assert.deepEqual(wrong, []);
      });

  it('the controls connected and sent; no walled call did', async () => {
    // spawnSync holds this event loop: the listeners count what arrived once it runs again.
    const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
    await settle();
    const start = { connections, datagrams };
    const ops = [`fastopen-sendto:${tcpPort}`, `mptcp-connect:${tcpPort}`, `udp-send:${udpPort}`];
    for (const wall of ['namespaces', 'seccomp'] as const) underHelper(FLAGS[wall], true, ops);
    await settle();
    assert.deepEqual({ connections, datagrams }, start, 'nothing reached the listeners through the wall');
    underHelper(FLAGS.off, true, ops);
    await settle();
    assert.ok(
      connections >= start.connections + 2,
      `the control connected ${connections - start.connections}x`,
    );
    assert.ok(datagrams > start.datagrams, 'the control sent a datagram');
  });

  it('namespaces: the call keeps its uid; its SysV objects do not outlive it (the control: they do)', () => {
    const uid = subjectUid(UID);
    assert.equal(underHelper([], false, ['uid']).answers.uid, uid, 'uid and gid are mapped to themselves');
    const created = (flags: readonly string[]) =>
      underHelper(flags, false, ['shm-create']).answers['shm-create']!;
    const walled = created([]);
    assert.ok(walled >= 0);
    assert.equal(direct([`shmctl:${walled}`])[`shmctl:${walled}`], EINVAL, 'gone with the call');
    const left = created(FLAGS.off);
    try {
      assert.equal(
        direct([`shmctl:${left}`])[`shmctl:${left}`],
        EFAULT,
        'without the wall the segment stays',
      );
    } finally {
      direct([`shm-remove:${left}`]);
    }
  });

  it('namespaces in the resident spawner, as a non-root uid: the call still reads its own uid (maps written)', async () => {
    // The spawner and its reapers are not dumpable: a reaper must still write its own uid_map (else the call's
    // uid reads as 65534 and posix_spawn's setresuid(-1, getuid()) fails, as make's did).
    const wrapper = join(dir, 'as-uid');
    const asUid = SWITCHES_UID ? `setpriv --reuid ${UID} --regid ${UID} --clear-groups ` : '';
    writeFileSync(wrapper, `#!/bin/sh\nexec ${asUid}${hostConfinePath()} "$@"\n`, { mode: 0o755 });
    const spawner = new ConfineSpawner(wrapper);
    try {
      const r = await spawner.run({
        file: probe,
        argv0: 'probe',
        args: ['uid'],
        cwd: dir,
        env: {},
        timeoutMs: 20_000,
        maxOutputBytes: 4096,
        killGraceMs: 300,
        helperArgs: ['--mode', 'required', '--ro', '/'],
      });
      assert.equal(parseReports(r.confineReport)[0]?.wall, 'namespaces');
      assert.equal(r.stdout, `uid=${subjectUid(UID)}\n`, r.confineReport);
    } finally {
      spawner.close();
    }
  });

  it('a user namespace alone does not protect process attributes: the kernel compares uids (why the filter is always on)', (t) => {
    const r = spawnSync(
      'unshare',
      ['--user', '--ipc', probe, `prlimit:${victim.pid}`, `setpriority:${victim.pid}`],
      {
        encoding: 'utf8',
        ...as(),
      },
    );
    if (r.status !== 0) return t.skip(`unshare --user failed here: ${r.stderr.trim()}`);
    assert.deepEqual(parse(r.stdout), { [`prlimit:${victim.pid}`]: 0, [`setpriority:${victim.pid}`]: 0 });
  });

  it('the resident spawner gives every call the flags it was started with (`--simulate-no-userns --serve`)', async () => {
    const wrapper = join(dir, 'no-userns');
    writeFileSync(wrapper, `#!/bin/sh\nexec ${hostConfinePath()} --simulate-no-userns "$@"\n`, {
      mode: 0o755,
    });
    const spawner = new ConfineSpawner(hostConfinePath());
    const seccomp = new ConfineSpawner(wrapper);
    const request: ConfinedRunRequest = {
      file: probe,
      argv0: 'probe',
      args: ['shmget'],
      cwd: dir,
      env: {},
      timeoutMs: 20_000,
      maxOutputBytes: 4096,
      killGraceMs: 300,
      helperArgs: ['--mode', 'required', '--ro', '/'],
    };
    try {
      const [a, b] = await Promise.all([spawner.run(request), seccomp.run(request)]);
      assert.equal(parseReports(a.confineReport)[0]?.wall, 'namespaces');
      assert.equal(parseReports(b.confineReport)[0]?.wall, 'seccomp');
      assert.equal(a.stdout, 'shmget=0\n', a.confineReport);
      assert.equal(b.stdout, `shmget=${EPERM}\n`);
    } finally {
      spawner.close();
      seccomp.close();
    }
  });
});
