/** cwd and path confinement with realpath: symlink escapes, `..`, absolute paths elsewhere, missing dirs. */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolError } from '../../toolchain-server/src/errors.ts';
import { WorkspaceRoots } from '../../toolchain-server/src/policy/cwd.ts';
import { makeWorkspace, type Workspace } from './helpers.ts';

describe('WorkspaceRoots', () => {
  let ws: Workspace;
  let roots: WorkspaceRoots;
  before(() => {
    ws = makeWorkspace();
    mkdirSync(join(ws.root, 'sub', 'deep'), { recursive: true });
    writeFileSync(join(ws.root, 'file.txt'), 'x');
    symlinkSync(ws.outside, join(ws.root, 'escape'));
    symlinkSync('/etc', join(ws.root, 'etc-link'));
    symlinkSync(join(ws.root, 'sub'), join(ws.root, 'inner-link'));
    mkdirSync(`${ws.root}-sibling`);
    roots = new WorkspaceRoots([ws.root]);
  });
  after(() => ws.cleanup());

  const code = (fn: () => unknown): string | undefined => {
    try {
      fn();
      return undefined;
    } catch (error) {
      assert.ok(error instanceof ToolError);
      return error.code;
    }
  };

  it('defaults to the first root and resolves relative and absolute paths inside it', () => {
    assert.equal(roots.resolveCwd(undefined), ws.root);
    assert.equal(roots.resolveCwd('sub/deep'), join(ws.root, 'sub', 'deep'));
    assert.equal(roots.resolveCwd(join(ws.root, 'sub')), join(ws.root, 'sub'));
    assert.equal(roots.resolveCwd('sub/../sub/deep/..'), join(ws.root, 'sub'));
    assert.equal(roots.resolveCwd('inner-link'), join(ws.root, 'sub'), 'a symlink that stays inside is fine');
  });

  const outside: ReadonlyArray<readonly [string, (w: Workspace) => string]> = [
    ['dot-dot escape', () => '../outside'],
    ['deep dot-dot escape', () => 'sub/deep/../../../outside'],
    ['absolute path elsewhere', (w) => w.outside],
    ['root of the filesystem', () => '/'],
    ['symlink to a sibling', () => 'escape'],
    ['symlink to /etc', () => 'etc-link'],
    ['prefix sibling (root-sibling)', (w) => `${w.root}-sibling`],
  ];
  for (const [label, path] of outside) {
    it(`refuses ${label}`, () => {
      assert.equal(
        code(() => roots.resolveCwd(path(ws))),
        'TOOLYARD_CWD_OUTSIDE_ROOTS',
      );
    });
  }

  it('refuses missing directories and files given as cwd', () => {
    assert.equal(
      code(() => roots.resolveCwd('nope')),
      'TOOLYARD_CWD_NOT_FOUND',
    );
    assert.equal(
      code(() => roots.resolveCwd('file.txt')),
      'TOOLYARD_CWD_NOT_FOUND',
    );
    assert.equal(
      code(() => roots.resolveCwd('a\0b')),
      'TOOLYARD_CWD_NOT_FOUND',
    );
  });

  it('confines path arguments the same way', () => {
    assert.equal(roots.resolvePath('../file.txt', join(ws.root, 'sub'), 'file'), join(ws.root, 'file.txt'));
    assert.equal(
      code(() => roots.resolvePath('escape/x', ws.root)),
      'TOOLYARD_CWD_NOT_FOUND',
    );
    assert.equal(
      code(() => roots.resolvePath('escape', ws.root)),
      'TOOLYARD_CWD_OUTSIDE_ROOTS',
    );
    assert.equal(roots.inside('sub', ws.root), true);
    assert.equal(roots.inside('/etc', ws.root), false);
  });

  it('follows symlinks where they appear, as the kernel does, for paths that exist or not', () => {
    // escape -> outside: `escape/..` is the parent of outside, not the workspace.
    assert.equal(roots.inside('escape/../workspace/file.txt', ws.root), true);
    assert.equal(roots.inside('escape/..', ws.root), false);
    assert.equal(roots.inside('escape/new-file', ws.root), false);
    // A path that does not exist yet is judged by where it would be created.
    assert.equal(roots.inside('sub/new/deeper/file', ws.root), true);
    assert.equal(roots.inside('sub/new/../../../x', ws.root), false);
    // A dangling symlink leads where writing through it would land.
    symlinkSync(join(ws.outside, 'not-yet'), join(ws.root, 'dangling'));
    assert.equal(roots.inside('dangling', ws.root), false);
    symlinkSync('sub/not-yet', join(ws.root, 'dangling-inside'));
    assert.equal(roots.inside('dangling-inside', ws.root), true);
    // A symlink loop is refused.
    symlinkSync('loop-b', join(ws.root, 'loop-a'));
    symlinkSync('loop-a', join(ws.root, 'loop-b'));
    assert.equal(roots.inside('loop-a/x', ws.root), false);
    assert.equal(roots.inside('x\0y', ws.root), false);
  });

  it('reports missing roots', () => {
    const r = new WorkspaceRoots([ws.root, join(ws.root, 'not-there')]);
    assert.deepEqual(r.missing(), [join(ws.root, 'not-there')]);
  });
});
