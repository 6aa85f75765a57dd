/**
 * The lab of the confinement red team (issue 18): one per run — the confined server, the unconfined server and the
 * controls each get their own, so a payload that bites in one cannot spoil another.
 *
 *   <base>/workspace        the only workspace root: a git repository with a small project (fixtures below);
 *                           every case runs in workspace/cases/<id>, where its planted files go
 *   <base>/outside          readable by calls, never writable: marks land here, and repositories/victims
 *   <base>/home             the HOME an unconfined server shares between calls (`env.set.HOME`)
 *   <base>/secrets/token    the bearer token (the server's own file: never readable by a call)
 *   <base>/own/             the server's config (never readable by a call)
 *   <base>/stand.log        stdout of the stand-in: a process outside every call, like the server
 *
 * Everything lives under /var/tmp, outside the server's TMPDIR, so only the server's own-file rules (not the
 * TMPDIR rule) hide the token and config. Everything belongs to the pod's uid (65532), which the server, its calls,
 * the stand-in and the controls run as when the test runs as root (test/support/pod-user.ts): same-uid reach is
 * then the uid's own rules, not root's capabilities. Beside the files, the stand-in's memory has a SysV shared
 * memory segment outside every call, holding the env canary.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { asPodUser, chownForPod, SWITCHES_UID } from '../../support/pod-user.ts';
import { GIT_IDENTITY } from './fixtures.ts';

const PY = '/usr/bin/python3';

export interface Lab {
  readonly base: string;
  readonly root: string;
  readonly outside: string;
  readonly home: string;
  readonly secrets: string;
  readonly tokenFile: string;
  readonly own: string;
  /** The config file: the server's, or (controls) a copy at the same place. */
  readonly configFile: string;
  readonly token: string;
  /** In the server's environment only (and the stand-in's). */
  readonly envCanary: string;
  /** In the config file only (as the toolchain name). */
  readonly configCanary: string;
  readonly standLog: string;
  /** A process outside every call: stdout to stand.log, the env canary in its environment. */
  readonly stand: ChildProcess;
  /** Random per lab: what a case names kernel objects after (SysV keys, keyring descriptions), so labs never meet. */
  readonly nonce: string;
  /** A SysV shared memory segment outside every call, holding the env canary (-1 when it could not be made). */
  readonly shmId: number;
  /** Gives what a case planted (as root) to the pod's uid, as everything else in the lab. */
  handOver(path: string): void;
  /** Strings no call may ever return or leave behind. */
  readonly secretsList: readonly string[];
  cleanup(): void;
}

/** The project every case may use without planting anything (the workspace's own files). */
const PROJECT: Record<string, string> = {
  README: 'red team workspace\n',
  f: 'a\nb\n',
  'app.js': "console.log('app ok');\n",
  'warn.js': "process.emitWarning('red team warning');\n",
  'data.json': '{"a": 1}\n',
  'package.json': `${JSON.stringify({ name: 'redteam', version: '1.0.0', scripts: { test: 'echo tests pass' } })}\n`,
  'go.mod': 'module example.com/redteam\n\ngo 1.19\n',
  'x.go': 'package redteam\n\nfunc X() int { return 1 }\n',
  'x_test.go': 'package redteam\n\nimport "testing"\n\nfunc TestX(t *testing.T) { _ = X() }\n',
  'main.tf': 'output "hello" {\n  value = "world"\n}\n',
  'test_ok.py': 'def test_ok():\n    pass\n',
  '.gitignore': 'cases/\nsub/target/\n',
  'sub/README': 'a subdirectory of the project\n',
  // A Node and a Rust package in `sub`: their test runners take options forwarded after `--`.
  'sub/package.json': `${JSON.stringify({ name: 'sub', version: '1.0.0', scripts: { test: 'node --test' } })}\n`,
  'sub/Cargo.toml': '[package]\nname = "sub"\nversion = "0.1.0"\nedition = "2021"\n',
  'sub/src/lib.rs': '#[cfg(test)]\nmod tests {\n    #[test]\n    fn ok() {}\n}\n',
};

