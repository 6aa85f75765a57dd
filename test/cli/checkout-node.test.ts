/**
 * A checkout's bins run the TypeScript sources; on a Node that cannot strip types they say so and name the Node
 * to use, instead of dying with a bare ERR_UNKNOWN_FILE_EXTENSION (issue 31). `--no-experimental-strip-types`
 * makes the repository's Node such a Node; the machine's own `node`, when older than 22, is tried too.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../support/golden.ts';

const BINS = ['toolyard', 'toolyard-toolchain-server', 'toolyard-broker'] as const;

function run(node: string, args: readonly string[]) {
  const result = spawnSync(node, [...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function systemNodeMajor(): number | undefined {
  try {
    return Number(
      execFileSync('/usr/bin/node', ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }),
    );
  } catch {
    return undefined;
  }
}

describe("a checkout's bins on a Node that cannot run TypeScript", () => {
  for (const bin of BINS) {
    it(`${bin}: a message that names the Node to use, exit 1, no stack trace`, () => {
      const result = run(process.execPath, [
        '--no-experimental-strip-types',
        join('bin', `${bin}.mjs`),
        '--version',
      ]);
      assert.equal(result.code, 1);
      assert.match(
        result.stderr,
        new RegExp(`^${bin}: this is a checkout of toolyard, which runs its TypeScript sources`),
      );
      assert.match(result.stderr, /type stripping turned off/);
      assert.match(result.stderr, new RegExp(`npx ${bin} …`));
      assert.match(result.stderr, /npx --yes --package=node@24\.21\.0 -- npm install/);
      assert.doesNotMatch(result.stderr, /ERR_UNKNOWN_FILE_EXTENSION|\n\s+at /);
    });
  }

  it('the control: the same bin on this Node with type stripping runs', () => {
    const result = run(process.execPath, [join('bin', 'toolyard.mjs'), '--version']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^toolyard \d+\.\d+\.\d+/);
  });

  const major = systemNodeMajor();
  it("the machine's own Node, when older than 22: the same message", {
    skip: major === undefined || major >= 22 ? 'no /usr/bin/node older than 22' : false,
  }, () => {
    const result = run('/usr/bin/node', [join('bin', 'toolyard.mjs'), '--version']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /cannot run TypeScript \(type stripping needs Node >= 22\.18\)/);
    assert.doesNotMatch(result.stderr, /ERR_UNKNOWN_FILE_EXTENSION/);
  });
});
