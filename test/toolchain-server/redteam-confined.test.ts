/**
 * The confinement red team (issues 18 and 32, "Proof"): every case of redteam/corpus-confined.ts, each class of the
 * third and fourth outside reviews, run as the pod's uid (65532 when the test runs as root: the server, its calls,
 * the stand-in and the controls; as root, capabilities would hide same-uid findings), each way in its own lab:
 *
 * 1. against the real server over MCP with `limits.confinement: required` (Landlock and the second wall, this
 *    kernel: per-call namespaces): no payload bites — nothing written outside the roots, no token, config or
 *    server environment returned or left behind, no process outliving its call, no forged audit line, no process
 *    attribute changed outside the call, no kernel state kept for a later call, no listener reached beside the
 *    connect rule;
 * 2. against the real server with `limits.confinement: off`: every case that plants nothing in the workspace is
 *    still held by the argv policy alone;
 * 3. the control, directly and unconfined, no server: every payload bites (an inert payload fails the test);
 * 4. the second wall's cases (cases-wall.ts) against the server on a simulated node without user namespaces
 *    (`--simulate-no-userns`: the seccomp form): every one held; and under Landlock alone (`--no-wall`, the
 *    helper before issue 32): every one bites.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { buildConfine, hostConfinePath } from '../../toolchain-server/scripts/build-confine.ts';
import { asPodUser, chownForPod, POD_UID, SWITCHES_UID } from '../support/pod-user.ts';
import { connectClient, waitFor } from './helpers.ts';
import { type ServerProcess, SOURCE_ENTRY, startServerProcess } from './process-helpers.ts';
import { type CaseClass, needsWorkspace } from './redteam/case.ts';
import { WALL_CASES } from './redteam/cases-wall.ts';
import { CONFINED_CORPUS, confinedCommands } from './redteam/corpus-confined.ts';
import { GIT_IDENTITY } from './redteam/fixtures.ts';
import { type Lab, makeLab } from './redteam/lab.ts';
import { type Listeners, type Returned, type Runner, runCase } from './redteam/run-case.ts';

const PATH = process.env.PATH ?? '/usr/bin:/bin';
/** What the project's toolchains need wherever they run (pyenv shims, rustup proxies), plus a git identity. */
const TOOL_ENV: Record<string, string> = {
  PYENV_ROOT: process.env.PYENV_ROOT ?? join(homedir(), '.pyenv'),
  RUSTUP_HOME: process.env.RUSTUP_HOME ?? join(homedir(), '.rustup'),
  ...GIT_IDENTITY,
};
const CONCURRENCY = 4;
const CALL_TIMEOUT_S = 120;
const ARGV_ONLY = CONFINED_CORPUS.filter((c) => !needsWorkspace(c));

/**
 * Listeners outside every call: an abstract socket and a TCP port (what @ABSTRACT@ and a control's @PORT@ name),
 * and the second wall's targets, which record what they receive — TCP and UDP on 127.0.0.1 and ::1, a pathname
 * Unix stream socket, and a pathname Unix datagram socket (node has none: a small python process holds it).
 */