export function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, ...GIT_IDENTITY },
    stdio: 'ignore',
  });
}

export function makeLab(label: string): Lab {
  const base = realpathSync(mkdtempSync(`/var/tmp/toolyard-rt-${label}-`));
  const root = join(base, 'workspace');
  const outside = join(base, 'outside');
  const home = join(base, 'home');
  const secrets = join(base, 'secrets');
  const own = join(base, 'own');
  for (const dir of [root, join(root, 'cases'), outside, home, secrets, own])
    mkdirSync(dir, { recursive: true });
  const random = () => Math.random().toString(36).slice(2, 12);
  const token = `tok-${random()}-tokencanary`;
  const envCanary = `env-${random()}-envcanary`;
  const configCanary = `cfg-${random()}-cfgcanary`;
  const tokenFile = join(secrets, 'token');
  writeFileSync(tokenFile, `${token}\n`);
  const configFile = join(own, 'config.json');
  // Controls read a stand-in config at the same place; the server writes its own (startServerProcess).
  writeFileSync(configFile, `${JSON.stringify({ name: configCanary })}\n`);
  mkdirSync(join(root, 'sub', 'src'), { recursive: true });
  for (const [name, content] of Object.entries(PROJECT)) writeFileSync(join(root, name), content);
  git(root, 'init', '-q', '-b', 'main', '.');
  git(root, 'add', '.');
  git(root, 'commit', '-q', '-m', 'project');
  const standLog = join(base, 'stand.log');
  writeFileSync(standLog, '');
  chownForPod(base);
  const stand = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)', '--', '--config', configFile], {
    stdio: ['ignore', openSync(standLog, 'a'), 'ignore'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TOOLYARD_CANARY: envCanary },
    // Its own process group, like the server's: a payload naming its group names it alone, not the test runner.
    detached: true,
    ...asPodUser(),
  });
  const shmId = Number(
    execFileSync(PY, ['-c', SHM_WITH_SECRET, envCanary], { encoding: 'utf8', ...asPodUser() }).trim(),
  );
  return {
    base,
    root,
    outside,
    home,
    secrets,
    tokenFile,
    own,
    configFile,
    token,
    envCanary,
    configCanary,
    standLog,
    stand,
    nonce: random(),
    shmId,
    secretsList: [token, envCanary, configCanary],
    handOver: (path) => chownForPod(path),
    cleanup: () => {
      stand.kill('SIGKILL');
      if (shmId >= 0) execFileSync(PY, ['-c', SHM_REMOVE, String(shmId)], asPodUser());
      // What a control's payload kept in the kernel for a next call (SysV objects, keys): the pod's uid is the
      // tests' own, so all of its objects go.
      if (SWITCHES_UID) {
        execFileSync('ipcrm', ['--all'], { stdio: 'ignore', ...asPodUser() });
        execFileSync(PY, ['-c', CLEAR_USER_KEYRING], { stdio: 'ignore', ...asPodUser() });
      }
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** Makes a private segment holding argv[1], prints its id (it stays after this process). */
const SHM_WITH_SECRET = `
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
data = sys.argv[1].encode()
shm = libc.shmget(0, 4096, 0o1600)
if shm < 0:
    print(-1)
    sys.exit(0)
addr = libc.shmat(shm, None, 0)
ctypes.memmove(addr, data, len(data))
libc.shmdt(ctypes.c_void_p(addr))
print(shm)
`;
const SHM_REMOVE = 'import ctypes, sys\nctypes.CDLL(None).shmctl(int(sys.argv[1]), 0, None)\n';
/** keyctl(KEYCTL_CLEAR, KEY_SPEC_USER_KEYRING). */
const CLEAR_USER_KEYRING = `import ctypes\nctypes.CDLL(None).syscall(${process.arch === 'arm64' ? 219 : 250}, 7, -4)\n`;
