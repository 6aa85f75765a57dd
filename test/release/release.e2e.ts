/**
 * `npm run release` from one commit, twice — once from the git checkout, once from a source archive of the same
 * commit (`git archive` output: no `.git`, the revision given by TOOLYARD_REVISION) — gives the same files with
 * the same SHA256SUMS (npm tarball, chart packages, index.yaml, image archives, images.json), which `sha256sum
 * -c` accepts. And `npm run images` from a source archive without any revision: twice the same digests, no
 * revision label.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, symlinkSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { IMAGES, imageNamed } from '../../images/definitions.ts';
import { buildImages } from '../../images/src/build.ts';
import { assembleRelease, type Release } from '../../release/src/release.ts';
import { PACKAGE_VERSION } from '../../toolchain-server/src/package-version.generated.ts';
import { REPO_ROOT } from '../support/golden.ts';

const run = promisify(execFile);

/** The committed sources of HEAD as a distribution gets them: `git archive` output, no `.git`. */
async function sourceArchive(dir: string): Promise<{ root: string; revision: string }> {
  const root = join(dir, 'toolyard-src');
  await run('sh', ['-c', `mkdir -p "$1" && git archive --format=tar HEAD | tar -x -C "$1"`, 'sh', root], {
    cwd: REPO_ROOT,
  });
  // Dependencies come from the checkout's install, as a distribution provides them.
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(root, 'node_modules'));
  const { stdout } = await run('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT });
  return { root, revision: stdout.trim() };
}

async function withEnv<T>(vars: Record<string, string | undefined>, task: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(vars);
  try {
    return await task();
  } finally {
    apply(saved);
  }
}

describe('npm run release', { timeout: 1_200_000 }, () => {
  let work: string | undefined;
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('assembles the tarball, charts, images and SHA256SUMS, byte-identical from the checkout and from a source archive', async () => {
    work = await mkdtemp(join(tmpdir(), 'toolyard-release-'));
    const first: Release = await assembleRelease({ root: REPO_ROOT, outDir: join(work, 'first') });
    const source = await sourceArchive(join(work, 'archive'));
    const second: Release = await withEnv(
      { TOOLYARD_REVISION: source.revision, SOURCE_DATE_EPOCH: undefined },
      () => assembleRelease({ root: source.root, outDir: join(work!, 'second') }),
    );
    assert.equal(second.sums, first.sums, 'the source archive of the same commit builds a different release');

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

  it('npm run images from a source archive without a revision: the same digests twice, no revision label', async () => {
    work ??= await mkdtemp(join(tmpdir(), 'toolyard-release-'));
    const source = await sourceArchive(join(work, 'archive-bare'));
    const build = (out: string) =>
      withEnv({ TOOLYARD_REVISION: undefined, SOURCE_DATE_EPOCH: undefined }, () =>
        buildImages({
          root: source.root,
          outDir: join(work!, out),
          images: [imageNamed('toolchain-server')],
        }),
      );
    const [a] = await build('bare-a');
    const [b] = await build('bare-b');
    assert.equal(a!.digest, b!.digest);
    assert.equal(a!.archiveSha256, b!.archiveSha256);
    const manifest = JSON.parse(readFileSync(join(work, 'bare-a', 'images.json'), 'utf8')) as {
      revision?: string;
    };
    assert.equal(manifest.revision, undefined, 'no revision is made up');
    const layout = join(work, 'bare-layout');
    await run('sh', ['-c', 'mkdir -p "$2" && tar -xf "$1" -C "$2"', 'sh', a!.archive, layout]);
    const blob = (digest: string) =>
      JSON.parse(readFileSync(join(layout, 'blobs', 'sha256', digest.replace(/^sha256:/, '')), 'utf8'));
    const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8')) as {
      manifests: { digest: string }[];
    };
    let top = blob(index.manifests[0]!.digest) as {
      manifests?: { digest: string }[];
      config?: { digest: string };
    };
    while (top.manifests) top = blob(top.manifests[0]!.digest);
    const labels = (blob(top.config!.digest) as { config: { Labels: Record<string, string> } }).config.Labels;
    assert.equal(labels['org.opencontainers.image.revision'], undefined, 'no revision label');
    assert.ok(labels['org.opencontainers.image.created'], 'the other labels are there');
  });
});
