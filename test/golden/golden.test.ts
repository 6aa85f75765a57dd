import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { main } from '../../cli/src/main.ts';
import { EXAMPLES_DIR, exampleFiles, GOLDEN_DIR, goldenFilesOnDisk, REPO_ROOT, renderGoldenFiles } from '../support/golden.ts';

const quietIo = { stdout: () => {}, stderr: () => {} };
const temp = mkdtempSync(join(tmpdir(), 'toolyard-golden-'));
after(() => rmSync(temp, { recursive: true, force: true }));

describe('golden files', () => {
  const rendered = renderGoldenFiles();

  it('exist for every example and only for examples', () => {
    assert.ok(exampleFiles().length >= 3, `examples in ${EXAMPLES_DIR}`);
    assert.deepEqual(goldenFilesOnDisk(), [...rendered.keys()].sort());
  });

  for (const [name, content] of rendered) {
    it(`${name} matches the renderer (regenerate with: npm run gen)`, () => {
      assert.equal(readFileSync(join(GOLDEN_DIR, name), 'utf8'), content);
    });
  }

  it('are byte-identical to what `toolyard synth examples/*.yaml` writes', async () => {
    const out = join(temp, 'synth');
    const code = await main(['synth', ...exampleFiles().map((f) => join(REPO_ROOT, f)), '-o', out], quietIo);
    assert.equal(code, 0);
    for (const name of goldenFilesOnDisk()) {
      assert.equal(readFileSync(join(out, name), 'utf8'), readFileSync(join(GOLDEN_DIR, name), 'utf8'), name);
    }
  });

  it('update-golden --check exits 1 on a stale, missing or orphaned file and 0 when up to date', () => {
    const dir = join(temp, 'check');
    const node = join(REPO_ROOT, 'node_modules', '.bin', 'node');
    const script = join(REPO_ROOT, 'test', 'scripts', 'update-golden.ts');
    const run = (...args: string[]) => {
      try {
        execFileSync(node, [script, '--dir', dir, ...args], { cwd: REPO_ROOT, stdio: 'pipe' });
        return { code: 0, stderr: '' };
      } catch (error) {
        const e = error as { status: number; stderr: Buffer };
        return { code: e.status, stderr: e.stderr.toString() };
      }
    };
    mkdirSync(dir, { recursive: true });
    const missing = run('--check');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /missing: .*reviewer\.k8s\.yaml/);
    assert.equal(run().code, 0, 'regenerating writes the files');
    assert.equal(run('--check').code, 0);
    writeFileSync(join(dir, 'reviewer.k8s.yaml'), `${readFileSync(join(dir, 'reviewer.k8s.yaml'), 'utf8')}# edited\n`);
    writeFileSync(join(dir, 'gone.k8s.yaml'), 'kind: ConfigMap\n');
    const drift = run('--check');
    assert.equal(drift.code, 1);
    assert.match(drift.stderr, /stale: .*reviewer\.k8s\.yaml/);
    assert.match(drift.stderr, /orphaned .*gone\.k8s\.yaml/);
    assert.match(drift.stderr, /npm run gen/);
  });
});
