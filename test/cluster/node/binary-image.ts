/**
 * An OCI image archive holding one static binary and nothing else (the test node's pause, probe and CoreDNS
 * images), written with the images' own archive writer (images/src/oci-layout.ts): reproducible, importable with
 * `ctr images import`, tagged `toolyard.test/<name>:<tag>`.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { reproducibleTarFlags, writeImageArchive } from '../../../images/src/oci-layout.ts';
import { gzipLayer } from '../../../images/src/rootfs.ts';

/** The registry host of the test node's own images: never resolvable, so nothing is ever pulled for them. */
export const TEST_REGISTRY = 'toolyard.test';
const EPOCH = 0;

export interface BinaryImage {
  readonly name: string;
  readonly tag: string;
  /** The image reference a pod names (`toolyard.test/<name>:<tag>`). */
  readonly ref: string;
  readonly archive: string;
}

export async function binaryImage(options: {
  readonly name: string;
  readonly tag: string;
  readonly binary: string;
  /** The binary's name in the image's root (default: the image's name). */
  readonly file?: string;
  readonly entrypoint: readonly string[];
  readonly user: string;
  readonly outDir: string;
}): Promise<BinaryImage> {
  const work = mkdtempSync(join(options.outDir, `${options.name}-`));
  try {
    const root = join(work, 'root');
    mkdirSync(root, { recursive: true });
    const target = join(root, options.file ?? options.name);
    copyFileSync(options.binary, target);
    chmodSync(target, 0o755);
    const tar = join(work, 'layer.tar');
    execFileSync('tar', ['--create', `--file=${tar}`, ...reproducibleTarFlags(EPOCH), '-C', root, '.']);
    const blob = await gzipLayer(tar, join(work, 'layer.tar.gz'));
    const ref = `${TEST_REGISTRY}/${options.name}:${options.tag}`;
    const archive = join(options.outDir, `${options.name}.oci.tar`);
    await writeImageArchive({
      archive,
      tag: options.tag,
      created: new Date(EPOCH * 1000).toISOString(),
      epoch: EPOCH,
      annotations: {},
      platforms: [
        {
          architecture: 'amd64',
          layers: [{ blob, createdBy: `COPY ${options.file ?? options.name} /` }],
          config: {
            user: options.user,
            env: {},
            entrypoint: options.entrypoint,
            cmd: [],
            workingDir: '/',
            labels: {},
          },
        },
      ],
    });
    return { name: options.name, tag: options.tag, ref, archive };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