async function listeners(
  label: string,
  lab: Lab,
): Promise<{ abstract: string; port: number; net: Listeners; close(): void }> {
  const abstract = `toolyard-rt-${label}-${process.pid}-${Date.now()}`;
  let heard = '';
  const record = (data: Buffer) => {
    heard += `${data.toString('latin1')}\n`;
  };
  const stream = () =>
    createServer((s) => {
      s.on('data', record);
      s.on('error', () => {});
      s.on('end', () => s.end());
    });
  const unix: Server = createServer((s) => s.end());
  const tcp: Server = createServer((s) => s.end());
  const [tcp4, tcp6, unixStream] = [stream(), stream(), stream()];
  const [udp4, udp6] = [createSocket('udp4'), createSocket('udp6')];
  for (const udp of [udp4, udp6]) udp.on('message', record);
  const listen = (server: Server, ...args: unknown[]) =>
    new Promise<void>((resolve) => (server.listen as (...a: unknown[]) => void)(...args, resolve));
  await listen(unix, `\0${abstract}`);
  await listen(tcp, 0, '127.0.0.1');
  await listen(tcp4, 0, '127.0.0.1');
  await listen(tcp6, 0, '::1');
  const streamPath = join(lab.outside, 'listener.sock');
  await listen(unixStream, streamPath);
  await new Promise<void>((resolve) => udp4.bind(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => udp6.bind(0, '::1', resolve));
  // A socket file is connected to through write permission on it: the pod's uid may, as on a shared mount.
  chmodSync(streamPath, 0o777);
  const dgramPath = join(lab.outside, 'listener-dgram.sock');
  const dgramLog = join(lab.base, 'dgram.log');
  const dgram: ChildProcess = spawn(
    '/usr/bin/python3',
    [
      '-c',
      'import os, socket, sys\ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\ns.bind(sys.argv[1])\nos.chmod(sys.argv[1], 0o777)\nprint("ready", flush=True)\nwhile True:\n    data = s.recv(65536)\n    with open(sys.argv[2], "ab") as f:\n        f.write(data + b"\\n")\n',
      dgramPath,
      dgramLog,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve) => dgram.stdout!.once('data', () => resolve()));
  const port = (server: Server) => (server.address() as { port: number }).port;
  return {
    abstract,
    port: port(tcp),
    net: {
      tcp: port(tcp4),
      tcp6: port(tcp6),
      udp: udp4.address().port,
      udp6: udp6.address().port,
      unixStream: streamPath,
      unixDgram: dgramPath,
      reached: (text) => {
        let dgrams = '';
        try {
          dgrams = readFileSync(dgramLog, 'latin1');
        } catch {}
        return heard.includes(text) || dgrams.includes(text);
      },
    },
    close: () => {
      for (const server of [unix, tcp, tcp4, tcp6, unixStream]) server.close();
      udp4.close();
      udp6.close();
      dgram.kill('SIGKILL');
    },
  };
}

/** The server's resident spawner: its child named toolyard-confin(e) (comm keeps 15 characters). */
function spawnerOf(server: number): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === server && stat.includes('(toolyard-confin')) return Number(entry);
    } catch {}
  }
  // pid 0 would name the caller itself: a case must not pass for the wrong reason.
  throw new Error(`the server ${server} has no resident spawner (the warm-up call starts it)`);
}

/** Runs root-level git cases one at a time (they share the workspace repository's index). */
function serialForRootGit(): <T>(atRootGit: boolean, work: () => Promise<T>) => Promise<T> {
  let chain: Promise<unknown> = Promise.resolve();
  return (atRootGit, work) => {
    if (!atRootGit) return work();
    const next = chain.then(work, work);
    chain = next.catch(() => {});
    return next;
  };
}

interface Mode {
  readonly lab: Lab;
  /** Tool calls made so far: each must have exactly one audit line. */
  readonly calls: () => number;
  readonly server: ServerProcess;
  readonly client: Client;
  readonly runner: Runner;
  readonly close: () => Promise<void>;
}

/**
 * The server of one way of running, as the pod's uid: `confinement`, and for the second wall's own runs `wall`, a
 * test-only helper flag given through a wrapper (`seccomp`: --simulate-no-userns, a node without user namespaces;
 * `off`: --no-wall, Landlock alone).
 */
