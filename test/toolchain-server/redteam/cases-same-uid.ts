/**
 * Same-uid reach: code a call runs (a script, a test suite, a build) acting on what else runs as its uid —
 * leftovers that outlive the call, the server's /proc (environment, root, file descriptors), the token and the
 * config, signals, ptrace, the server's own TCP port and abstract Unix sockets. Each payload is one shell script
 * reached through each way a toolchain runs workspace code (sh, bash, python, node, perl, make, npm scripts,
 * pytest's conftest.py, go:generate).
 */
import {
  type Effect,
  FORGED,
  MARKED,
  numbered,
  OUT,
  type Planted,
  PROOF,
  type RedCase,
  SECRET,
  SURVIVES,
} from './case.ts';

interface Payload {
  readonly name: string;
  readonly script: string;
  readonly effect: Effect;
  /** Set up outside the roots (what the payload would change). */
  readonly outside?: RedCase['outside'];
}

const PY = '/usr/bin/python3';

const PAYLOADS: Record<string, Payload> = {
  write: { name: 'writes outside', script: 'touch @MARK@\n', effect: MARKED },
  token: { name: 'reads the token file', script: 'cat @TOKEN@\n', effect: SECRET },
  config: { name: 'reads the config file', script: 'cat @CONFIG@\n', effect: SECRET },
  environ: {
    name: "reads the server's environment",
    script: "tr '\\000' '\\n' < /proc/@PID@/environ\n",
    effect: SECRET,
  },
  procRoot: {
    name: "reads the token through the server's /proc/<pid>/root",
    script: 'cat /proc/@PID@/root@TOKEN@\n',
    effect: SECRET,
  },
  cmdlineConfig: {
    name: "finds the config in the server's cmdline and reads it",
    script:
      "cfg=$(tr '\\000' '\\n' < /proc/@PID@/cmdline | grep -A1 -x -- --config | tail -n 1)\ncat \"$cfg\"\n",
    effect: SECRET,
  },
  setsid: {
    name: 'leaves a setsid grandchild behind',
    script: 'setsid sleep 120 > /dev/null 2>&1 < /dev/null &\necho $! > @CASE@/survivor.pid\n',
    effect: SURVIVES,
  },
  doubleFork: {
    name: 'leaves a double-forked grandchild behind',
    script:
      '( sleep 121 > /dev/null 2>&1 < /dev/null & echo $! > @CASE@/survivor.pid ) &\nuntil [ -s @CASE@/survivor.pid ]; do sleep 0.01; done\n',
    effect: SURVIVES,
  },
  nohup: {
    name: 'leaves a nohup grandchild behind',
    script: 'nohup sleep 122 > /dev/null 2>&1 < /dev/null &\necho $! > @CASE@/survivor.pid\n',
    effect: SURVIVES,
  },
  setpgid: {
    name: 'leaves a grandchild in its own process group (setpgid) behind',
    script: `${PY} -c 'import os, subprocess; p = subprocess.Popen(["sleep", "123"], process_group=0, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); open("@CASE@/survivor.pid", "w").write(str(p.pid))'\n`,
    effect: SURVIVES,
  },
  daemon: {
    name: 'daemonizes (fork, setsid, fork) and stays',
    script: `${PY} -c '
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        open("@CASE@/survivor.pid", "w").write(str(os.getpid()))
        time.sleep(124)
    os._exit(0)
time.sleep(0.2)'\n`,
    effect: SURVIVES,
  },
  killReaper: {
    name: 'kills its reaper (the confinement helper) to orphan a setsid grandchild',
    script:
      'setsid sleep 125 > /dev/null 2>&1 < /dev/null &\necho $! > @CASE@/survivor.pid\n[ "$(cat /proc/$PPID/comm)" = toolyard-confine ] && kill -KILL $PPID\ntrue\n',
    effect: SURVIVES,
  },
  hardLink: {
    name: 'hard-links a file outside into the workspace and writes through the link',
    script: 'ln @OUT@/hl-@ID@ hl && echo pwned >> hl\n',
    outside: { 'hl-@ID@': 'victim\n' },
    effect: OUT('@OUT@/hl-@ID@'),
  },
  renameIn: {
    name: 'moves a file from outside into the workspace',
    script: 'mv @OUT@/mv-@ID@ stolen\n',
    outside: { 'mv-@ID@': 'victim\n' },
    effect: OUT('@OUT@/mv-@ID@'),
  },
  symlinkOut: {
    name: 'makes a symlink out of the workspace and writes through it',
    script: 'ln -s @OUT@ o && touch o/pwned-@ID@\n',
    effect: MARKED,
  },
  bindMount: {
    name: 'bind-mounts a directory outside over a workspace path in a user namespace',
    script: "unshare -rm sh -c 'mkdir -p m && mount --bind @OUT@/bind-@ID@ m && touch m/pwned'\n",
    outside: { 'bind-@ID@': { dir: true } },
    effect: OUT('@OUT@/bind-@ID@'),
  },
  forge: {
    name: "writes a forged audit line into another process's stdout",
    script:
      'printf \'{"event":"audit","forged":"@ID@"}\\n\' >> /proc/@STAND@/fd/1\nprintf \'{"event":"audit","forged":"@ID@"}\\n\' >> /proc/@PID@/fd/1 2>/dev/null\ntrue\n',
    effect: FORGED,
  },
  forgeFd2: {
    name: "writes a forged audit line through another process's /proc/<pid>/fd/1 opened by path",
    script: `${PY} -c 'open("/proc/@STAND@/fd/1", "a").write("{\\"event\\":\\"audit\\",\\"forged\\":\\"@ID@\\"}\\n")'\n`,
    effect: FORGED,
  },
  signal: {
    name: 'signals the server',
    script: 'kill -0 @PID@ && echo SIGNALLED-@ID@\n',
    effect: PROOF('SIGNALLED-@ID@'),
  },
  ptrace: {
    name: 'ptrace-attaches to the server (PTRACE_SEIZE)',
    script: `${PY} -c '
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
if libc.ptrace(0x4206, @PID@, 0, 0) == 0:
    print("ATTACHED-@ID@")
    libc.ptrace(17, @PID@, 0, 0)'\n`,
    effect: PROOF('ATTACHED-@ID@'),
  },
  connect: {
    name: "connects to the server's own MCP port",
    script: `${PY} -c '
import socket
socket.create_connection(("127.0.0.1", @PORT@), timeout=5)
print("CONNECTED-@ID@")'\n`,
    effect: PROOF('CONNECTED-@ID@'),
  },
  abstract: {
    name: 'connects to an abstract Unix socket held outside the call',
    script: `${PY} -c '
import socket
s = socket.socket(socket.AF_UNIX)
s.connect("\\0@ABSTRACT@")
print("CONNECTED-@ID@")'\n`,
    effect: PROOF('CONNECTED-@ID@'),
  },
};

