/**
 * `npm run release` from one commit, twice: the same files with the same SHA256SUMS (npm tarball, chart
 * packages, index.yaml, image archives, images.json), and SHA256SUMS that `sha256sum -c` accepts.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { IMAGES } from '../../images/definitions.ts';
import { assembleRelease, type Release } from '../../release/src/release.ts';
import { PACKAGE_VERSION } from '../../toolchain-server/src/package-version.generated.ts';
import { REPO_ROOT } from '../support/golden.ts';

const run = promisify(execFile);

describe('npm run release', { timeout: 1_200_000 }, () => {
  let work: string | undefined;
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('assembles the tarball, charts, images and SHA256SUMS, byte-identical when built twice', async () => {
    work = await mkdtemp(join(tmpdir(), 'toolyard-release-'));
    const first: Release = await assembleRelease({ root: REPO_ROOT, outDir: join(work, 'first') });
    const second: Release = await assembleRelease({ root: REPO_ROOT, outDir: join(work, 'second') });
    assert.equal(second.sums, first.sums, 'a rebuild of the same commit differs');

    const files = first.sums
      .trim()
      .split('\n')
      .map((line) => line.split('  ')[1]);
    assert.ok(files.includes(`toolyard-${PACKAGE_VERSION}.tgz`));
    assert.ok(files.includes('charts/index.yaml'));
    for (const image of IMAGES) assert.ok(files.includes(`images/${image.name}.oci.tar`), image.name);
    assert.ok(files.includes('images/images.json'));

    const index = parse(readFileSync(join(first.dir, 'charts', 'index.yaml'), 'utf8')) as {
      entries: Record<string, { version: string; digest: string; urls: string[] }[]>;
    };
    assert.deepEqual(Object.keys(index.entries).sort(), ['operator', 'reviewer', 'web-infra']);
    for (const [name, [entry]] of Object.entries(index.entries)) {
      assert.equal(entry!.version, PACKAGE_VERSION);
      assert.deepEqual(entry!.urls, [`${name}-${PACKAGE_VERSION}.tgz`]);
      assert.ok(first.sums.includes(`${entry!.digest}  charts/${name}-${PACKAGE_VERSION}.tgz`), name);
    }

    const manifest = JSON.parse(readFileSync(join(first.dir, 'images', 'images.json'), 'utf8')) as {
      images: { name: string; tag: string; digest: string; reference: string }[];
    };
    for (const image of manifest.images) {
      assert.equal(image.tag, PACKAGE_VERSION);
      assert.match(image.digest, /^sha256:[0-9a-f]{64}$/);
      assert.equal(image.reference, `ghcr.io/toolyard/${image.name}:${PACKAGE_VERSION}`);
    }
    const { stdout } = await run('sha256sum', ['--check', '--strict', 'SHA256SUMS'], { cwd: first.dir });
    assert.equal(stdout.trim().split('\n').length, files.length);
  });
});
