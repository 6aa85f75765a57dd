/**
 * The README's install story, for real: a `git clone` of the current commit, the README's set-up line run
 * literally (a real `npm install`, npm itself on the pinned Node), its first render, the quick start's commands
 * and the Install section's `npm pack` — each must exit 0 and print no warning. The npm registry is not reachable from tests: npm runs
 * offline (`npm_config_offline`, the user's configuration, not the command), from the cache that `.ci/run`'s own
 * run of the same set-up line fills.
 *
 * One line may appear that is not ours: this machine's global npmrc sets `nodedir`, which npm 11 no longer
 * knows and warns about on every run (as "user config", and as "env config" in the npm that npx starts). Those
 * exact lines are set aside; any other warning fails.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pinnedNodeVersion } from '../../release/src/node-runtime.ts';
import { REPO_ROOT } from '../support/golden.ts';
import { documentedCommands, NOT_RUN_HERE, userEnv } from './documented-commands.ts';

const MACHINE_LINES = new Set(
  ['user', 'env'].map(
    (where) =>
      `npm warn Unknown ${where} config "nodedir". This will stop working in the next major version of npm. See \`npm help npmrc\` for supported config options.`,
  ),
);

/** Lines that warn, but for the machine's own npmrc. */
function warnings(output: string): string[] {
  return (
    output
      .split('\n')
      // npm's notices list the tarball's files, whose names may contain the word (warnings.js).
      .filter((line) => !line.startsWith('npm notice'))
      .filter((line) => /\bwarn(ing)?\b|EBADENGINE/i.test(line) && !MACHINE_LINES.has(line.trim()))
  );
}

const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;
const commands = documentedCommands(REPO_ROOT).filter((c) => c.source.startsWith('README.md:'));
/** The README's first block: set up, render (its `bash .ci/run` is CI itself). */
const firstHeading = readme.slice(0, readme.indexOf('\n## ')).split('\n').length;
const firstBlock = commands
  .filter((c) => Number(c.source.split(':')[1]) < firstHeading)
  .filter((c) => c.command !== 'bash .ci/run');
const SET_UP = `npx --yes --package=node@${pinnedNodeVersion(REPO_ROOT)} -- npm install`;

describe('the README install, on a fresh clone', { timeout: 900_000 }, () => {
  let clone = '';
  before(() => {
    clone = mkdtempSync(join(tmpdir(), 'toolyard-install-'));
    execFileSync('git', ['clone', '--quiet', '--no-hardlinks', REPO_ROOT, clone], { stdio: 'ignore' });
  });
  after(() => {
    if (clone) rmSync(clone, { recursive: true, force: true });
  });

  function run(command: string) {
    const result = spawnSync('bash', ['-c', command], {
      cwd: clone,
      env: { ...userEnv(), npm_config_offline: 'true' },
      encoding: 'utf8',
      timeout: 600_000,
    });
    const output = `${result.stdout}${result.stderr}`;
    assert.equal(result.error, undefined, `${command}: ${result.error?.message}`);
    assert.equal(result.status, 0, `\`${command}\` exited ${result.status}:\n${output}`);
    assert.deepEqual(warnings(output), [], `\`${command}\` warns:\n${output}`);
    return output;
  }

  it('the README starts with the set-up line, on the Node package-lock.json pins, as .ci/run does', () => {
    assert.equal(firstBlock[0]?.command, SET_UP);
    assert.ok(firstBlock.length >= 2, JSON.stringify(firstBlock));
    // CI sets up the same way, which also leaves in the npm cache what this test installs offline.
    assert.match(
      readFileSync(join(REPO_ROOT, '.ci/run'), 'utf8'),
      new RegExp(`^${SET_UP.replace(/[.+?^$()|[\]\\]/g, '\\$&')} `, 'm'),
    );
  });

  it('its first block runs as written, quietly: the real install, then a render', () => {
    for (const { command } of firstBlock) run(command);
    assert.equal(
      execFileSync(join(clone, 'node_modules', '.bin', 'node'), ['--version'], { encoding: 'utf8' }).trim(),
      `v${pinnedNodeVersion(REPO_ROOT)}`,
    );
    assert.ok(existsSync(join(clone, 'dist', 'reviewer.k8s.yaml')));
    // The set-up leaves the clone as it was: npm rewrote a stale package-lock.json (issue 31).
    assert.equal(
      execFileSync('git', ['status', '--porcelain'], { cwd: clone, encoding: 'utf8' }),
      '',
      'git status after the set-up line',
    );
    assert.match(
      run('npx toolyard --version'),
      new RegExp(`^toolyard ${version.replace(/\./g, '\\.')}$`, 'm'),
    );
  });

  it('then the quick start, as written, in the installed clone', () => {
    const quickStart = documentedCommands(REPO_ROOT).filter((c) =>
      c.source.startsWith('site/src/content/docs/start-here/quick-start.md:'),
    );
    assert.equal(quickStart[0]?.command, SET_UP, 'the quick start sets up as the README does');
    const rest = quickStart.slice(1).filter((c) => !(c.command in NOT_RUN_HERE));
    assert.ok(rest.length >= 4, JSON.stringify(rest));
    for (const { command } of rest) run(command);
    assert.ok(existsSync(join(clone, 'dist', 'reviewer.k8s.yaml')));
  });

  it('the Install section’s npm pack writes the tarball the README names', () => {
    const pack = commands.find((c) => c.command === 'npm pack');
    assert.ok(pack, 'the README has no `npm pack`');
    const tarball = `toolyard-${version}.tgz`;
    assert.ok(
      readme.includes(`npm install /path/to/toolyard/${tarball}`),
      `the README does not install ${tarball}`,
    );
    assert.ok(readme.includes(`dist/release/${tarball}`), 'the README does not name the release tarball');
    const output = run(pack.command);
    assert.match(output, new RegExp(`^${tarball.replace(/\./g, '\\.')}$`, 'm'));
    assert.ok(existsSync(join(clone, tarball)));
  });
});
