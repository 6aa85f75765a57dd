/**
 * Code mode's red team: each case is a program an attacker would send through `run_code` (a prompt-injected model),
 * run by the real server as uid 65532 with confinement required, and held; and, as its control, the same payload run
 * where the confinement is not (directly as uid 65532, or through a server whose allowlist or limits let it), where
 * it must bite. An inert payload fails the test as surely as one that gets through.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Lab, type LabServer, PATH, POD_UID } from './code-mode/lab.ts';
import { pidAlive } from './helpers.ts';

const TOKEN = 'redteam-own-token-4242424242424242';
const OTHER_TOKEN = 'redteam-other-toolchain-token-1717';
const MEMORY_MIB = 128;
const PROCESSES = 24;

interface Output {
  runId: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  returnValue: unknown;
  error: string | null;
}

/** Runs Python directly as the pod uid, unconfined: the control (async, so this process's listeners can answer). */
function direct(
  code: string,
  cwd: string,
  home: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('/usr/bin/python3', ['-c', code], {
      cwd,
      uid: POD_UID,
      gid: POD_UID,
      env: { PATH, HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      setTimeout(() => resolve({ status, stdout, stderr }), 50);
    });
  });
}

describe('code mode red team (uid 65532, confinement required; each case with its control)', {
  timeout: 300_000,
}, () => {
  let lab: Lab;
  let cm: LabServer;
  let loose: LabServer;
  let other: LabServer;
  let client: Client;
  let looseClient: Client;
  let tcp: Server;
  let unixPath: Server;
  let abstract: Server;
  let udpPort: number;
  const udpSeen: string[] = [];
  let udp: ReturnType<typeof createSocket>;
  const tcpSeen: string[] = [];
  const unixSeen: string[] = [];
  const abstractSeen: string[] = [];
  let home: string;
  let tokenFile: string;
  let otherTokenFile: string;
  let configFile: string;
  const abstractName = `toolyard-redteam-${process.pid}`;

  const run = async (code: string, language = 'python', c = client): Promise<Output> => {
    const result = await c.callTool({ name: 'run_code', arguments: { language, code, timeoutSeconds: 20 } });
    const out = result.structuredContent as unknown as Output;
    assert.ok(out, JSON.stringify(result.content));
    return out;
  };

  before(async () => {
    await Lab.build();
    lab = new Lab();
    home = lab.dir('control-home');
    const listen = (server: Server, at: string | number) =>
      new Promise<void>((r) =>
        typeof at === 'number' ? server.listen(at, '127.0.0.1', r) : server.listen(at, r),
      );
    tcp = createServer((s) => {
      tcpSeen.push('connection');
      s.end();
    });
    await listen(tcp, 0);
    unixPath = createServer((s) => {
      unixSeen.push('connection');
      s.end();
    });
    const sock = join(lab.dir('sockets', 0o777), 'agent.sock');
    await listen(unixPath, sock);
    spawnSync('chmod', ['0777', sock]);
    abstract = createServer((s) => {
      abstractSeen.push('connection');
      s.end();
    });
    await listen(abstract, `\0${abstractName}`);
    udp = createSocket('udp4', (msg) => udpSeen.push(msg.toString()));
    await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r));
    udpPort = udp.address().port;
    writeFileSync(
      join(lab.base, 'ports.json'),
      JSON.stringify({ tcp: (tcp.address() as { port: number }).port, udp: udpPort, sock }),
    );

    other = await lab.server(
      'other',
      {
        name: 'other',
        listen: { host: '127.0.0.1', port: 0 },
        workspaceRoots: [lab.workspace],
        tools: { mode: 'exec', allowedCommands: ['echo'] },
        env: { passthrough: ['PATH'] },
        auth: { bearerTokenFile: lab.token('other', OTHER_TOKEN) },
        limits: { confinement: 'required' },
      },
      OTHER_TOKEN,
    );
    const secrets = lab.dir('own-cm/secrets', 0o700);
    tokenFile = lab.file(join(secrets, 'token'), TOKEN);
    otherTokenFile = lab.file(join(secrets, 'other-token'), OTHER_TOKEN);
    const config = (name: string, servers: unknown[]) => ({
      name,
      listen: { host: '127.0.0.1', port: 0 },
      workspaceRoots: [lab.workspace],
      tools: { mode: 'exec', allowedCommands: ['echo'] },
      env: { passthrough: ['PATH'] },
      auth: { bearerTokenFile: tokenFile },
      limits: { confinement: 'required', maxConcurrency: 4 },
      codeMode: {
        languages: ['python', 'node'],
        servers,
        limits: { memoryMiB: MEMORY_MIB, processes: PROCESSES, maxCallsPerRun: 5 },
      },
    });
    cm = await lab.server('cm', config('cm', [{ name: 'cm', kind: 'toolchain' }]), TOKEN);
    configFile = join(lab.base, 'own-cm', 'config.json');
    // The control for the allowlist: a server whose code mode may call `other`.
    loose = await lab.server(
      'loose',
      config('loose', [
        { name: 'other', kind: 'toolchain', url: `${other.url}/mcp`, tokenFile: otherTokenFile },
      ]),
      TOKEN,
    );
    client = await cm.client();
    looseClient = await loose.client();
  });
  after(async () => {
    await lab?.close();
    tcp?.close();
    unixPath?.close();
    abstract?.close();
    udp?.close();
  });

  const sockets = () =>
    JSON.parse(readFileSync(join(lab.base, 'ports.json'), 'utf8')) as {
      tcp: number;
      udp: number;
      sock: string;
    };

  it('opens no TCP socket (Python and Node), though the listener takes the control', async () => {
    const { tcp: port } = sockets();
    const py = `import socket\ntry:\n    socket.create_connection(("127.0.0.1", ${port}), 2); print("CONNECTED")\nexcept OSError as e:\n    print("refused", e)`;
    const before = tcpSeen.length;
    const held = await run(py);
    assert.match(held.stdout, /refused \[Errno 13\]/);
    const js = await run(
      `import net from 'node:net';\nconst r = await new Promise((ok) => { const s = net.connect(${port}, '127.0.0.1'); s.on('connect', () => ok('CONNECTED')); s.on('error', (e) => ok('refused ' + e.code)); });\nexport default r;`,
      'javascript',
    );
    assert.match(String(js.returnValue), /^refused E/);
    assert.equal(tcpSeen.length, before);
    assert.match((await direct(py, lab.workspace, home)).stdout, /CONNECTED/);
    assert.equal(tcpSeen.length, before + 1);
  });

  it('sends no UDP datagram (a DNS-style exfiltration), though the control does', async () => {
    const py = `import socket\ntry:\n    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b"exfil", ("127.0.0.1", ${sockets().udp})); print("SENT")\nexcept OSError as e:\n    print("refused", e)`;
    assert.match((await run(py)).stdout, /refused \[Errno 13\]/);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(udpSeen, []);
    assert.match((await direct(py, lab.workspace, home)).stdout, /SENT/);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(udpSeen, ['exfil']);
  });

  it('connects to no Unix socket by path, though the control does', async () => {
    const py = `import socket\ntry:\n    s = socket.socket(socket.AF_UNIX); s.connect(${JSON.stringify(sockets().sock)}); print("CONNECTED")\nexcept OSError as e:\n    print("refused", e)`;
    assert.match((await run(py)).stdout, /refused \[Errno 13\]/);
    assert.equal(unixSeen.length, 0);
    assert.match((await direct(py, lab.workspace, home)).stdout, /CONNECTED/);
    assert.equal(unixSeen.length, 1);
  });

  it('connects to no abstract Unix socket, though the control does', async () => {
    const py = `import socket\ntry:\n    s = socket.socket(socket.AF_UNIX); s.connect("\\0${abstractName}"); print("CONNECTED")\nexcept OSError as e:\n    print("refused", e)`;
    assert.match((await run(py)).stdout, /refused \[Errno 13\]/);
    assert.equal(abstractSeen.length, 0);
    assert.match((await direct(py, lab.workspace, home)).stdout, /CONNECTED/);
    assert.equal(abstractSeen.length, 1);
  });

  it("reads neither the server's token, another toolchain's token nor the config, though the pod uid can", async () => {
    for (const [file, secret] of [
      [tokenFile, TOKEN],
      [otherTokenFile, OTHER_TOKEN],
      [configFile, '"codeMode"'],
    ] as const) {
      const py = `try:\n    print(open(${JSON.stringify(file)}).read())\nexcept OSError as e:\n    print("refused", type(e).__name__)`;
      const held = await run(py);
      assert.match(held.stdout, /refused PermissionError/, file);
      assert.ok(!JSON.stringify(held).includes(secret));
      assert.ok((await direct(py, lab.workspace, home)).stdout.includes(secret), `control: ${file}`);
    }
  });

  it('calls no server off the allowlist; a server that allows it makes the same call', async () => {
    const py = `try:\n    print(mcp_servers.get("other") or McpError)\n    r = __import__("builtins")\nexcept Exception as e:\n    pass\nimport json\ntry:\n    print(json.dumps(list_tools("other")))\nexcept McpError as e:\n    print("refused", e.code)`;
    const held = await run(py);
    assert.match(held.stdout, /refused TOOLYARD_CODE_MODE_SERVER_REFUSED/);
    // A frame written by hand, naming it, is refused the same way: `other` runs nothing.
    const calls = () => other.lines.filter((l) => l.event === 'audit').length;
    const before = calls();
    const forged = await run(
      `import os, json\nos.write(3, (json.dumps({"id": 99, "op": "call", "server": "other", "tool": "exec_allowed", "args": {"command": ["echo", "x"]}}) + "\\n").encode())\nimport time; time.sleep(0.3)`,
    );
    assert.equal(forged.exitCode, 0);
    assert.equal(calls(), before);
    const control = await run(
      'r = mcp_other.exec_allowed(command=["echo", "reached-other"])\nprint(r["structuredContent"]["stdout"])',
      'python',
      looseClient,
    );
    assert.match(control.stdout, /reached-other/);
    assert.equal(calls(), before + 1);
  });

  it('a flood of frames ends the run and the server serves the next one; a few frames are answered', async () => {
    const flood = await run(
      'import os\nline = b\'{"id": 1, "op": "list_servers"}\\n\'\nfor i in range(200000):\n    os.write(3, line)\nprint("SURVIVED")',
    );
    assert.match(String(flood.error), /the run was ended: more than 1000 frames/);
    assert.doesNotMatch(flood.stdout, /SURVIVED/);
    const huge = await run(
      'import os\nos.write(3, b"[" + b"1," * (3 << 20))\nimport time; time.sleep(5)\nprint("SURVIVED")',
    );
    assert.match(String(huge.error), /frame exceeds/);
    const garbage = await run('import os\nos.write(3, b"not json\\n")\nimport time; time.sleep(5)');
    assert.match(String(garbage.error), /not JSON/);
    const control = await run('import os\nfor i in range(10):\n    list_servers()\nprint("ANSWERED")');
    assert.match(control.stdout, /ANSWERED/);
    assert.equal(control.error, null);
  });

  it('calls per run are bounded', async () => {
    const out = await run(
      'n = 0\ntry:\n    for i in range(10):\n        mcp_cm.exec_allowed(command=["echo", str(i)]); n += 1\nexcept McpError as e:\n    print(e.code)\nn',
    );
    assert.equal(out.returnValue, 5);
    assert.match(out.stdout, /TOOLYARD_CODE_MODE_LIMIT/);
  });

  it('cannot exhaust memory (Python and Node), though the control allocates', async () => {
    const py = `try:\n    b = bytearray(${MEMORY_MIB * 2} << 20); b[-1] = 1; print("ALLOCATED")\nexcept MemoryError:\n    print("refused")`;
    assert.match((await run(py)).stdout, /refused/);
    const js = await run(
      `let r; try { const b = Buffer.alloc(${MEMORY_MIB * 2} * 1024 * 1024, 1); r = 'ALLOCATED' + b.length; } catch (e) { r = 'refused ' + e.name; }\nexport default r;`,
      'javascript',
    );
    assert.match(String(js.returnValue), /^refused/);
    const heap = await run('const a = []; for (;;) a.push(new Array(1e6).fill(1.5));', 'javascript');
    assert.notEqual(heap.exitCode, 0);
    assert.match((await direct(py, lab.workspace, home)).stdout, /ALLOCATED/);
  });

  it('cannot exhaust processes, though the control starts them all', async () => {
    const py = `import subprocess\nps = []\ntry:\n    for i in range(${PROCESSES * 2}):\n        ps.append(subprocess.Popen(["sleep", "30"]))\nexcept OSError as e:\n    print("refused after", len(ps))\nprint("started", len(ps))\nfor p in ps: p.kill()`;
    const held = await run(py);
    assert.match(held.stdout, /refused after \d+/);
    assert.ok(Number(/started (\d+)/.exec(held.stdout)?.[1]) < PROCESSES * 2);
    assert.match((await direct(py, lab.workspace, home)).stdout, new RegExp(`started ${PROCESSES * 2}`));
  });

  it('nothing it starts outlives the run (detached, or killed at the timeout), though the control leaves one', async () => {
    const pidFile = join(lab.dir('pids', 0o777), 'pid');
    const py = `import subprocess\np = subprocess.Popen(["sleep", "300"], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\nopen("outputs/pid", "w").write(str(p.pid))\nprint(p.pid)`;
    const held = await run(py);
    const pid = Number(held.stdout.trim());
    assert.ok(pid > 0);
    assert.equal(pidAlive(pid), false);
    const slow = await client.callTool({
      name: 'run_code',
      arguments: {
        language: 'python',
        code: 'import subprocess, time\np = subprocess.Popen(["sleep", "300"])\nopen("outputs/pid2", "w").write(str(p.pid))\ntime.sleep(300)',
        timeoutSeconds: 2,
      },
    });
    const out = slow.structuredContent as unknown as Output;
    assert.equal(out.timedOut, true);
    const pid2 = Number(readFileSync(join(lab.workspace, 'outputs', 'pid2'), 'utf8'));
    assert.equal(pidAlive(pid2), false);
    const control = await direct(py.replace('outputs/pid', pidFile), lab.workspace, home);
    const survivor = Number(control.stdout.trim());
    assert.equal(pidAlive(survivor), true);
    process.kill(survivor, 'SIGKILL');
  });

  it('writes nowhere but outputs/ and its scratch HOME, though the control writes everywhere', async () => {
    const targets = [
      join(lab.workspace, 'src.py'),
      join(lab.outside, 'planted'),
      '/tmp/toolyard-redteam-planted',
      join(lab.workspace, '.git', 'hooks', 'pre-commit'),
    ];
    const py = `import os\nfor t in ${JSON.stringify(targets)}:\n    try:\n        open(t, "w").write("pwned"); print("WROTE", t)\n    except OSError as e:\n        print("refused", t, type(e).__name__)\nopen(os.path.join(os.environ["HOME"], "ok"), "w").write("x")\nopen("outputs/ok", "w").write("x")\nprint("scratch and outputs ok")`;
    const held = await run(py);
    assert.doesNotMatch(held.stdout, /WROTE/);
    assert.match(held.stdout, /scratch and outputs ok/);
    for (const t of targets) assert.equal(existsSync(t), false, t);
    const control = await direct(py.replace('os.environ["HOME"]', JSON.stringify(home)), lab.workspace, home);
    assert.equal((control.stdout.match(/WROTE/g) ?? []).length, targets.length);
    spawnSync('rm', ['-f', ...targets]);
  });

  it("reads neither another run's scratch nor its program, though the pod uid can", async () => {
    // Run A keeps a secret in its HOME and tells where (through outputs/), then waits while run B looks.
    const a = client.callTool({
      name: 'run_code',
      arguments: {
        language: 'python',
        code: 'import os, sys, time\nopen(os.environ["HOME"] + "/secret", "w").write("run-a-secret")\nopen("outputs/where", "w").write(os.environ["HOME"] + "\\n" + sys.argv[0])\ntime.sleep(4)',
        timeoutSeconds: 20,
      },
    });
    const where = join(lab.workspace, 'outputs', 'where');
    for (let i = 0; i < 100 && !existsSync(where); i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 100));
    const [homeA, programA] = readFileSync(where, 'utf8').split('\n') as [string, string];
    const py = `for f in ${JSON.stringify([`${homeA}/secret`, programA])}:\n    try:\n        print("READ", open(f).read())\n    except OSError as e:\n        print("refused", type(e).__name__)`;
    const held = await run(py);
    assert.doesNotMatch(held.stdout, /READ/);
    assert.equal((held.stdout.match(/refused PermissionError/g) ?? []).length, 2);
    const control = await direct(py, lab.workspace, home);
    assert.match(control.stdout, /READ run-a-secret/);
    await a;
  });

  it("holds no descriptor of the server's: stdio, its two FIFOs, and what the interpreter made itself", async () => {
    const out = await run(
      'import os\nout = []\nfor f in os.listdir("/proc/self/fd"):\n    try: out.append(os.readlink("/proc/self/fd/" + f))\n    except OSError: pass\nsorted(out)',
    );
    const links = out.returnValue as string[];
    const files = links.filter((l) => l.startsWith('/'));
    assert.equal(files.length, 3, links.join(', '));
    assert.equal(files[0], '/dev/null');
    assert.match(files[1] as string, /\/run-[0-9a-f-]+\/call$/);
    assert.match(files[2] as string, /\/run-[0-9a-f-]+\/reply$/);
    // The rest are its own: stdout/stderr pipes, its event loop's epoll and self-pipe (an AF_UNIX pair).
    for (const l of links.filter((x) => !x.startsWith('/'))) assert.match(l, /^(pipe|anon_inode|socket):/, l);
  });
});