async function startMode(confinement: 'required' | 'off', wall?: 'seccomp' | 'off'): Promise<Mode> {
  const label = wall ? `wall-${wall}` : confinement;
  const lab = makeLab(label);
  const net = await listeners(label, lab);
  let confinementHelper: string | undefined;
  if (wall) {
    // Beside the config: the server keeps its own files (and the helper's directory) from every call.
    confinementHelper = join(lab.own, 'bin', 'toolyard-confine');
    mkdirSync(join(lab.own, 'bin'));
    const flag = wall === 'seccomp' ? '--simulate-no-userns' : '--no-wall';
    writeFileSync(confinementHelper, `#!/bin/sh\nexec ${hostConfinePath()} ${flag} "$@"\n`, { mode: 0o755 });
    chownForPod(join(lab.own, 'bin'));
  }
  // The warm-up call below starts the spawner, so @SPAWNER@ names it in every case.
  writeFileSync(join(lab.root, 'warm-up.sh'), 'true\n');
  chownForPod(join(lab.root, 'warm-up.sh'));
  const server = await startServerProcess({
    dir: lab.own,
    user: asPodUser(),
    detached: true,
    env: { PATH, LANG: 'C.UTF-8', TOOLYARD_CANARY: lab.envCanary, AWS_SECRET_ACCESS_KEY: lab.envCanary },
    config: {
      ...(confinementHelper ? { confinementHelper } : {}),
      name: lab.configCanary,
      listen: { host: '127.0.0.1', port: 0 },
      workspaceRoots: [lab.root],
      tools: { mode: 'exec', allowedCommands: confinedCommands() },
      env: { passthrough: ['PATH', 'LANG'], set: { HOME: lab.home, ...TOOL_ENV } },
      limits: {
        confinement,
        defaultTimeoutSeconds: CALL_TIMEOUT_S,
        maxTimeoutSeconds: CALL_TIMEOUT_S,
        maxConcurrency: CONCURRENCY,
        maxQueue: 256,
      },
      auth: { bearerTokenFile: lab.tokenFile },
    },
  });
  const client = await connectClient(server.url, { authorization: `Bearer ${lab.token}` });
  const configFile = server.child.spawnargs.at(-1) as string;
  let calls = 0;
  const runner: Runner = {
    lab,
    pid: server.child.pid!,
    port: server.port,
    abstract: net.abstract,
    configFile,
    survivorGraceMs: 3000,
    homeOf: () => lab.home,
    spawnerPid: () => spawnerOf(server.child.pid!),
    listeners: net.net,
    forgedInServer: (id) => server.lines.some((l) => l.forged === id),
    run: async (argv, cwd, env): Promise<Returned> => {
      calls++;
      const result = await client.callTool(
        {
          name: 'exec_allowed',
          arguments: { command: [...argv], cwd, timeoutSeconds: CALL_TIMEOUT_S, ...(env ? { env } : {}) },
        },
        undefined,
        { timeout: (CALL_TIMEOUT_S + 30) * 1000 },
      );
      return { text: JSON.stringify(result) };
    },
  };
  if (confinement !== 'off') await runner.run(['sh', 'warm-up.sh'], lab.root, undefined, lab.home);
  return {
    lab,
    calls: () => calls,
    server,
    client,
    runner,
    close: async () => {
      await client.close();
      server.child.kill('SIGTERM');
      await server.exited;
      net.close();
      lab.cleanup();
    },
  };
}

/** The control's way of running: directly, unconfined, no server, as the pod's uid, a HOME per case. */
function directRunner(lab: Lab, net: { abstract: string; port: number; net: Listeners }): Runner {
  return {
    lab,
    pid: lab.stand.pid!,
    port: net.port,
    abstract: net.abstract,
    configFile: lab.configFile,
    survivorGraceMs: 300,
    // Each case its own HOME: what one case plants must not reach another case's control.
    homeOf: (c) => {
      const home = join(lab.home, c.id);
      mkdirSync(home, { recursive: true });
      if (SWITCHES_UID) chownSync(home, POD_UID, POD_UID);
      return home;
    },
    spawnerPid: () => lab.stand.pid!,
    listeners: net.net,
    forgedInServer: () => false,
    run: (argv, cwd, env, home) =>
      new Promise((resolve) => {
        const child = spawn(argv[0]!, argv.slice(1), {
          cwd,
          env: { PATH, LANG: 'C.UTF-8', HOME: home, ...TOOL_ENV, ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
          detached: true,
          ...asPodUser(),
        });
        let text = '';
        child.stdout.on('data', (d: Buffer) => {
          text += d.toString('latin1');
        });
        child.stderr.on('data', (d: Buffer) => {
          text += d.toString('latin1');
        });
        const timer = setTimeout(() => child.kill('SIGKILL'), CALL_TIMEOUT_S * 1000);
        child.on('error', (e) => {
          clearTimeout(timer);
          resolve({ text: `spawn failed: ${e.message}` });
        });
        // `exit`, not `close`: a leftover holding the pipes must not hold the control.
        child.on('exit', () => {
          clearTimeout(timer);
          setTimeout(() => resolve({ text }), 50);
        });
      }),
  };
}

/** Pids of the processes whose working directory lies under `dir`. */
function processesIn(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      if (cwd === dir || cwd.startsWith(`${dir}/`)) pids.push(Number(entry));
    } catch {}
  }
  return pids;
}

