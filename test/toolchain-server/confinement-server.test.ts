/**
 * Kernel confinement through the real server process over MCP, on this machine's kernel (Landlock): every
 * payload is run twice — through the server (it must fail) and directly without the helper (the control: it
 * must succeed, so the test shows the payload bites).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { buildConfine, hostConfinePath } from '../../toolchain-server/scripts/build-confine.ts';
import { connectClient, makeWorkspace, pidAlive, type Workspace, waitFor } from './helpers.ts';
import { type ServerProcess, SOURCE_ENTRY, startServerProcess } from './process-helpers.ts';

const TOKEN = 'confinement-test-token-0123456789abcdef';
const PATH = process.env.PATH ?? '/usr/bin:/bin';

interface Exec {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/** The server's own files live outside TMPDIR, so only the own-file rule (not the TMPDIR rule) hides them. */
function ownDir(): string {
  return mkdtempSync('/var/tmp/toolyard-confine-test-');
}

function direct(args: string[], cwd: string): Exec {
  const r = spawnSync(args[0]!, args.slice(1), { cwd, encoding: 'utf8', env: { PATH } });
  return { exitCode: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function call(client: Client, command: string[]): Promise<Exec> {
  const result = await client.callTool({ name: 'exec_allowed', arguments: { command } });
  const s = result.structuredContent as Exec | undefined;
  assert.ok(s, `no structured result: ${JSON.stringify(result.content)}`);
  return s;
}

describe('kernel confinement through the server (limits.confinement: required)', () => {
  let ws: Workspace;
  let own: string;
  let server: ServerProcess;
  let client: Client;
  let listener: Server;
  let port: number;
  let tokenFile: string;
  const script = (name: string, body: string) => writeFileSync(join(ws.root, name), body);

  before(async () => {
    await buildConfine(process.arch === 'arm64' ? 'arm64' : 'amd64');
    ws = makeWorkspace();
    own = ownDir();
    tokenFile = join(own, 'token');
    writeFileSync(tokenFile, TOKEN);
    script('write.sh', 'echo pwned > "$1" && echo wrote\n');
    script('read.sh', 'cat "$1"\n');
    script('connect.sh', 'exec 3<>"/dev/tcp/127.0.0.1/$1" && echo connected\n');
    script('signal.sh', 'kill -0 "$1" && echo signalled\n');
    script(
      'spawn.sh',
      [
        'setsid sleep 300 > /dev/null 2>&1 & echo $! > "$1"',
        '( sleep 301 > /dev/null 2>&1 & echo $! > "$2" ) &',
        'nohup sleep 302 > /dev/null 2>&1 & echo $! > "$3"',
        // Leave only once every sleeper has recorded its pid (the backgrounded subshell may not have yet).
        'until [ -s "$1" ] && [ -s "$2" ] && [ -s "$3" ]; do sleep 0.01; done',
        'exit 0',
        '',
      ].join('\n'),
    );
    script(
      'home.sh',
      'echo "$HOME"; cat "$HOME/.gitconfig" 2>/dev/null; echo "[user]" > "$HOME/.gitconfig"\n',
    );
    listener = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as { port: number }).port;
    server = await startServerProcess({
      dir: own,
      config: {
        name: 'confined',
        listen: { host: '127.0.0.1', port: 0 },
        workspaceRoots: [ws.root],
        tools: { mode: 'exec', allowedCommands: ['sh', 'bash', 'cat', 'tar'] },
        env: { passthrough: ['PATH'] },
        auth: { bearerTokenFile: tokenFile },
        limits: { confinement: 'required' },
      },
    });
    client = await connectClient(server.url, { authorization: `Bearer ${TOKEN}` });
  });
  after(async () => {
    await client?.close();
    server?.child.kill('SIGTERM');
    await server?.exited;
    listener?.close();
    ws?.cleanup();
    if (own) rmSync(own, { recursive: true, force: true });
  });

  it('reports the ABI and the second wall on /readyz and /metrics and in every audit line', async () => {
    const ready = (await (await fetch(`${server.url}/readyz`)).json()) as {
      confinement: { mode: string; abi: number; status: string; wall: string };
    };
    assert.ok(['namespaces', 'seccomp'].includes(ready.confinement.wall), ready.confinement.wall);
    assert.equal(ready.confinement.mode, 'required');
    assert.equal(ready.confinement.status, 'enforced');
    assert.ok(ready.confinement.abi >= 1, `abi ${ready.confinement.abi}`);
    const metrics = await (
      await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).text();
    assert.match(metrics, new RegExp(`^toolyard_confinement_abi ${ready.confinement.abi}$`, 'm'));
    assert.match(
      metrics,
      new RegExp(`^toolyard_confinement_wall\\{mechanism="${ready.confinement.wall}"\\} 1$`, 'm'),
    );
    await call(client, ['cat', 'read.sh']);
    const audit = server.lines.filter((l) => l.event === 'audit').at(-1) as {
      confinement: { abi: number; mode: string; killed: number; wall: string };
    };
    assert.deepEqual(audit.confinement, {
      abi: ready.confinement.abi,
      mode: 'required',
      killed: 0,
      wall: ready.confinement.wall,
    });
  });

  it('refuses a write outside the workspace roots (EACCES); the control writes', async () => {
    for (const target of [join(ws.outside, 'escape'), join(own, 'escape')]) {
      const r = await call(client, ['sh', 'write.sh', target]);
      assert.notEqual(r.exitCode, 0);
      assert.match(r.stderr, /Permission denied/);
      assert.equal(existsSync(target), false);
      const control = direct(['sh', 'write.sh', target], ws.root);
      assert.equal(control.stdout, 'wrote\n');
      rmSync(target);
    }
    const inside = await call(client, ['sh', 'write.sh', join(ws.root, 'inside')]);
    assert.equal(inside.stdout, 'wrote\n');
  });

  it('keeps tar from writing outside the roots through a symlink the workspace already has', async () => {
    symlinkSync(ws.outside, join(ws.root, 'out'));
    writeFileSync(join(ws.root, 'payload'), 'x');
    execFileSync('tar', ['-cf', 'through.tar', '--transform=s,^payload,out/pwned-through,', 'payload'], {
      cwd: ws.root,
    });
    const r = await call(client, ['tar', '-xf', 'through.tar']);
    assert.notEqual(r.exitCode, 0);
    assert.equal(existsSync(join(ws.outside, 'pwned-through')), false);
    const control = direct(['tar', '-xf', 'through.tar'], ws.root);
    assert.equal(control.exitCode, 0);
    assert.equal(existsSync(join(ws.outside, 'pwned-through')), true);
  });

  it('hides the token file and the config file from children; the control reads them', async () => {
    const config = readFileSync(join(own, 'token'), 'utf8') && (server.child.spawnargs.at(-1) as string);
    assert.ok(config.startsWith(own));
    for (const file of [tokenFile, config]) {
      const r = await call(client, ['sh', 'read.sh', file]);
      assert.notEqual(r.exitCode, 0);
      assert.match(r.stderr, /Permission denied/);
      assert.doesNotMatch(r.stdout, new RegExp(TOKEN));
      assert.equal(direct(['sh', 'read.sh', file], ws.root).exitCode, 0);
    }
  });

  it('refuses a TCP connect to a 127.0.0.1 listener without egress; the control connects', async () => {
    const r = await call(client, ['bash', 'connect.sh', String(port)]);
    assert.notEqual(r.exitCode, 0);
    assert.match(r.stderr, /Permission denied/);
    assert.equal(direct(['bash', 'connect.sh', String(port)], ws.root).stdout, 'connected\n');
  });

  it('keeps children from signalling the server; the control signals it', async () => {
    const pid = String(server.child.pid);
    const r = await call(client, ['sh', 'signal.sh', pid]);
    assert.notEqual(r.exitCode, 0);
    assert.match(r.stderr, /not permitted/);
    assert.equal(direct(['sh', 'signal.sh', pid], ws.root).stdout, 'signalled\n');
  });

  it('kills setsid, double-forked and nohup grandchildren when the call returns; without the helper they survive', async () => {
    const files = ['a.pid', 'b.pid', 'c.pid'].map((f) => join(ws.root, f));
    const started = Date.now();
    const call1 = client.callTool({
      name: 'exec_allowed',
      arguments: { command: ['sh', 'spawn.sh', ...files] },
    });
    const r = (await call1).structuredContent as Exec;
    assert.equal(r.exitCode, 0);
    assert.ok(Date.now() - started < 5000, 'the call returned without waiting for the sleepers');
    const pids = files.map((f) => Number(readFileSync(f, 'utf8')));
    for (const pid of pids) await waitFor(() => !pidAlive(pid), 3000, `pid ${pid} to die`);
    const audit = server.lines.filter((l) => l.event === 'audit').at(-1) as {
      confinement: { killed: number };
    };
    assert.ok(audit.confinement.killed >= 3, `killed ${audit.confinement.killed}`);

    // Control: the same script started directly leaves all three running.
    for (const f of files) rmSync(f);
    const control = spawn('sh', ['spawn.sh', ...files], { cwd: ws.root, stdio: 'ignore', env: { PATH } });
    await new Promise((resolve) => control.once('exit', resolve));
    await new Promise((r) => setTimeout(r, 100));
    const survivors = files.map((f) => Number(readFileSync(f, 'utf8')));
    try {
      for (const pid of survivors) assert.equal(pidAlive(pid), true, `control pid ${pid} survived`);
    } finally {
      for (const pid of survivors) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {}
      }
    }
  });

  it("cannot write into another process's stdout through /proc/<pid>/fd/1 (forged audit lines); the control can", async () => {
    // The server's own stdout is a socketpair under this harness (ENXIO for everyone); in a pod it is a FIFO or
    // file, like this stand-in's: a process outside the call whose stdout is a file.
    const log = join(ws.outside, 'stdout.log');
    const stand = spawn('sleep', ['30'], { stdio: ['ignore', openSync(log, 'w'), 'ignore'] });
    try {
      const pid = String(stand.pid);
      script(
        'forge.sh',
        'echo "{\\"event\\":\\"audit\\",\\"forged\\":\\"$2\\"}" > "/proc/$1/fd/1" && echo forged\n',
      );
      for (const target of [pid, String(server.child.pid)]) {
        const r = await call(client, ['sh', 'forge.sh', target, 'confined']);
        assert.notEqual(r.exitCode, 0);
        assert.match(r.stderr, /Permission denied/);
      }
      const control = direct(['sh', 'forge.sh', pid, 'control'], ws.root);
      assert.equal(control.stdout, 'forged\n', control.stderr);
      const written = readFileSync(log, 'utf8');
      assert.match(written, /"forged":"control"/);
      assert.doesNotMatch(written, /"forged":"confined"/);
    } finally {
      stand.kill('SIGKILL');
    }
  });

  it('gives every call a fresh HOME: a ~/.gitconfig planted by one call is not seen by the next', async () => {
    const first = await call(client, ['sh', 'home.sh']);
    const second = await call(client, ['sh', 'home.sh']);
    const home1 = first.stdout.split('\n')[0]!;
    const home2 = second.stdout.split('\n')[0]!;
    assert.notEqual(home1, home2);
    assert.equal(second.stdout, `${home2}\n`, 'no planted .gitconfig in the second HOME');
    await waitFor(() => !existsSync(home1), 3000, 'the first HOME to be removed after its call');
  });

  it('pins git, npm, pip and go user configuration in the child environment', async () => {
    writeFileSync(
      join(ws.root, 'env.sh'),
      'echo "$GIT_CONFIG_GLOBAL $GIT_CONFIG_NOSYSTEM $NPM_CONFIG_USERCONFIG $PIP_CONFIG_FILE $GOENV"\n',
    );
    const r = await call(client, ['sh', 'env.sh']);
    assert.equal(r.stdout, '/dev/null 1 /dev/null /dev/null off\n');
  });
});

