/**
 * The red team's playground: a workspace (a git repository with a Makefile, package.json, scripts, planted
 * configuration, malicious archives and symlinks that lead out) next to an "outside" directory holding the
 * server's token and a canary secret. Placeholders in a case's argv are filled in from here.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Playground {
  readonly base: string;
  readonly root: string;
  readonly outside: string;
  readonly home: string;
  readonly token: string;
  readonly tokenFile: string;
  /** A secret only the server's own environment holds. */
  readonly canary: string;
  /** Where a payload of case `id` would leave its mark. */
  marker(id: string): string;
  cleanup(): void;
}

/** A minimal ustar archive writer: regular files ('0') and symlinks ('2'), so archives can be hostile. */
export function tarArchive(
  entries: ReadonlyArray<{ name: string; data?: string; symlinkTo?: string }>,
): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const data = Buffer.from(entry.data ?? '');
    const size = entry.symlinkTo === undefined ? data.length : 0;
    const header = Buffer.alloc(512);
    header.write(entry.name, 0, 100);
    header.write('0000644\0', 100);
    header.write('0000000\0', 108);
    header.write('0000000\0', 116);
    header.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
    header.write('00000000000\0', 136);
    header.write('        ', 148);
    header.write(entry.symlinkTo === undefined ? '0' : '2', 156);
    if (entry.symlinkTo !== undefined) header.write(entry.symlinkTo, 157, 100);
    header.write('ustar\0', 257);
    header.write('00', 263);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    parts.push(header);
    if (size > 0) parts.push(data, Buffer.alloc((512 - (size % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'red team',
  GIT_AUTHOR_EMAIL: 'red@team.example',
  GIT_COMMITTER_NAME: 'red team',
  GIT_COMMITTER_EMAIL: 'red@team.example',
};

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, ...GIT_IDENTITY },
    stdio: 'ignore',
  });
}

export function makePlayground(): Playground {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'toolyard-redteam-')));
  const root = join(base, 'workspace');
  const outside = join(base, 'outside');
  const home = join(base, 'home');
  for (const dir of [root, outside, home, join(root, 'sub'), join(root, 'scripts'), join(root, 'test')])
    mkdirSync(dir, { recursive: true });
  const token = `tok-${Math.random().toString(36).slice(2)}-canary`;
  const canary = `env-${Math.random().toString(36).slice(2)}-canary`;
  const tokenFile = join(outside, 'token');
  const marker = (id: string) => join(outside, `pwned-${id}`);

  writeFileSync(tokenFile, `${token}\n`);
  writeFileSync(join(outside, 'secret.txt'), `${canary}\n`);
  writeFileSync(join(outside, 'evil.mk'), `all:\n\ttouch ${marker('evil-mk')}\n`);
  writeFileSync(
    join(outside, 'evil.js'),
    `require('fs').writeFileSync(${JSON.stringify(marker('evil-js'))}, '')\n`,
  );
  mkdirSync(join(outside, 'repo'));
  git(join(outside, 'repo'), 'init', '-q', '.');
  git(join(outside, 'repo'), 'commit', '-q', '--allow-empty', '-m', 'outside');

  const files: Record<string, string> = {
    README: 'red team workspace\n',
    f: 'a\nb\n',
    'app.js': "console.log('app ok');\n",
    'prog.awk': '{ print NR": "$0 }\n',
    Makefile: 'all:\n\t@echo all done\nprint-env:\n\t@env\n',
    'package.json': JSON.stringify({
      name: 'redteam',
      version: '1.0.0',
      scripts: { test: 'echo tests pass' },
    }),
    '.env': `NODE_OPTIONS=--require ${join(outside, 'evil.js')}\n`,
    // They print what they read after a prefix, so an empty environment shows as read (the parent of a confined
    // command is its reaper, forked from the spawner, which starts with none), or that the read was refused (the
    // reaper is not dumpable: only a ptrace-capable caller reads it, and the second wall's user namespace leaves a
    // call none, even when the server runs as root).
    'scripts/parent-environ.sh':
      'environ=$(tr "\\000" "\\n" < /proc/$PPID/environ 2>/dev/null) || environ="(refused)"\nprintf "parent-environ:%s\\n" "$environ"\n',
    'scripts/parent-environ.js':
      "const path = '/proc/' + process.ppid + '/environ';\nlet environ;\ntry {\n  environ = require('fs').readFileSync(path, 'utf8').split('\\0').join('\\n');\n} catch {\n  environ = '(refused)';\n}\nprocess.stdout.write('parent-environ:' + environ);\n",
    'scripts/read-token.sh': `cat ${tokenFile}\n`,
    'test/ok.test.js': "require('node:test')('ok', () => {});\n",
    'evil-hook': `#!/bin/sh\ntouch ${marker('hook')}\n`,
    'p.patch': [
      'diff --git a/../outside/pwned-patch b/../outside/pwned-patch',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/../outside/pwned-patch',
      '@@ -0,0 +1 @@',
      '+pwned',
      '',
    ].join('\n'),
  };
  for (const [name, content] of Object.entries(files)) writeFileSync(join(root, name), content);
  chmodSync(join(root, 'evil-hook'), 0o755);

  // Hostile archives: a member with `..`, a symlink out followed by a member through it, an absolute member.
  writeFileSync(join(root, 'dotdot.tar'), tarArchive([{ name: '../outside/pwned-dotdot', data: 'x' }]));
  writeFileSync(
    join(root, 'symlink.tar'),
    tarArchive([
      { name: 'link', symlinkTo: outside },
      { name: 'link/pwned-symlink', data: 'x' },
    ]),
  );
  writeFileSync(
    join(root, 'absolute.tar'),
    tarArchive([{ name: join(outside, 'pwned-absolute'), data: 'x' }]),
  );
  writeFileSync(join(root, 'through.tar'), tarArchive([{ name: 'escape/pwned-through', data: 'x' }]));

  git(root, 'init', '-q', '.');
  git(root, 'add', 'README', 'f', 'app.js', 'Makefile', 'package.json');
  git(root, 'commit', '-q', '-m', 'initial');
  // A copy of the repository's config with an fsmonitor hook that leaves a mark: planting it is one `cp`.
  writeFileSync(
    join(root, 'evil-gitconfig'),
    `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = touch ${marker('fsmonitor')}\n`,
  );

  // Links that lead out of the workspace.
  symlinkSync(outside, join(root, 'escape'));
  symlinkSync(join(outside, 'via-dangling'), join(root, 'dangling'));

  return {
    base,
    root,
    outside,
    home,
    token,
    tokenFile,
    canary,
    marker,
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

export { GIT_IDENTITY };