function listAll(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

describe('confinement red team: the corpus', () => {
  it('has at least 120 cases, every class of the third review, unique ids; it says which need no planted file', () => {
    assert.ok(CONFINED_CORPUS.length >= 120, `${CONFINED_CORPUS.length} cases`);
    const classes: CaseClass[] = [
      'file-input',
      'workspace-symlink',
      'tool-paths',
      'same-uid',
      'persistence',
      'gtfobins',
      'process-attributes',
      'kept-state',
      'beside-connect',
    ];
    for (const cls of classes)
      assert.ok(
        CONFINED_CORPUS.filter((c) => c.class === cls).length >= 10,
        `class ${cls} has fewer than 10 cases`,
      );
    assert.equal(new Set(CONFINED_CORPUS.map((c) => c.id)).size, CONFINED_CORPUS.length);
    assert.ok(ARGV_ONLY.length >= 50, `${ARGV_ONLY.length} cases plant nothing`);
  });
});

describe('confinement red team: limits.confinement required — no payload bites', () => {
  let mode: Mode;
  const serial = serialForRootGit();
  before(async () => {
    await buildConfine(process.arch === 'arm64' ? 'arm64' : 'amd64');
    mode = await startMode('required');
  });
  after(async () => {
    await mode?.close();
  });

  it('gives every call the second wall: per-call namespaces on this kernel (/readyz, audit lines)', async (t) => {
    const wall = await readyWall(mode);
    if (wall !== 'namespaces') t.diagnostic(`this node forbids user namespaces: the calls get ${wall}`);
    assert.ok(['namespaces', 'seccomp'].includes(wall), wall);
    assert.deepEqual(auditedWalls(mode), [wall]);
  });

  describe('every case', { concurrency: CONCURRENCY }, () => {
    for (const c of CONFINED_CORPUS)
      it(`${c.id} [${c.class}] ${c.what}`, async () => {
        const outcome = await serial(c.atRoot === true && c.argv[0] === 'git', () => runCase(c, mode.runner));
        assert.equal(outcome.bit, false, `${c.id} bit under confinement: ${outcome.detail}`);
      });
  });

  // Runs once every case has finished: this block runs its tests one after the other.
  it('left no mark outside the roots or in the shared HOME, forged no audit line, leaked nothing into audit', async () => {
    // Each case checks its own target; across all of them, no payload's mark is anywhere outside.
    assert.deepEqual(
      listAll(mode.lab.outside).filter((p) => /(^|\/)pwned/.test(p)),
      [],
    );
    assert.deepEqual(listAll(mode.lab.home), [], 'calls had their own HOME: the configured one stays empty');
    // Nothing any case started still runs there: no process but the server and the stand-in has its cwd in the lab.
    // A call ends with its reaper's done line, not its exit: the last reaper may still be exiting for a moment.
    const others = () =>
      processesIn(mode.lab.base).filter((pid) => pid !== mode.server.child.pid && pid !== mode.lab.stand.pid);
    await waitFor(() => others().length === 0, 3000, 'the last reapers to exit').catch(() => {});
    const left = others();
    const describeProc = (pid: number) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')} [${stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 12)}] cwd ${readlinkSync(`/proc/${pid}/cwd`)}`;
      } catch {
        return `${pid} gone`;
      }
    };
    assert.deepEqual(left.map(describeProc), [], 'processes left behind by the calls');
    // Audit lines reach the test through a pipe after the results: give the last ones a moment.
    const audited = () => mode.server.lines.filter((l) => l.event === 'audit');
    await waitFor(() => audited().length >= mode.calls(), 5000, 'an audit line per call').catch(() => {});
    const audits = audited();
    const seen = new Set(audits.map((l) => JSON.stringify(l.argv)));
    assert.equal(
      audits.length,
      mode.calls(),
      `one audit line per call, none forged, none missing; audited: ${[...seen].join(' ')}`,
    );
    assert.ok(audits.every((l) => l.forged === undefined && typeof l.tool === 'string'));
    const text = JSON.stringify(mode.server.lines);
    for (const secret of mode.lab.secretsList.filter((s) => s !== mode.lab.configCanary))
      assert.ok(!text.includes(secret), 'a secret reached the audit stream');
  });
});