describe('degradation: a kernel without Landlock (simulated by the helper, test-only flag)', () => {
  let ws: Workspace;
  let own: string;
  let wrapper: string;

  before(async () => {
    const helper = await buildConfine(process.arch === 'arm64' ? 'arm64' : 'amd64');
    assert.equal(helper, hostConfinePath());
    ws = makeWorkspace();
    own = ownDir();
    const bin = join(own, 'bin');
    mkdirSync(bin);
    wrapper = join(bin, 'toolyard-confine');
    writeFileSync(wrapper, `#!/bin/sh\nexec ${helper} --simulate-no-landlock "$@"\n`);
    chmodSync(wrapper, 0o755);
    writeFileSync(join(ws.root, 'write.sh'), 'echo pwned > "$1" && echo wrote\n');
  });
  after(() => {
    ws?.cleanup();
    if (own) rmSync(own, { recursive: true, force: true });
  });

  const config = (mode: string) => ({
    name: 'degraded',
    listen: { host: '127.0.0.1', port: 0 },
    workspaceRoots: [ws.root],
    tools: { mode: 'exec', allowedCommands: ['sh'] },
    env: { passthrough: ['PATH'] },
    limits: { confinement: mode },
    confinementHelper: wrapper,
  });

  it('`required` refuses to start, saying why and what to do', () => {
    const file = join(own, 'required.json');
    writeFileSync(file, JSON.stringify(config('required')));
    const r = spawnSync(process.execPath, [SOURCE_ENTRY, '--config', file], {
      encoding: 'utf8',
      timeout: 15_000,
      env: { PATH },
    });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /limits\.confinement is required but this kernel offers no Landlock/);
    assert.match(r.stderr, /best-effort/);
  });

  it('`best-effort` starts, says abi 0 / unavailable on /readyz and in audit lines, and still reaps', async () => {
    const server = await startServerProcess({ dir: own, config: config('best-effort') });
    try {
      const ready = (await (await fetch(`${server.url}/readyz`)).json()) as {
        confinement: { mode: string; abi: number; status: string; wall: string };
      };
      // The second wall needs no Landlock: it still applies.
      const wall = ready.confinement.wall;
      assert.ok(['namespaces', 'seccomp'].includes(wall), wall);
      assert.deepEqual(ready.confinement, { mode: 'best-effort', abi: 0, status: 'unavailable', wall });
      await waitFor(
        () => /this kernel offers no Landlock: commands run unconfined/.test(server.stderr()),
        3000,
        'the warning',
      );
      const startup = server.lines.find((l) => l.event === 'toolchain') as { confinement: unknown };
      assert.deepEqual(startup.confinement, { mode: 'best-effort', abi: 0, status: 'unavailable', wall });
      const client = await connectClient(server.url);
      const target = join(ws.outside, 'unconfined');
      const r = await call(client, ['sh', 'write.sh', target]);
      assert.equal(r.stdout, 'wrote\n', 'without Landlock the write goes through: the degradation is real');
      await client.close();
      const audit = server.lines.filter((l) => l.event === 'audit').at(-1) as {
        confinement: { abi: number; mode: string; killed: number; wall: string };
      };
      assert.deepEqual(audit.confinement, { abi: 0, mode: 'best-effort', killed: 0, wall });
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});

describe('kernel confinement with egress: TCP connect only to the egress proxy port', () => {
  let ws: Workspace;
  let own: string;
  let server: ServerProcess;
  const listeners: Server[] = [];
  const ports: number[] = [];

  before(async () => {
    await buildConfine(process.arch === 'arm64' ? 'arm64' : 'amd64');
    ws = makeWorkspace();
    own = ownDir();
    writeFileSync(join(own, 'proxy-token'), 'proxy-token-value');
    writeFileSync(join(ws.root, 'connect.sh'), 'exec 3<>"/dev/tcp/127.0.0.1/$1" && echo connected\n');
    for (let i = 0; i < 2; i++) {
      const listener = createServer((socket) => socket.end());
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      listeners.push(listener);
      ports.push((listener.address() as { port: number }).port);
    }
    server = await startServerProcess({
      dir: own,
      config: {
        name: 'egress',
        listen: { host: '127.0.0.1', port: 0 },
        workspaceRoots: [ws.root],
        tools: { mode: 'exec', allowedCommands: ['bash'] },
        env: { passthrough: ['PATH'] },
        limits: { confinement: 'required' },
        egressProxy: {
          url: `http://127.0.0.1:${ports[0]}`,
          user: 'egress',
          tokenFile: join(own, 'proxy-token'),
        },
      },
    });
  });
  after(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
    for (const l of listeners) l.close();
    ws?.cleanup();
    if (own) rmSync(own, { recursive: true, force: true });
  });

  it('connects to the proxy port and nowhere else; the control connects to both', async () => {
    const client = await connectClient(server.url);
    try {
      const proxy = await call(client, ['bash', 'connect.sh', String(ports[0])]);
      assert.equal(proxy.stdout, 'connected\n', proxy.stderr);
      const other = await call(client, ['bash', 'connect.sh', String(ports[1])]);
      assert.notEqual(other.exitCode, 0);
      assert.match(other.stderr, /Permission denied/);
      assert.equal(direct(['bash', 'connect.sh', String(ports[1])], ws.root).stdout, 'connected\n');
    } finally {
      await client.close();
    }
  });
});
