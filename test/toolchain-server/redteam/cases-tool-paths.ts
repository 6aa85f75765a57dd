/**
 * Paths a tool interprets itself, and option order: `~` and `$HOME` expanded by pytest, npm and pip (HOME is
 * outside the roots, and shared between calls of an unconfined server); git's `file://localhost/` and `%2e%2e`;
 * GNU sed compiling an `-e` script before a later `--sandbox`. None plants a file: the argv policy alone must hold
 * each of them, and does since this issue (toolchain-server/src/policy: ~ and $ in path values, git file URLs, sed
 * --sandbox first).
 */
import { MARKED, numbered, OUT, type RedCase, SECRET } from './case.ts';

/** `${HOME}`, spelled without a template literal. */
const BRACED_HOME = ['$', '{HOME}'].join('');

export const TOOL_PATHS: readonly RedCase[] = numbered('T', 'tool-paths', [
  {
    what: "sed -e '1e cmd' --sandbox: the script compiled before the sandbox",
    argv: ['sed', '-e', '1e touch @MARK@', '--sandbox', 'f'],
    atRoot: true,
    effect: MARKED,
  },
  {
    what: 'sed --expression=… --sandbox with `e`',
    argv: ['sed', '--expression=1e touch @MARK@', '--sandbox', 'f'],
    atRoot: true,
    effect: MARKED,
  },
  {
    what: 'sed -e with `w` before --sandbox',
    argv: ['sed', '-n', '-e', '1w @MARK@', '--sandbox', 'f'],
    atRoot: true,
    effect: MARKED,
  },
  {
    what: 'sed -e with `r` before --sandbox reads the token',
    argv: ['sed', '-e', '1r @TOKEN@', '--sandbox', 'f'],
    atRoot: true,
    effect: SECRET,
  },
  {
    what: 'sed -s -e with `e` before --sandbox',
    argv: ['sed', '-s', '-e', 'e touch @MARK@', '--sandbox', 'f'],
    atRoot: true,
    effect: MARKED,
  },
  {
    what: 'sed -E -n -e with `W` before --sandbox',
    argv: ['sed', '-E', '-n', '-e', '1W @MARK@', '--sandbox', 'f'],
    atRoot: true,
    effect: MARKED,
  },
  {
    what: 'sed -f a script file with `e`, then --sandbox',
    argv: ['sed', '-f', 'prog.sed', '--sandbox', 'f'],
    files: { 'prog.sed': '1e touch @MARK@\n', f: 'a\n' },
    effect: MARKED,
  },
  {
    what: 'pytest --junitxml=~/…: pytest expands ~ to HOME',
    argv: ['pytest', '-q', '--junitxml=~/pwned-@ID@', 'test_ok.py'],
    atRoot: true,
    effect: OUT('@HOME@/pwned-@ID@'),
  },
  {
    what: 'pytest --junitxml=$HOME/…: pytest expands variables',
    argv: ['pytest', '-q', '--junitxml=$HOME/pwned-@ID@', 'test_ok.py'],
    atRoot: true,
    effect: OUT('@HOME@/pwned-@ID@'),
  },
  {
    what: 'pytest --junit-xml with a braced HOME variable',
    argv: ['pytest', '-q', '--junit-xml', `${BRACED_HOME}/pwned-@ID@`, 'test_ok.py'],
    atRoot: true,
    effect: OUT('@HOME@/pwned-@ID@'),
  },
  {
    what: 'npm --cache=~/…: npm expands ~ and writes its logs there',
    argv: ['npm', '--cache=~/npmcache-@ID@', 'test'],
    atRoot: true,
    effect: OUT('@HOME@/npmcache-@ID@'),
  },
  {
    what: 'npm test --cache ~/… (option after the subcommand)',
    argv: ['npm', 'test', '--cache', '~/npmcache-@ID@'],
    atRoot: true,
    effect: OUT('@HOME@/npmcache-@ID@'),
  },
  {
    what: 'pip --log ~/…: pip expands ~',
    argv: ['pip', '--log', '~/piplog-@ID@', 'list'],
    atRoot: true,
    effect: OUT('@HOME@/piplog-@ID@'),
  },
  {
    what: 'git push file://localhost/…: the host dropped, the path outside',
    argv: ['git', 'push', '-q', 'file://localhost@OUT@/repo-@ID@', 'HEAD:refs/heads/pwned'],
    atRoot: true,
    outside: { 'repo-@ID@': { repo: true } },
    effect: OUT('@OUT@/repo-@ID@/.git/refs/heads/pwned'),
  },
  {
    what: 'git push file://LOCALHOST/… (case)',
    argv: ['git', 'push', '-q', 'file://LOCALHOST@OUT@/repo-@ID@', 'HEAD:refs/heads/pwned'],
    atRoot: true,
    outside: { 'repo-@ID@': { repo: true } },
    effect: OUT('@OUT@/repo-@ID@/.git/refs/heads/pwned'),
  },
  {
    what: 'git push file://@ROOT@/%2e%2e/…: git decodes %2e%2e to ..',
    argv: ['git', 'push', '-q', 'file://@ROOT@/%2e%2e/outside/repo-@ID@', 'HEAD:refs/heads/pwned'],
    atRoot: true,
    outside: { 'repo-@ID@': { repo: true } },
    effect: OUT('@OUT@/repo-@ID@/.git/refs/heads/pwned'),
  },
  {
    what: 'git push with %2E%2E and a mixed .%2e',
    argv: ['git', 'push', '-q', 'file://@ROOT@/.%2E/outside/repo-@ID@', 'HEAD:refs/heads/pwned'],
    atRoot: true,
    outside: { 'repo-@ID@': { repo: true } },
    effect: OUT('@OUT@/repo-@ID@/.git/refs/heads/pwned'),
  },
  {
    what: 'git push ../… from a subdirectory: git resolves it from the worktree top, not the cwd',
    argv: ['git', 'push', '-q', '../outside/repo-@ID@', 'HEAD:refs/heads/pwned'],
    inSub: true,
    outside: { 'repo-@ID@': { repo: true } },
    effect: OUT('@OUT@/repo-@ID@/.git/refs/heads/pwned'),
  },
  {
    what: 'git push ./../… from a subdirectory, forced',
    argv: ['git', 'push', '-q', '--force', './../outside/repo-@ID@', 'HEAD:refs/heads/pwned'],
    inSub: true,
    outside: { 'repo-@ID@': { repo: true } },
    effect: OUT('@OUT@/repo-@ID@/.git/refs/heads/pwned'),
  },
]);