/** Reads /readyz: the second wall the server's calls get. */
async function readyWall(mode: Mode): Promise<string> {
  const ready = (await (await fetch(`${mode.server.url}/readyz`)).json()) as {
    confinement: { wall: string };
  };
  return ready.confinement.wall;
}

/** Every audit line of the mode's calls that ran says which wall the call got. */
function auditedWalls(mode: Mode): string[] {
  return [
    ...new Set(
      mode.server.lines
        .filter((l) => l.event === 'audit' && (l.confinement as { killed: unknown }).killed !== null)
        .map((l) => (l.confinement as { wall: string }).wall),
    ),
  ];
}

for (const [wall, what] of [
  ['seccomp', 'on a simulated node without user namespaces (the seccomp form) every wall case is held'],
  ['off', 'control: under Landlock alone (--no-wall) every wall case bites'],
] as const)
  describe(`confinement red team: the second wall — ${what}`, () => {
    let mode: Mode;
    const held = wall === 'seccomp';
    before(async () => {
      await buildConfine(process.arch === 'arm64' ? 'arm64' : 'amd64');
      mode = await startMode('required', wall);
    });
    after(async () => {
      await mode?.close();
    });

    it(`/readyz and every audit line say wall=${wall}`, async () => {
      assert.equal(await readyWall(mode), wall);
      assert.deepEqual(auditedWalls(mode), [wall], 'the warm-up call');
    });

    describe('every wall case', { concurrency: CONCURRENCY }, () => {
      for (const c of WALL_CASES)
        it(`${c.id} [${c.class}] ${held ? '' : 'bites: '}${c.what}`, async () => {
          const outcome = await runCase(c, mode.runner);
          assert.equal(
            outcome.bit,
            !held,
            held
              ? `${c.id} bit on the seccomp path: ${outcome.detail}`
              : `${c.id} is held by Landlock alone: ${outcome.detail}`,
          );
        });
    });

    it('every call of the run got that wall', () => {
      assert.deepEqual(auditedWalls(mode), [wall]);
    });
  });

describe('confinement red team: limits.confinement off — the argv policy alone holds every case that plants nothing', {
  concurrency: CONCURRENCY,
}, () => {
  let mode: Mode;
  const serial = serialForRootGit();
  before(async () => {
    mode = await startMode('off');
  });
  after(async () => {
    await mode?.close();
  });

  for (const c of ARGV_ONLY)
    it(`${c.id} [${c.class}] ${c.what}`, async () => {
      const outcome = await serial(c.atRoot === true && c.argv[0] === 'git', () => runCase(c, mode.runner));
      assert.equal(outcome.bit, false, `${c.id} bit with the argv policy alone: ${outcome.detail}`);
    });
});

describe('confinement red team: controls — every payload bites without the server', {
  concurrency: CONCURRENCY,
}, () => {
  let lab: Lab;
  let runner: Runner;
  let net: Awaited<ReturnType<typeof listeners>>;
  const serial = serialForRootGit();
  before(async () => {
    lab = makeLab('control');
    net = await listeners('control', lab);
    runner = directRunner(lab, net);
  });
  after(() => {
    net?.close();
    lab?.cleanup();
  });

  for (const c of CONFINED_CORPUS)
    it(`${c.id} [${c.class}] bites: ${c.what}`, async () => {
      const outcome = await serial(c.atRoot === true && c.argv[0] === 'git', () => runCase(c, runner));
      assert.equal(outcome.bit, true, `${c.id} is inert without the server: ${outcome.detail}`);
    });
});

/**
 * What Landlock (ABI ≤ 7) does not mediate, pinned so the docs stay true (docs/confinement.md, "Red team"):
 * metadata of files outside the roots (mode, times, user xattrs). The container layer stops these for the server's
 * own files (a non-root uid that owns neither the Secret and ConfigMap mounts nor the image's /opt/toolyard;
 * read-only mounts). connect() to a pathname Unix socket, which Landlock below ABI 9 does not see either, is
 * refused by the second wall under `limits.connect: egress` (the server's default here; the N cases do more).
 */
