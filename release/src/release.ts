/**
 * `npm run release`: everything a release publishes, in `dist/release/`:
 *
 *   toolyard-<version>.tgz                 the npm package (`npm pack`)
 *   charts/<agent>-<version>.tgz, index.yaml   the example agents' Helm charts and their repository index
 *   images/<name>.oci.tar, images.json      the OCI images and their names, tags and digests
 *   SHA256SUMS                             every file above, `sha256sum -c` format
 *
 * Everything is a function of the commit: tar mtimes and chart/index times come from the commit time, image
 * metadata from the commit, and root filesystems from the package-list cache. Building twice from one commit
 * gives the same SHA256SUMS (test/release/release.e2e.ts).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { generateChart } from '../../chart-generator/src/generate.ts';
import { type IndexEntry, indexYaml, packageChart } from '../../chart-generator/src/package.ts';
import { checkSpecText } from '../../constructs/src/check-spec-text.ts';
import { renderAgent } from '../../constructs/src/render.ts';
import { type BuiltImage, buildImages, imageMetadata } from '../../images/src/build.ts';
import { npmPack } from './npm-pack.ts';

const run = promisify(execFile);

export interface Release {
  readonly dir: string;
  readonly tarball: string;
  readonly charts: readonly string[];
  readonly images: readonly BuiltImage[];
  /** Contents of SHA256SUMS. */
  readonly sums: string;
}

async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

/** Packages the chart of every example agent at the package version. */
async function releaseCharts(root: string, dir: string, version: string, epoch: number): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const examples = (await readdir(join(root, 'examples'))).filter((name) => name.endsWith('.yaml')).sort();
  const index: IndexEntry[] = [];
  for (const example of examples) {
    const file = join('examples', example);
    const checked = checkSpecText(await readFile(join(root, file), 'utf8'), file);
    if (!checked.ok) throw new Error(`${file} is invalid: run \`npx toolyard validate ${file}\``);
    for (const { agent } of checked.specs) {
      const chart = generateChart(renderAgent(agent), { version, appVersion: version });
      const packaged = packageChart(chart, epoch);
      await writeFile(join(dir, packaged.fileName), packaged.archive);
      index.push({
        chartYaml: parse(chart.files.get('Chart.yaml')!) as Record<string, unknown>,
        fileName: packaged.fileName,
        digest: packaged.digest,
      });
    }
  }
  await writeFile(join(dir, 'index.yaml'), indexYaml(index, epoch));
  return index.map((entry) => entry.fileName);
}

export async function assembleRelease(options: {
  readonly root: string;
  readonly outDir: string;
  readonly log?: (line: string) => void;
}): Promise<Release> {
  const log = options.log ?? (() => {});
  const meta = await imageMetadata(options.root);
  if (existsSync(join(options.root, '.git'))) {
    const { stdout: dirty } = await run('git', ['status', '--porcelain', '--untracked-files=no'], {
      cwd: options.root,
    });
    if (dirty.trim() !== '')
      log(`warning: uncommitted changes; the release is labelled ${meta.revision} regardless`);
  } else if (!meta.revision) log('no .git and no TOOLYARD_REVISION: the images carry no revision label');
  const staging = `${options.outDir}.staging`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  try {
    log('npm pack');
    const packed = await npmPack(options.root, staging);
    log(`charts at ${meta.version}`);
    const charts = await releaseCharts(options.root, join(staging, 'charts'), meta.version, meta.epoch);
    log('images');
    const images = await buildImages({ root: options.root, outDir: join(staging, 'images'), log });
    const lines: string[] = [];
    for (const file of await filesUnder(staging)) lines.push(`${await sha256(join(staging, file))}  ${file}`);
    const sums = `${lines.join('\n')}\n`;
    await writeFile(join(staging, 'SHA256SUMS'), sums);
    await rm(options.outDir, { recursive: true, force: true });
    await rename(staging, options.outDir);
    return {
      dir: options.outDir,
      tarball: join(options.outDir, relative(staging, packed.tarball)),
      charts,
      images: images.map((image) => ({
        ...image,
        archive: join(options.outDir, relative(staging, image.archive)),
      })),
      sums,
    };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
