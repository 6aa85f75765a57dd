/**
 * Symlinks the workspace already holds (a checkout, an archive or an earlier call put them there), followed by
 * recursive tools, by git, and by tools that pick their own output paths. The argv policy resolves the paths it
 * is given; it cannot see what a tool finds while it walks.
 */
import { MARKED, numbered, OUT, type RedCase, SECRET } from './case.ts';

const PYTEST_OK = { 'test_a.py': 'def test_a():\n    pass\n' };

export const SYMLINKS: readonly RedCase[] = numbered('L', 'workspace-symlink', [
  {
    what: 'gzip -rf follows a symlinked directory and compresses a file outside',
    argv: ['gzip', '-rf', 'd'],
    files: { 'd/keep': 'x\n' },
    links: { 'd/link': '@OUT@/gz-@ID@' },
    outside: { 'gz-@ID@/victim': 'victim\n' },
    effect: OUT('@OUT@/gz-@ID@'),
  },
  {
    what: 'cp -r writes through a symlink already at the destination',
    argv: ['cp', '-r', 's/.', 'd/'],
    files: { 's/f': 'new\n', 'd/keep': 'x\n' },
    links: { 'd/f': '@OUT@/victim-@ID@' },
    outside: { 'victim-@ID@': 'old\n' },
    effect: OUT('@OUT@/victim-@ID@'),
  },
  {
    what: 'cp -r of a single file into a directory holding a symlink of that name',
    argv: ['cp', '-r', 's/f', 'd/'],
    files: { 's/f': 'new\n', 'd/keep': 'x\n' },
    links: { 'd/f': '@OUT@/victim-@ID@' },
    outside: { 'victim-@ID@': 'old\n' },
    effect: OUT('@OUT@/victim-@ID@'),
  },
  {
    what: 'diff -r follows a symlinked directory into the secrets and prints the token',
    argv: ['diff', '-r', 'a', 'b'],
    files: { 'a/s/token': 'different\n' },
    links: { 'b/s': '@SECRETS@' },
    effect: SECRET,
  },
  {
    what: 'diff -r follows a symlinked directory into the server config',
    argv: ['diff', '-r', 'a', 'b'],
    files: { 'a/s/@CONFIGNAME@': 'different\n' },
    links: { 'b/s': '@CONFIGDIR@' },
    effect: SECRET,
  },
  {
    what: 'find -L -delete deletes through a symlinked directory',
    argv: ['find', '-L', 'fl', '-name', 'victim', '-delete'],
    files: { 'fl/keep': 'x\n' },
    links: { 'fl/l': '@OUT@/fl-@ID@' },
    outside: { 'fl-@ID@/victim': 'victim\n' },
    effect: OUT('@OUT@/fl-@ID@'),
  },
  {
    what: 'find -L prints what lies behind a symlink into the secrets',
    argv: ['find', '-L', '.', '-name', 'token'],
    files: { keep: 'x\n' },
    links: { s: '@SECRETS@' },
    effect: { proof: 's/token' },
  },
  {
    what: 'git push to a bare word that is a workspace symlink to a repository outside',
    argv: ['git', 'push', '-q', 'escape', 'HEAD:refs/heads/pwned'],
    repo: true,
    links: { escape: '@OUT@/repo-@ID@' },
    outside: { 'repo-@ID@': { repo: true } },
    effect: OUT('@OUT@/repo-@ID@/.git/refs/heads/pwned'),
  },
  {
    what: 'a .git that is a symlink to a repository outside: git add writes its index',
    argv: ['git', 'add', 'x'],
    files: { x: 'x\n' },
    links: { '.git': '@OUT@/repo-@ID@/.git' },
    outside: { 'repo-@ID@': { repo: true } },
    effect: OUT('@OUT@/repo-@ID@/.git/index'),
  },
  {
    what: '.git/objects a symlink outside: git add writes objects there',
    argv: ['git', 'add', 'x'],
    repo: true,
    files: { '.after-commit/x': 'new content\n' },
    links: { '.git/objects': '@OUT@/objects-@ID@' },
    outside: { 'objects-@ID@': { dir: true } },
    effect: OUT('@OUT@/objects-@ID@'),
  },
  {
    what: '.pytest_cache a symlink outside: pytest writes its cache there',
    argv: ['pytest', '-q'],
    files: PYTEST_OK,
    links: { '.pytest_cache': '@OUT@/pc-@ID@' },
    outside: { 'pc-@ID@': { dir: true } },
    effect: OUT('@OUT@/pc-@ID@'),
  },
  {
    what: '__pycache__ a symlink outside: python writes bytecode there',
    argv: ['python3', 'main.py'],
    files: { 'main.py': 'import mod\n', 'mod.py': 'X = 1\n' },
    links: { __pycache__: '@OUT@/pyc-@ID@' },
    outside: { 'pyc-@ID@': { dir: true } },
    effect: OUT('@OUT@/pyc-@ID@'),
  },
  {
    what: 'target a symlink outside: cargo build writes there',
    argv: ['cargo', 'build', '-q'],
    files: {
      'Cargo.toml': '[package]\nname = "linked"\nversion = "0.1.0"\nedition = "2021"\n',
      'src/main.rs': 'fn main() {}\n',
    },
    links: { target: '@OUT@/target-@ID@' },
    outside: { 'target-@ID@': { dir: true } },
    effect: OUT('@OUT@/target-@ID@'),
  },
  {
    what: 'npm pack writes its tarball through a symlink of that name',
    argv: ['npm', 'pack', '--silent'],
    files: { 'package.json': '{"name":"packed","version":"1.0.0"}\n' },
    links: { 'packed-1.0.0.tgz': '@OUT@/victim-@ID@' },
    outside: { 'victim-@ID@': 'old\n' },
    effect: OUT('@OUT@/victim-@ID@'),
  },
  {
    what: 'tar extracts a member below a symlinked directory the workspace holds',
    argv: ['tar', '-xf', 'm.tar'],
    files: { 'm.tar': { tar: [{ name: 'out/pwned-@ID@', data: 'x' }] } },
    links: { out: '@OUT@' },
    effect: MARKED,
  },
  {
    what: 'python3 -m venv into a symlink outside',
    argv: ['python3', '-m', 'venv', '--without-pip', 'venv/env'],
    links: { venv: '@OUT@/venv-@ID@' },
    outside: { 'venv-@ID@': { dir: true } },
    effect: OUT('@OUT@/venv-@ID@'),
  },
  {
    what: 'sed -i --follow-symlinks edits the file behind a symlink',
    argv: ['sed', '--sandbox', '-i', '--follow-symlinks', 's/old/new/', 'v'],
    links: { v: '@OUT@/victim-@ID@' },
    outside: { 'victim-@ID@': 'old\n' },
    effect: OUT('@OUT@/victim-@ID@'),
  },
]);
