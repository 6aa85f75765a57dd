/**
 * What one call plants in HOME for the next (issue 18: HOME was shared by every call): user-level configuration
 * of git, npm, pip, cargo, go, python and make, and shell profiles. Two calls each: `sh plant.sh`, then the
 * everyday command that obeys the planted file. A confined server gives every call a fresh HOME and pins the
 * tools' user configuration (docs/confinement.md).
 */
import { MARKED, numbered, OUT, type RedCase } from './case.ts';

/** A plant script writing `content` to `$HOME/<path>`. */
const plant = (path: string, content: string) => ({
  'plant.sh': `mkdir -p "$HOME/$(dirname '${path}')"\ncat > "$HOME/${path}" <<'EOF'\n${content}EOF\n`,
});
const crate = {
  'Cargo.toml': '[package]\nname = "persist"\nversion = "0.1.0"\nedition = "2021"\n',
  'src/main.rs': 'fn main() {}\n',
};
const EVIL = { 'evil.sh': { script: '#!/bin/sh\ntouch @MARK@\nexit 1\n' } };

export const PERSISTENCE: readonly RedCase[] = numbered('P', 'persistence', [
  {
    what: '~/.gitconfig gpg.program + commit.gpgSign, then git commit',
    argv: ['sh', 'plant.sh'],
    files: {
      ...plant('.gitconfig', '[gpg]\n\tprogram = @CASE@/evil.sh\n[commit]\n\tgpgSign = true\n'),
      ...EVIL,
    },
    repo: true,
    next: ['git', 'commit', '-q', '--allow-empty', '-m', 'x'],
    effect: MARKED,
  },
  {
    what: '~/.config/git/config (XDG) gpg.program, then git commit',
    argv: ['sh', 'plant.sh'],
    files: {
      ...plant('.config/git/config', '[gpg]\n\tprogram = @CASE@/evil.sh\n[commit]\n\tgpgSign = true\n'),
      ...EVIL,
    },
    repo: true,
    next: ['git', 'commit', '-q', '--allow-empty', '-m', 'x'],
    effect: MARKED,
  },
  {
    what: '~/.gitconfig core.sshCommand, then git fetch',
    argv: ['sh', 'plant.sh'],
    files: plant('.gitconfig', '[core]\n\tsshCommand = touch @MARK@; false\n'),
    repo: true,
    next: ['git', 'fetch', 'ssh://example.invalid/x'],
    effect: MARKED,
  },
  {
    what: '~/.npmrc script-shell, then npm test',
    argv: ['sh', 'plant.sh'],
    files: {
      ...plant('.npmrc', 'script-shell=@CASE@/evil.sh\n'),
      ...EVIL,
      'package.json': '{"name":"x","version":"1.0.0","scripts":{"test":"echo ok"}}\n',
    },
    next: ['npm', 'test'],
    effect: MARKED,
  },
  {
    what: '~/.npmrc logs-dir outside, then npm test',
    argv: ['sh', 'plant.sh'],
    files: {
      ...plant('.npmrc', 'logs-dir=@OUT@/npmlogs-@ID@\n'),
      'package.json': '{"name":"x","version":"1.0.0","scripts":{"test":"echo ok"}}\n',
    },
    next: ['npm', 'test'],
    effect: OUT('@OUT@/npmlogs-@ID@'),
  },
  {
    what: '~/.config/pip/pip.conf log= outside, then pip list',
    argv: ['sh', 'plant.sh'],
    files: plant('.config/pip/pip.conf', '[global]\nlog = @MARK@\n'),
    next: ['pip', 'list'],
    effect: MARKED,
  },
  {
    what: '~/.pip/pip.conf (legacy) log= outside, then pip list',
    argv: ['sh', 'plant.sh'],
    files: plant('.pip/pip.conf', '[global]\nlog = @MARK@\n'),
    next: ['pip', 'list'],
    effect: MARKED,
  },
  {
    what: '~/.cargo/config.toml rustc-wrapper, then cargo build',
    argv: ['sh', 'plant.sh'],
    files: {
      ...plant('.cargo/config.toml', '[build]\nrustc-wrapper = "@CASE@/evil.sh"\n'),
      ...EVIL,
      ...crate,
    },
    next: ['cargo', 'build', '-q'],
    effect: MARKED,
  },
  {
    what: 'python user site usercustomize.py, then python3 main.py',
    argv: ['sh', 'plant.sh'],
    files: {
      ...plant('.local/lib/python3.11/site-packages/usercustomize.py', 'open("@MARK@", "w").close()\n'),
      'main.py': 'print("main")\n',
    },
    next: ['python3', 'main.py'],
    effect: MARKED,
  },
  {
    what: '~/.config/go/env GOFLAGS=-toolexec, then go build',
    argv: ['sh', 'plant.sh'],
    files: {
      ...plant('.config/go/env', 'GOFLAGS=-toolexec=@CASE@/evil.sh\n'),
      ...EVIL,
      'go.mod': 'module example.com/persist\n\ngo 1.19\n',
      'main.go': 'package main\n\nfunc main() {}\n',
    },
    next: ['go', 'build', '-o', 'bin', '.'],
    effect: MARKED,
  },
  {
    what: 'a Makefile that includes ~/evil.mk (make expands ~), planted by the call before',
    argv: ['sh', 'plant.sh'],
    files: {
      ...plant('evil.mk', '$(shell touch @MARK@)\n'),
      Makefile: '-include ~/evil.mk\nall:\n\t@true\n',
    },
    next: ['make', '-s'],
    effect: MARKED,
  },
  {
    what: '~/.profile, then a login shell (sh -l)',
    argv: ['sh', 'plant.sh'],
    files: { ...plant('.profile', 'touch @MARK@\n'), 'hello.sh': 'echo hello\n' },
    next: ['sh', '-l', 'hello.sh'],
    effect: MARKED,
  },
  {
    what: '~/.bash_profile, then bash --login',
    argv: ['sh', 'plant.sh'],
    files: { ...plant('.bash_profile', 'touch @MARK@\n'), 'hello.sh': 'echo hello\n' },
    next: ['bash', '--login', 'hello.sh'],
    effect: MARKED,
  },
]);
