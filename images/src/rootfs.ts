/**
 * Debian root filesystems from Debian packages with mmdebstrap (no Docker, no registry), cached outside the
 * repository by everything that determines their content: `~/.cache/toolyard/rootfs/<key>/` holds the
 * filesystem as a tar (device nodes left out: container runtimes provide /dev) and that tar as a gzip layer
 * blob with its digests. A changed package list, filter or setup command is a new key, so a stale root
 * filesystem is never reused; the same key is never rebuilt.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { createGzip } from 'node:zlib';
import { cacheDir } from '../../release/src/cache-dir.ts';
import { nodeArchitecture, ociArchitecture } from './architectures.ts';

const run = promisify(execFile);

/** mtime of every file in a cached root filesystem: fixed, so the layer depends only on the packages. */
export const ROOTFS_EPOCH = 1_704_067_200;

export interface RootfsRequest {
  readonly suite: string;
  /** Debian (= OCI) architecture: `amd64`, `arm64`. A foreign one is built under qemu-user (binfmt_misc). */
  readonly architecture: string;
  /** Packages beyond the minbase variant. */
  readonly packages: readonly string[];
  readonly dpkgFilters: readonly string[];
  /** Shell commands run as root inside the finished root filesystem. */
  readonly setup: readonly string[];
}

/** A layer blob as an OCI manifest references it. */
export interface LayerBlob {
  /** The gzip-compressed tar. */
  readonly path: string;
  /** sha256 of the compressed blob (`sha256:…`). */
  readonly digest: string;
  readonly size: number;
  /** sha256 of the uncompressed tar: the image config's diff_id. */
  readonly diffId: string;
}

export interface CachedRootfs {
  readonly key: string;
  readonly tar: string;
  readonly layer: LayerBlob;
  /** Whether this call built it (false: taken from the cache). */
  readonly built: boolean;
}

async function mmdebstrapVersion(): Promise<string> {
  const { stdout } = await run('mmdebstrap', ['--version']).catch(() => {
    throw new Error('mmdebstrap is not installed: apt-get install mmdebstrap (bash .ci/run installs it)');
  });
  return stdout.trim();
}

export async function rootfsKey(request: RootfsRequest): Promise<string> {
  const inputs = {
    suite: request.suite,
    variant: 'minbase',
    // Node's name, as the key has always used it, so a cached root filesystem stays valid.
    architecture: nodeArchitecture(request.architecture),
    packages: [...request.packages].sort(),
    dpkgFilters: request.dpkgFilters,
    setup: request.setup,
    epoch: ROOTFS_EPOCH,
    mmdebstrap: await mmdebstrapVersion(),
    layout: 2,
  };
  return createHash('sha256').update(JSON.stringify(inputs)).digest('hex').slice(0, 24);
}

/** Streams `tar` through gzip into `out`, hashing both sides. */
export async function gzipLayer(tar: string, out: string): Promise<LayerBlob> {
  const diff = createHash('sha256');
  const blob = createHash('sha256');
  const gzip = createGzip({ level: 6 });
  const source = createReadStream(tar);
  source.on('data', (chunk) => diff.update(chunk));
  gzip.on('data', (chunk: Buffer) => blob.update(chunk));
  await pipeline(source, gzip, createWriteStream(out));
  return {
    path: out,
    digest: `sha256:${blob.digest('hex')}`,
    size: (await stat(out)).size,
    diffId: `sha256:${diff.digest('hex')}`,
  };
}

function mmdebstrapArgs(request: RootfsRequest, target: string): string[] {
  return [
    '--variant=minbase',
    '--format=tar',
    `--architectures=${request.architecture}`,
    '--aptopt=APT::Install-Recommends "false"',
    ...request.dpkgFilters.map((filter) => `--dpkgopt=${filter}`),
    ...(request.packages.length > 0 ? [`--include=${request.packages.join(',')}`] : []),
    ...request.setup.map((command) => `--customize-hook=chroot "$1" sh -ec '${command}'`),
    request.suite,
    target,
  ];
}

/** Where the kernel finds the emulator of each foreign architecture (qemu-user-static's binfmt entries). */
const BINFMT_ENTRIES: Readonly<Record<string, string>> = { arm64: 'qemu-aarch64', amd64: 'qemu-x86_64' };

/**
 * A foreign architecture's root filesystem runs its maintainer scripts under qemu-user: the kernel must have a
 * binfmt_misc entry for it. Fails with what to install otherwise.
 */
export function assertCanRun(architecture: string): void {
  if (architecture === ociArchitecture()) return;
  const entry = BINFMT_ENTRIES[architecture];
  const path = `/proc/sys/fs/binfmt_misc/${entry ?? architecture}`;
  if (!entry || !existsSync(path) || !readFileSync(path, 'utf8').startsWith('enabled'))
    throw new Error(
      `cannot build or run ${architecture} on this ${ociArchitecture()} machine: no enabled binfmt_misc entry ${path}. ` +
        'apt-get install qemu-user-static binfmt-support, mount binfmt_misc on /proc/sys/fs/binfmt_misc and run ' +
        '`update-binfmts --enable` (bash .ci/run does all three)',
    );
}

export async function debianRootfs(
  request: RootfsRequest,
  log: (line: string) => void = () => {},
): Promise<CachedRootfs> {
  const key = await rootfsKey(request);
  const dir = cacheDir('rootfs', key);
  const tar = join(dir, 'rootfs.tar');
  const meta = join(dir, 'layer.json');
  if (existsSync(meta)) {
    const layer = JSON.parse(await readFile(meta, 'utf8')) as Omit<LayerBlob, 'path'>;
    return { key, tar, layer: { ...layer, path: join(dir, 'layer.tar.gz') }, built: false };
  }
  for (const command of request.setup)
    if (command.includes("'")) throw new Error(`setup command must not contain a single quote: ${command}`);
  assertCanRun(request.architecture);
  await mkdir(cacheDir('rootfs'), { recursive: true });
  const work = await mkdtemp(`${dir}.building-`);
  try {
    log(`mmdebstrap ${request.suite}/${request.architecture} + [${request.packages.join(' ')}] → ${dir}`);
    const raw = join(work, 'mmdebstrap.tar');
    await run('mmdebstrap', mmdebstrapArgs(request, raw), {
      env: { ...process.env, SOURCE_DATE_EPOCH: String(ROOTFS_EPOCH) },
      maxBuffer: 256 * 1024 * 1024,
    }).catch((error: { stderr?: string }) => {
      throw new Error(
        `mmdebstrap failed for ${request.suite}/${request.architecture} [${request.packages.join(' ')}]:\n${error.stderr ?? ''}`,
      );
    });
    // Runtimes mount /dev; the layer keeps only the empty directory.
    await run('tar', ['--delete', '--wildcards', '--file', raw, './dev/?*']);
    await rename(raw, join(work, 'rootfs.tar'));
    const layer = await gzipLayer(join(work, 'rootfs.tar'), join(work, 'layer.tar.gz'));
    const { path: _path, ...digests } = layer;
    await writeFile(join(work, 'layer.json'), `${JSON.stringify(digests, null, 2)}\n`);
    await rm(dir, { recursive: true, force: true });
    await rename(work, dir);
    return { key, tar, layer: { ...digests, path: join(dir, 'layer.tar.gz') }, built: true };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
