/**
 * Every command the README and the site tell a user to run, run literally (no substitution) in a fresh copy of
 * this checkout, in documentation order, with a user's environment: no `node_modules/.bin` on PATH, no npm
 * script variables. Each must exit 0 and print no warning. Commands that need a cluster, helm or the network
 * are listed with the reason in `NOT_RUN_HERE`; a command in neither list fails the test, so new docs are
 * covered as soon as they are written.
 *
 * The setup is the one seam: `freshClone` prepares a copy the way `npm install` leaves a clone. For the
 * installed package, a second setup (`npm pack`, then install the tarball into an empty project) runs the same
 * commands against it.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_ROOT } from '../support/golden.ts';
import { documentedCommands, NOT_RUN_HERE, SERVES, userEnv } from './documented-commands.ts';

/**
 * A copy of this checkout's files (tracked and new, as `git clone` would give once committed) in a new git
 * repository, with the packages `npm install` installed here linked in.
 */
function freshClone(): string {
  const clone = mkdtempSync(join(tmpdir(), 'toolyard-clone-'));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((f) => f !== '' && existsSync(join(REPO_ROOT, f)));
  for (const file of files) {
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    copyFileSync(join(REPO_ROOT, file), join(clone, file));
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: clone, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=test', '-c', 'user.email=test@example.com', 'commit', '-qm', 'clone');

  const installed = join(REPO_ROOT, 'node_modules');
  const modules = join(clone, 'node_modules');
  mkdirSync(join(modules, '.bin'), { recursive: true });
  for (const entry of readdirSync(installed)) {
    if (entry !== '.bin') symlinkSync(join(installed, entry), join(modules, entry));
  }
  for (const bin of readdirSync(join(installed, '.bin'))) {
    const target = readlinkSync(join(installed, '.bin', bin));
    // Links into this checkout itself would run this checkout's files, not the clone's.
    if (!target.startsWith('../../')) symlinkSync(target, join(modules, '.bin', bin));
  }
  // No install script to run: `npx toolyard` runs the clone's own bin (bin/toolyard.mjs → its sources).
  return clone;
}

/** Runs a serving command until it prints `ready`, then stops it with SIGTERM (as a container runtime does). */
async function serveUntil(command: string, cwd: string, ready: RegExp): Promise<string> {
  const child = spawn('bash', ['-c', command], { cwd, env: userEnv(), detached: true });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk) => {
    err += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command}: not serving after 60 s\n${err}`)), 60_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => reject(new Error(`${command}: exited ${code} before serving\n${err}`)));
  });
  process.kill(-child.pid!, 'SIGTERM');
  await exited;
  return out;
}

describe('the documented commands, run as written', () => {
  const commands = documentedCommands(REPO_ROOT);
  let clone: string;

  before(() => {
    clone = freshClone();
  });
  after(() => {
    if (clone) rmSync(clone, { recursive: true, force: true });
  });

  it('finds the commands of the README, the quick start and the guides', () => {
    const sources = new Set(commands.map((c) => c.source.split(':')[0]));
    for (const page of ['README.md', 'site/src/content/docs/start-here/quick-start.md', 'docs/helm.md'])
      assert.ok(sources.has(page), `no command found in ${page}`);
    assert.ok(commands.length >= 20, `only ${commands.length} commands found`);
  });

  it('every command not run here is still in the docs, with a reason', () => {
    const documented = new Set(commands.map((c) => c.command));
    for (const [command, reason] of Object.entries(NOT_RUN_HERE)) {
      assert.ok(documented.has(command), `NOT_RUN_HERE lists "${command}", which no document has any more`);
      assert.ok(reason.length > 10);
    }
    for (const command of Object.keys(SERVES)) assert.ok(documented.has(command), command);
  });

  it('every other command runs in a fresh clone, exits 0 and warns about nothing', {
    timeout: 600_000,
  }, async () => {
    const ran: string[] = [];
    for (const { source, command } of commands) {
      if (command in NOT_RUN_HERE) continue;
      const ready = SERVES[command];
      if (ready) {
        await serveUntil(command, clone, ready);
        ran.push(command);
        continue;
      }
      const result = spawnSync('bash', ['-c', command], {
        cwd: clone,
        env: userEnv(),
        encoding: 'utf8',
        timeout: 180_000,
      });
      assert.equal(result.error, undefined, `${source}: ${command}: ${result.error?.message}`);
      assert.equal(result.status, 0, `${source}: \`${command}\` exited ${result.status}:\n${result.stderr}`);
      assert.doesNotMatch(result.stderr, /^warning:/m, `${source}: \`${command}\` warns:\n${result.stderr}`);
      ran.push(command);
    }
    // What the quick start promises, from the files its commands wrote.
    assert.ok(existsSync(join(clone, 'my-agent.yaml')));
    assert.ok(existsSync(join(clone, 'dist', 'reviewer.k8s.yaml')));
    assert.ok(ran.length >= 15, `only ${ran.length} commands ran`);
  });
});
