/** `npx cdk8s synth` (cdk8s.yaml at the repo root) and `toolyard synth` write the same bytes. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(root, 'node_modules', '.bin');

describe('cdk8s synth', () => {
  it('renders every example exactly as toolyard synth does', { timeout: 120_000 }, async () => {
    const out = await mkdtemp(join(tmpdir(), 'toolyard-cdk8s-'));
    try {
      const env = { ...process.env, PATH: `${bin}:${process.env['PATH']}` };
      await run(join(bin, 'cdk8s'), ['synth', '--output', join(out, 'cdk8s')], { cwd: root, env });
      const examples = (await readdir(join(root, 'examples'))).filter((f) => f.endsWith('.yaml')).sort();
      await run(
        join(bin, 'node'),
        [
          'cli/bin/toolyard.js',
          'synth',
          ...examples.map((e) => `examples/${e}`),
          '-o',
          join(out, 'toolyard'),
        ],
        {
          cwd: root,
          env,
        },
      );
      const cdk8sFiles = (await readdir(join(out, 'cdk8s'))).sort();
      assert.deepEqual(cdk8sFiles, (await readdir(join(out, 'toolyard'))).sort());
      assert.equal(cdk8sFiles.length, examples.length);
      for (const file of cdk8sFiles) {
        assert.equal(
          await readFile(join(out, 'cdk8s', file), 'utf8'),
          await readFile(join(out, 'toolyard', file), 'utf8'),
          file,
        );
      }
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
