/**
 * Tools that protect themselves: the argv the policy approves for GNU sed and gawk starts with `--sandbox`, and
 * the real binaries then refuse what would run a program, read or write a file the policy never saw — with no
 * kernel confinement at all (the argv policy alone). Each payload has its control: the same program without
 * the server's argv leaves its mark.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { approveArgv } from '../../toolchain-server/src/policy/argv-policy.ts';
import { findOnPath } from '../../toolchain-server/src/policy/commands.ts';
import { WorkspaceRoots } from '../../toolchain-server/src/policy/cwd.ts';
import { makeWorkspace, type Workspace } from './helpers.ts';

const PATH = process.env.PATH ?? '/usr/bin:/bin';
const hasGawk = findOnPath('gawk', PATH) !== undefined;

describe('sed and gawk run in their own sandbox, put first by the server', () => {
  let ws: Workspace;
  let roots: WorkspaceRoots;
  let mark: string;

  before(() => {
    ws = makeWorkspace();
    roots = new WorkspaceRoots([ws.root]);
    writeFileSync(join(ws.root, 'f'), 'a\n');
    writeFileSync(join(ws.outside, 'secret'), 'outside secret\n');
    mark = join(ws.outside, 'mark');
  });
  after(() => ws.cleanup());

  const run = (name: string, args: string[], approved: boolean) => {
    rmSync(mark, { force: true });
    const argv = approved ? approveArgv(name, args, { cwd: ws.root, paths: roots, program: name }) : args;
    const r = spawnSync(name, argv, { cwd: ws.root, encoding: 'utf8', env: { PATH } });
    return { argv, stdout: r.stdout, status: r.status, marked: existsSync(mark) };
  };

  // @MARK@: a file the payload would create outside the roots; @SECRET@: a file outside the roots it would read.
  const payloads: Array<
    [label: string, name: string, args: string[], bites: (r: ReturnType<typeof run>) => boolean]
  > = [
    ['sed `e` runs a command', 'sed', ['s/a/b/;1e touch @MARK@', 'f'], (r) => r.marked],
    ['sed `w` writes any file', 'sed', ['-n', '1w @MARK@', 'f'], (r) => r.marked],
    ['sed `r` reads any file', 'sed', ['1r @SECRET@', 'f'], (r) => r.stdout.includes('outside secret')],
    ['gawk system()', 'gawk', ['BEGIN { system("touch @MARK@") }'], (r) => r.marked],
    ['gawk print > file', 'gawk', ['BEGIN { print "x" > "@MARK@" }'], (r) => r.marked],
    [
      'gawk getline < file',
      'gawk',
      ['BEGIN { while ((getline l < "@SECRET@") > 0) print l }'],
      (r) => r.stdout.includes('outside secret'),
    ],
    [
      'gawk a new file in ARGV',
      'gawk',
      ['BEGIN { ARGV[1] = "@SECRET@"; ARGC = 2 } { print }'],
      (r) => r.stdout.includes('outside secret'),
    ],
  ];

  for (const [label, name, rawArgs, bites] of payloads)
    it(`${label}: refused by the tool behind the approved argv; the control bites`, {
      skip: name === 'gawk' && !hasGawk,
    }, () => {
      const args = rawArgs.map((a) =>
        a.replaceAll('@MARK@', mark).replaceAll('@SECRET@', join(ws.outside, 'secret')),
      );
      const control = run(name, args, false);
      assert.ok(bites(control), `the control did not bite: ${JSON.stringify(control)}`);
      const approved = run(name, args, true);
      assert.equal(approved.argv[0], '--sandbox');
      assert.ok(!bites(approved), `the payload bit through the approved argv: ${JSON.stringify(approved)}`);
      assert.notEqual(approved.status, 0);
    });
});
