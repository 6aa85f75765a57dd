/**
 * The confinement red team (issue 18, "Proof"): every case of redteam/corpus-confined.ts, each class of the third
 * outside review, run three ways, each in its own lab:
 *
 * 1. against the real server over MCP with `limits.confinement: required` (Landlock, this kernel): no payload
 *    bites — nothing written outside the roots, no token, config or server environment returned or left behind,
 *    no process outliving its call, no forged audit line;
 * 2. against the real server with `limits.confinement: off`: every case that plants nothing in the workspace is
 *    still held by the argv policy alone;
 * 3. the control, directly and unconfined, no server: every payload bites (an inert payload fails the test).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { buildConfine } from '../../toolchain-server/scripts/build-confine.ts';
import { connectClient, waitFor } from './helpers.ts';
import { type ServerProcess, SOURCE_ENTRY, startServerProcess } from './process-helpers.ts';
import { type CaseClass, needsWorkspace } from './redteam/case.ts';
import { CONFINED_CORPUS, confinedCommands } from './redteam/corpus-confined.ts';
import { GIT_IDENTITY } from './redteam/fixtures.ts';
import { type Lab, makeLab } from './redteam/lab.ts';
import { type Returned, type Runner, runCase } from './redteam/run-case.ts';

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

/** One abstract-socket and one TCP listener outside every call (what @ABSTRACT@ and a control's @PORT@ name). */
async function listeners(label: string): Promise<{ abstract: string; port: number; close(): void }> {
  const abstract = `toolyard-rt-${label}-${process.pid}-${Date.now()}`;
  const unix: Server = createServer((s) => s.end());
  const tcp: Server = createServer((s) => s.end());
  await new Promise<void>((resolve) => unix.listen(`\0${abstract}`, resolve));
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  return {
    abstract,
    port: (tcp.address() as { port: number }).port,
    close: () => {
      unix.close();
      tcp.close();
    },
  };
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

async function startMode(confinement: 'required' | 'off'): Promise<Mode> {
  const lab = makeLab(confinement);
  const net = await listeners(confinement);
  const server = await startServerProcess({
    dir: lab.own,
    env: { PATH, LANG: 'C.UTF-8', TOOLYARD_CANARY: lab.envCanary, AWS_SECRET_ACCESS_KEY: lab.envCanary },
    config: {
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

/** The control's way of running: directly, unconfined, no server, the lab's shared HOME. */
function directRunner(lab: Lab, net: { abstract: string; port: number }): Runner {
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
      return home;
    },
    forgedInServer: () => false,
    run: (argv, cwd, env, home) =>
      new Promise((resolve) => {
        const child = spawn(argv[0]!, argv.slice(1), {
          cwd,
          env: { PATH, LANG: 'C.UTF-8', HOME: home, ...TOOL_ENV, ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
          detached: true,
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
    const left = processesIn(mode.lab.base).filter(
      (pid) => pid !== mode.server.child.pid && pid !== mode.lab.stand.pid,
    );
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
    net = await listeners('control');
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
 * metadata of files outside the roots (mode, times, user xattrs) and connect() to a pathname Unix socket. The
 * container layer stops these for the server's own files (a non-root uid that owns neither the Secret and
 * ConfigMap mounts nor the image's /opt/toolyard; read-only mounts), and a pod mounts no foreign sockets.
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
    socketPath = join(mode.lab.outside, 'agent.sock');
    listener = createServer((s) => {
      connections++;
      s.end();
    });
    await new Promise<void>((resolve) => listener.listen(socketPath, resolve));
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

  it('connect() to a pathname Unix socket outside the roots goes through (abstract ones do not: U-cases)', async () => {
    await call(
      `/usr/bin/python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect("${socketPath}")'\n`,
    );
    assert.equal(connections, 1);
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
    const r = spawnSync(process.execPath, [SOURCE_ENTRY, '--config', file], {
      encoding: 'utf8',
      timeout: 15_000,
      env: { PATH },
    });
    assert.notEqual(r.status, 0);
    assert.match(
      r.stderr,
      /auth\.bearerTokenFile .* lies inside .*, which every confined call may read and write/,
    );
  });

  it('control: with confinement off the server starts and `cat` returns the token', async () => {
    const server = await startServerProcess({ dir: lab.own, env: { PATH }, config: config('off') });
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
