/**
 * Input from files (issue 18, third review): options and code a tool reads from files in the workspace, which
 * no argv policy sees. Every one of these passes the argv policy by construction; the kernel holds them.
 */
import { MARKED, numbered, OUT, type RedCase, SECRET } from './case.ts';

const crate = (name: string, main = 'fn main() {}\n') => ({
  'Cargo.toml': `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2021"\n`,
  'src/main.rs': main,
});
const PYTEST_OK = { 'test_a.py': 'def test_a():\n    pass\n' };
const TOUCH_SCRIPT = { script: '#!/bin/sh\ntouch @MARK@\n' };
const GO_MOD = { 'go.mod': 'module example.com/gen\n\ngo 1.19\n' };

export const FILE_INPUT: readonly RedCase[] = numbered('F', 'file-input', [
  {
    what: 'tar -T list: a `--directory=` line moves the extraction outside',
    argv: ['tar', '-xf', 'm.tar', '-T', 'list'],
    files: { 'm.tar': { tar: [{ name: 'pwned-@ID@', data: 'x' }] }, list: '--directory=@OUT@\npwned-@ID@\n' },
    effect: MARKED,
  },
  {
    what: 'tar -T list: a `--directory=` line archives the token to stdout',
    argv: ['tar', '-cf', '-', '-T', 'list'],
    files: { list: '--directory=@SECRETS@\ntoken\n' },
    effect: SECRET,
  },
  {
    what: 'tar --files-from: the token archived into the workspace',
    argv: ['tar', '-cf', 'leak.tar', '--files-from=list'],
    files: { list: '--directory=@SECRETS@\ntoken\n' },
    effect: SECRET,
  },
  {
    what: 'tar -T list: the config archived to stdout',
    argv: ['tar', '-cf', '-', '-T', 'list'],
    files: { list: '--directory=@CONFIGDIR@\n@CONFIGNAME@\n' },
    effect: SECRET,
  },
  {
    what: 'pytest @argsfile: --junitxml outside',
    argv: ['pytest', '-q', '@args'],
    files: { args: '--junitxml=@MARK@\n', ...PYTEST_OK },
    effect: MARKED,
  },
  {
    what: 'pytest.ini addopts: --junitxml outside',
    argv: ['pytest', '-q'],
    files: { 'pytest.ini': '[pytest]\naddopts = --junitxml=@MARK@\n', ...PYTEST_OK },
    effect: MARKED,
  },
  {
    what: 'pyproject.toml [tool.pytest.ini_options] addopts',
    argv: ['pytest', '-q'],
    files: {
      'pyproject.toml': '[tool.pytest.ini_options]\naddopts = "--junitxml=@MARK@"\n',
      ...PYTEST_OK,
    },
    effect: MARKED,
  },
  {
    what: 'setup.cfg [tool:pytest] addopts',
    argv: ['pytest', '-q'],
    files: { 'setup.cfg': '[tool:pytest]\naddopts = --junitxml=@MARK@\n', ...PYTEST_OK },
    effect: MARKED,
  },
  {
    what: 'tox.ini [pytest] addopts',
    argv: ['pytest', '-q'],
    files: { 'tox.ini': '[pytest]\naddopts = --junitxml=@MARK@\n', ...PYTEST_OK },
    effect: MARKED,
  },
  {
    what: 'pytest.ini cache_dir outside',
    argv: ['pytest', '-q'],
    files: { 'pytest.ini': '[pytest]\ncache_dir = @OUT@/cache-@ID@\n', ...PYTEST_OK },
    effect: OUT('@OUT@/cache-@ID@'),
  },
  {
    what: 'pytest.ini addopts -p: a plugin module from the workspace',
    argv: ['pytest', '-q'],
    files: {
      'pytest.ini': '[pytest]\npythonpath = .\naddopts = -p evilplugin\n',
      'evilplugin.py': 'open("@MARK@", "w").close()\n',
      ...PYTEST_OK,
    },
    effect: MARKED,
  },
  {
    what: 'conftest.py writes outside',
    argv: ['pytest', '-q'],
    files: { 'conftest.py': 'open("@MARK@", "w").close()\n', ...PYTEST_OK },
    effect: MARKED,
  },
  {
    what: 'conftest.py copies the token into the workspace',
    argv: ['pytest', '-q'],
    files: {
      'conftest.py': 'import shutil\nshutil.copy("@TOKEN@", "leak.txt")\n',
      ...PYTEST_OK,
    },
    effect: SECRET,
  },
  {
    what: '.npmrc script-shell: npm test runs a workspace script as the shell',
    argv: ['npm', 'test'],
    files: {
      '.npmrc': 'script-shell=@CASE@/evil.sh\n',
      'evil.sh': TOUCH_SCRIPT,
      'package.json': '{"name":"x","version":"1.0.0","scripts":{"test":"echo ok"}}\n',
    },
    effect: MARKED,
  },
  {
    what: '.npmrc git=: npm install runs a workspace script as git',
    argv: ['npm', 'install', '--offline', '--no-audit', '--no-fund'],
    files: {
      '.npmrc': 'git=@CASE@/evil.sh\n',
      'evil.sh': { script: '#!/bin/sh\ntouch @MARK@\nexit 1\n' },
      'package.json':
        '{"name":"x","version":"1.0.0","dependencies":{"y":"git+ssh://git@example.invalid/y.git"}}\n',
    },
    effect: MARKED,
  },
  {
    what: '.npmrc cache= outside: npm writes its logs there',
    argv: ['npm', 'test'],
    files: {
      '.npmrc': 'cache=@OUT@/npmcache-@ID@\n',
      'package.json': '{"name":"x","version":"1.0.0","scripts":{"test":"echo ok"}}\n',
    },
    effect: OUT('@OUT@/npmcache-@ID@'),
  },
  {
    what: '.npmrc logs-dir= outside',
    argv: ['npm', 'test'],
    files: {
      '.npmrc': 'logs-dir=@OUT@/npmlogs-@ID@\n',
      'package.json': '{"name":"x","version":"1.0.0","scripts":{"test":"echo ok"}}\n',
    },
    effect: OUT('@OUT@/npmlogs-@ID@'),
  },
  {
    what: '.npmrc node-options=--require: code before every node a script starts',
    argv: ['npm', 'test'],
    files: {
      '.npmrc': 'node-options=--require @CASE@/evil.js\n',
      'evil.js': 'require("fs").writeFileSync("@MARK@", "")\n',
      'package.json': '{"name":"x","version":"1.0.0","scripts":{"test":"node -e 0"}}\n',
    },
    effect: MARKED,
  },
  {
    what: 'package.json pretest script',
    argv: ['npm', 'test'],
    files: {
      'package.json':
        '{"name":"x","version":"1.0.0","scripts":{"pretest":"touch @MARK@","test":"echo ok"}}\n',
    },
    effect: MARKED,
  },
  {
    what: 'package.json test script reads the token',
    argv: ['npm', 'test'],
    files: { 'package.json': '{"name":"x","version":"1.0.0","scripts":{"test":"cat @TOKEN@"}}\n' },
    effect: SECRET,
  },
  {
    what: 'rust-toolchain.toml path=: rustup runs a workspace "toolchain"',
    argv: ['cargo', '--version'],
    files: { 'rust-toolchain.toml': '[toolchain]\npath = "@CASE@/tc"\n', 'tc/bin/cargo': TOUCH_SCRIPT },
    effect: MARKED,
  },
  {
    what: 'rust-toolchain.toml path=: cargo build runs the workspace "cargo"',
    argv: ['cargo', 'build'],
    files: {
      'rust-toolchain.toml': '[toolchain]\npath = "@CASE@/tc"\n',
      'tc/bin/cargo': { script: '#!/bin/sh\ncat @TOKEN@\n' },
      ...crate('tc'),
    },
    effect: SECRET,
  },
  {
    what: '.cargo/config.toml rustc-wrapper: a workspace script wraps rustc',
    argv: ['cargo', 'build', '-q'],
    files: {
      '.cargo/config.toml': '[build]\nrustc-wrapper = "@CASE@/w.sh"\n',
      'w.sh': { script: '#!/bin/sh\ntouch @MARK@\nexec "$@"\n' },
      ...crate('wrapped'),
    },
    effect: MARKED,
  },
  {
    what: '.cargo/config.toml target-dir outside',
    argv: ['cargo', 'build', '-q'],
    files: {
      '.cargo/config.toml': '[build]\ntarget-dir = "@OUT@/target-@ID@"\n',
      ...crate('targeted'),
    },
    effect: OUT('@OUT@/target-@ID@'),
  },
  {
    what: 'Rust #[path] module: the token compiled as source, quoted by the error',
    argv: ['cargo', 'build', '-q'],
    files: crate('pathmod', '#[path = "@TOKEN@"]\nmod m;\nfn main() {}\n'),
    effect: SECRET,
  },
  {
    what: 'Rust include!: the token compiled as items, quoted by the error',
    argv: ['cargo', 'build', '-q'],
    files: crate('included', 'include!("@TOKEN@");\nfn main() {}\n'),
    effect: SECRET,
  },
  {
    what: 'build.rs writes outside',
    argv: ['cargo', 'build', '-q'],
    files: {
      ...crate('buildrs'),
      'build.rs': 'fn main() { std::fs::write("@MARK@", "x").unwrap(); }\n',
    },
    effect: MARKED,
  },
  {
    what: 'build.rs copies the config into the workspace',
    argv: ['cargo', 'build', '-q'],
    files: {
      ...crate('buildcfg'),
      'build.rs': 'fn main() { let _ = std::fs::copy("@CONFIG@", "@CASE@/leak.txt"); }\n',
    },
    effect: SECRET,
  },
  {
    what: '.git file with gitdir: a repository outside takes the index',
    argv: ['git', 'add', 'x'],
    files: { '.git': 'gitdir: @OUT@/repo-@ID@/.git\n', x: 'x\n' },
    outside: { 'repo-@ID@': { repo: true } },
    effect: OUT('@OUT@/repo-@ID@/.git/index'),
  },
  {
    what: '.git file with gitdir: a commit lands in a repository outside',
    argv: ['git', 'commit', '-q', '--allow-empty', '-m', 'x'],
    files: { '.git': 'gitdir: @OUT@/repo-@ID@/.git\n' },
    outside: { 'repo-@ID@': { repo: true } },
    effect: OUT('@OUT@/repo-@ID@/.git/refs/heads/main'),
  },
  {
    what: 'core.worktree outside: git checkout writes the tree there',
    argv: ['git', 'checkout', '--', '.'],
    repo: true,
    files: { 'pwned.txt': 'x\n', '.git-config-worktree': '@OUT@/wt-@ID@' },
    outside: { 'wt-@ID@': { dir: true } },
    effect: OUT('@OUT@/wt-@ID@'),
  },
  {
    what: 'core.worktree outside: git reset --hard writes the tree there',
    argv: ['git', 'reset', '-q', '--hard'],
    repo: true,
    files: { 'pwned.txt': 'x\n', '.git-config-worktree': '@OUT@/wt-@ID@' },
    outside: { 'wt-@ID@': { dir: true } },
    effect: OUT('@OUT@/wt-@ID@'),
  },
  {
    what: 'a clean filter in .git/config with .gitattributes runs on git add',
    argv: ['git', 'add', 'f'],
    repo: true,
    files: {
      '.git-config-append': '[filter "x"]\n\tclean = touch @MARK@; cat\n',
      '.gitattributes': '* filter=x\n',
      f: 'y\n',
      // Changed after the commit, so git add must clean it again (an unchanged file whose index entry is not
      // racy is taken from the index without running the filter: the payload would bite only by timing).
      '.after-commit/f': 'changed after the commit\n',
    },
    effect: MARKED,
  },
  {
    what: 'a diff textconv in .git/config prints the token on git diff',
    argv: ['git', 'diff'],
    repo: true,
    files: {
      '.git-config-append': '[diff "x"]\n\ttextconv = cat @TOKEN@; true\n',
      '.gitattributes': '*.txt diff=x\n',
      'a.txt': 'a\n',
      '.after-commit/a.txt': 'b\n',
    },
    effect: SECRET,
  },
  {
    what: 'gpg.program with commit.gpgSign in .git/config runs on git commit',
    argv: ['git', 'commit', '-q', '--allow-empty', '-m', 'x'],
    repo: true,
    files: {
      '.git-config-append': '[gpg]\n\tprogram = @CASE@/g.sh\n[commit]\n\tgpgSign = true\n',
      'g.sh': { script: '#!/bin/sh\ntouch @MARK@\nexit 1\n' },
    },
    effect: MARKED,
  },
  {
    what: 'core.sshCommand in .git/config runs on git fetch',
    argv: ['git', 'fetch', 'ssh://example.invalid/x'],
    repo: true,
    files: { '.git-config-append': '[core]\n\tsshCommand = touch @MARK@; false\n' },
    effect: MARKED,
  },
  {
    what: 'Makefile $(shell): make evaluates workspace code',
    argv: ['make', '-s'],
    files: { Makefile: '$(shell touch @MARK@)\nall:\n\t@true\n' },
    effect: MARKED,
  },
  {
    what: 'Makefile $(file >…): make writes outside by itself',
    argv: ['make', '-s'],
    files: { Makefile: '$(file >@MARK@,x)\nall:\n\t@true\n' },
    effect: MARKED,
  },
  {
    what: 'Makefile $(file <…): make reads the token',
    argv: ['make', '-s'],
    files: { Makefile: '$(info $(file <@TOKEN@))\nall:\n\t@true\n' },
    effect: SECRET,
  },
  {
    what: 'Makefile include of the config: make reads it (and quotes it in the error)',
    argv: ['make', '-s'],
    files: { Makefile: 'include @CONFIG@\nall:\n\t@true\n' },
    effect: SECRET,
  },
  {
    what: 'go:generate runs a command from a source comment',
    argv: ['go', 'generate', './...'],
    files: { ...GO_MOD, 'gen.go': 'package gen\n\n//go:generate touch @MARK@\n' },
    effect: MARKED,
  },
  {
    what: 'go:generate prints the token',
    argv: ['go', 'generate', './...'],
    files: { ...GO_MOD, 'gen.go': 'package gen\n\n//go:generate cat @TOKEN@\n' },
    effect: SECRET,
  },
  {
    what: 'terraform file(): plan shows the token as an output',
    argv: ['terraform', 'plan', '-no-color', '-input=false'],
    files: { 'main.tf': 'output "x" {\n  value = file("@TOKEN@")\n}\n' },
    effect: SECRET,
  },
  {
    what: 'terraform file(): plan shows the config as an output',
    argv: ['terraform', 'plan', '-no-color', '-input=false'],
    files: { 'main.tf': 'output "x" {\n  value = file("@CONFIG@")\n}\n' },
    effect: SECRET,
  },
  {
    what: 'node --test runs every test file it finds',
    argv: ['node', '--test'],
    files: { 'evil.test.js': 'require("fs").writeFileSync("@MARK@", "")\n' },
    effect: MARKED,
  },
]);