describe('confinement red team: what the kernel layer lets through (stopped by the container layer)', () => {
  let mode: Mode;
  let victim: string;
  let socketPath: string;
  let listener: Server;
  let connections = 0;
  const call = async (script: string) => {
    const file = join(mode.lab.root, `limit-${Date.now()}-${Math.random().toString(36).slice(2)}.sh`);
    writeFileSync(file, script);
    return mode.runner.run(['sh', file], mode.lab.root, undefined, mode.lab.home);
  };
  before(async () => {
    mode = await startMode('required');
    victim = join(mode.lab.outside, 'metadata-victim');
    writeFileSync(victim, 'victim\n', { mode: 0o600 });
    chownForPod(victim);
    socketPath = join(mode.lab.outside, 'agent.sock');
    listener = createServer((s) => {
      connections++;
      s.end();
    });
    await new Promise<void>((resolve) => listener.listen(socketPath, resolve));
    chmodSync(socketPath, 0o777); // the pod's uid may connect, as to a socket on a shared mount
  });
  after(async () => {
    listener?.close();
    await mode?.close();
  });

  it('chmod of a file outside the roots goes through, and still gives no read of the token', async () => {
    await call(`chmod 0644 ${victim}\nchmod 0644 ${mode.lab.tokenFile}\ncat ${mode.lab.tokenFile}\n`);
    assert.equal(statSync(victim).mode & 0o777, 0o644);
    const text = (await call(`cat ${mode.lab.tokenFile}\n`)).text;
    assert.ok(!text.includes(mode.lab.token), 'the token stays unreadable whatever its mode');
  });

  it('utimes (touch of an existing file) outside the roots goes through; its content does not change', async () => {
    await call(`touch -d 2001-01-01 ${victim}\n`);
    assert.equal(statSync(victim).mtime.getUTCFullYear(), 2001);
    assert.equal(readFileSync(victim, 'utf8'), 'victim\n');
  });

  it('connect() to a pathname Unix socket outside the roots is refused by the second wall (connect: egress)', async () => {
    const r = await call(
      `/usr/bin/python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect("${socketPath}")'\n`,
    );
    assert.match(r.text, /Permission denied/);
    assert.equal(connections, 0);
  });
});

/**
 * Landlock rules only add: a token placed inside a workspace root would be readable by every call whatever the
 * deny list says. The server refuses to start with confinement on; the control (confinement off) shows that the
 * argv policy alone lets a plain `cat` read it.
 */
describe('confinement red team: a token inside the workspace is refused at start', () => {
  let lab: Lab;
  before(() => {
    lab = makeLab('inside');
    mkdirSync(join(lab.root, '.toolyard'));
    writeFileSync(join(lab.root, '.toolyard', 'token'), `${lab.token}\n`);
    lab.handOver(join(lab.root, '.toolyard'));
  });
  after(() => lab?.cleanup());
  const config = (confinement: string) => ({
    name: 'inside',
    listen: { host: '127.0.0.1', port: 0 },
    workspaceRoots: [lab.root],
    tools: { mode: 'exec', allowedCommands: ['cat'] },
    env: { passthrough: ['PATH'] },
    auth: { bearerTokenFile: join(lab.root, '.toolyard', 'token') },
    limits: { confinement },
  });

  it('confinement required: the server does not start, and says which field and what to do', () => {
    const file = join(lab.own, 'inside.json');
    writeFileSync(file, JSON.stringify(config('required')));
    lab.handOver(file);
    const r = spawnSync(process.execPath, [SOURCE_ENTRY, '--config', file], {
      encoding: 'utf8',
      timeout: 15_000,
      env: { PATH },
      ...asPodUser(),
    });
    assert.notEqual(r.status, 0);
    assert.match(
      r.stderr,
      /auth\.bearerTokenFile .* lies inside .*, which every confined call may read and write/,
    );
  });

  it('control: with confinement off the server starts and `cat` returns the token', async () => {
    const server = await startServerProcess({
      dir: lab.own,
      env: { PATH },
      config: config('off'),
      user: asPodUser(),
    });
    try {
      const client = await connectClient(server.url, { authorization: `Bearer ${lab.token}` });
      const result = await client.callTool({
        name: 'exec_allowed',
        arguments: { command: ['cat', '.toolyard/token'] },
      });
      await client.close();
      assert.match(JSON.stringify(result), new RegExp(lab.token));
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});