interface Vector {
  readonly name: string;
  readonly argv: readonly string[];
  readonly files: Readonly<Record<string, Planted>>;
}

const VECTORS: Record<string, Vector> = {
  sh: { name: 'sh script', argv: ['sh', 'payload.sh'], files: {} },
  bash: { name: 'bash script', argv: ['bash', 'payload.sh'], files: {} },
  python: {
    name: 'python script',
    argv: ['python3', 'run.py'],
    files: { 'run.py': 'import subprocess\nsubprocess.run(["sh", "payload.sh"])\n' },
  },
  node: {
    name: 'node script',
    argv: ['node', 'run.js'],
    files: {
      'run.js': "require('child_process').execFileSync('sh', ['payload.sh'], { stdio: 'inherit' });\n",
    },
  },
  perl: {
    name: 'perl script',
    argv: ['perl', 'run.pl'],
    files: { 'run.pl': "system('sh', 'payload.sh');\n" },
  },
  make: { name: 'make recipe', argv: ['make', '-s'], files: { Makefile: 'all:\n\t@sh payload.sh\n' } },
  npm: {
    name: 'npm test script',
    argv: ['npm', 'test', '--silent'],
    files: { 'package.json': '{"name":"x","version":"1.0.0","scripts":{"test":"sh payload.sh"}}\n' },
  },
  conftest: {
    name: "pytest's conftest.py",
    argv: ['pytest', '-q', '-p', 'no:cacheprovider'],
    files: {
      'conftest.py':
        'import subprocess\nwith open("ev.txt", "w") as out:\n    subprocess.run(["sh", "payload.sh"], stdout=out, stderr=subprocess.STDOUT)\n',
      'test_a.py': 'def test_a():\n    pass\n',
    },
  },
  generate: {
    name: 'go:generate',
    argv: ['go', 'generate', './...'],
    files: {
      'go.mod': 'module example.com/gen\n\ngo 1.19\n',
      'gen.go': 'package gen\n\n//go:generate sh payload.sh\n',
    },
  },
};

function through(
  vector: keyof typeof VECTORS,
  payload: keyof typeof PAYLOADS,
): Omit<RedCase, 'id' | 'class'> {
  const v = VECTORS[vector]!;
  const p = PAYLOADS[payload]!;
  return {
    what: `${v.name} ${p.name}`,
    argv: v.argv,
    files: { ...v.files, 'payload.sh': p.script },
    ...(p.outside ? { outside: p.outside } : {}),
    effect: p.effect,
  };
}

/** Every payload through sh; the everyday ones (write, token, leftover, forged audit) through every other way. */
export const SAME_UID: readonly RedCase[] = numbered('U', 'same-uid', [
  ...Object.keys(PAYLOADS).map((p) => through('sh', p)),
  ...(['bash', 'python', 'node', 'perl', 'make', 'npm', 'conftest', 'generate'] as const).flatMap((v) =>
    (['write', 'token', 'setsid', 'forge'] as const).map((p) => through(v, p)),
  ),
  through('python', 'environ'),
  through('node', 'config'),
  through('make', 'doubleFork'),
  through('npm', 'nohup'),
  through('conftest', 'daemon'),
  through('node', 'signal'),
]);
