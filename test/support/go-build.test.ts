import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fillCacheDir, hasFile } from './go-build.ts';

describe('fillCacheDir: a cache entry is whole or absent', () => {
  const root = mkdtempSync(join(tmpdir(), 'toolyard-cache-entry-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('fills an absent entry through a staging directory and leaves no staging behind', () => {
    const dir = join(root, 'a', 'entry');
    fillCacheDir(dir, hasFile('.complete'), (staging) => {
      assert.notEqual(staging, dir);
      assert.equal(existsSync(dir), false, 'nothing is at the entry while it is being filled');
      writeFileSync(join(staging, 'tool'), 'built');
      writeFileSync(join(staging, '.complete'), 'key\n');
    });
    assert.equal(readFileSync(join(dir, 'tool'), 'utf8'), 'built');
    assert.deepEqual(readdirSync(join(root, 'a')), ['entry']);
  });

  it('does not run the build when the entry is complete', () => {
    const dir = join(root, 'b');
    mkdirSync(dir);
    writeFileSync(join(dir, '.complete'), 'key\n');
    fillCacheDir(dir, hasFile('.complete'), () => assert.fail('a complete entry is never rebuilt'));
  });

  it('leaves nothing when the build fails, and rethrows its error', () => {
    const dir = join(root, 'c', 'entry');
    assert.throws(
      () =>
        fillCacheDir(dir, hasFile('.complete'), (staging) => {
          writeFileSync(join(staging, 'half'), 'half a build');
          throw new Error('go build failed');
        }),
      /go build failed/,
    );
    assert.deepEqual(readdirSync(join(root, 'c')), []);
  });

  it('keeps the entry another process completed first, and drops its own copy', () => {
    const dir = join(root, 'd', 'entry');
    fillCacheDir(dir, hasFile('.complete'), (staging) => {
      // Another process finishes the same build while this one is still filling its staging directory.
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'tool'), 'theirs');
      writeFileSync(join(dir, '.complete'), 'key\n');
      writeFileSync(join(staging, 'tool'), 'ours');
      writeFileSync(join(staging, '.complete'), 'key\n');
    });
    assert.equal(readFileSync(join(dir, 'tool'), 'utf8'), 'theirs');
    assert.deepEqual(readdirSync(join(root, 'd')), ['entry']);
  });

  it('still fails when the rename fails and no complete entry is there', () => {
    const dir = join(root, 'e', 'entry');
    assert.throws(() =>
      fillCacheDir(dir, hasFile('.complete'), (staging) => {
        // An incomplete directory in the way (not empty, so the rename cannot replace it).
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, 'stray'), '');
        writeFileSync(join(staging, '.complete'), 'key\n');
      }),
    );
    assert.deepEqual(readdirSync(join(root, 'e')), ['entry']);
    assert.equal(existsSync(join(dir, '.complete')), false);
  });
});
