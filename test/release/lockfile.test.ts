/**
 * The README's set-up line (`npm install` on the pinned Node) must leave a clone clean: npm rewrites
 * package-lock.json whenever its root entry disagrees with package.json (a bin added to one and not the other
 * left `git status` dirty after set-up). The root entry must say what package.json says.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../support/golden.ts';

const read = (file: string) =>
  JSON.parse(readFileSync(join(REPO_ROOT, file), 'utf8')) as Record<string, unknown>;

/** The fields npm copies from package.json into the lockfile's root entry (`packages[""]`). */
const ROOT_FIELDS = [
  'name',
  'version',
  'license',
  'bin',
  'dependencies',
  'devDependencies',
  'peerDependencies',
  'optionalDependencies',
  'engines',
] as const;

/** What npm writes for `bin`: the map, sorted by name. */
function normalized(field: string, value: unknown): unknown {
  if (field === 'bin' && value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)));
  return value;
}

describe('package-lock.json', () => {
  it('its root entry says what package.json says, so npm install leaves the clone clean', () => {
    const pkg = read('package.json');
    const lock = read('package-lock.json');
    const root = (lock['packages'] as Record<string, Record<string, unknown>>)[''];
    assert.ok(root, 'the lockfile has a root entry');
    assert.equal(lock['name'], pkg['name']);
    assert.equal(lock['version'], pkg['version']);
    for (const field of ROOT_FIELDS)
      assert.deepEqual(
        normalized(field, root[field]),
        normalized(field, pkg[field]),
        `packages[""].${field}`,
      );
  });
});
