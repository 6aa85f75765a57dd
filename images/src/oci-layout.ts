/**
 * Writes OCI image archives (image-spec v1: an image layout — `oci-layout`, `index.json`, `blobs/sha256/…` —
 * in one tar, what `skopeo copy oci-archive:…` and `umoci` read). Every byte is a function of the layers and
 * the config: fixed mtimes and ownership in the tars, `created` from the commit, sorted JSON keys nowhere
 * needed because objects are built in a fixed order.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { LayerBlob } from './rootfs.ts';

const run = promisify(execFile);

export const MEDIA_TYPES = {
  index: 'application/vnd.oci.image.index.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
} as const;

/** GNU tar flags for byte-identical archives of the same files (reproducible-builds.org's recipe). */
export function reproducibleTarFlags(epoch: number): string[] {
  return [
    '--sort=name',
    '--format=posix',
    '--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime',
    `--mtime=@${epoch}`,
    '--owner=0',
    '--group=0',
    '--numeric-owner',
  ];
}

/** OCI platform names of Node's architectures. */
export function ociArchitecture(arch = process.arch): string {
  const names: Record<string, string> = {
    x64: 'amd64',
    arm64: 'arm64',
    arm: 'arm',
    ppc64: 'ppc64le',
    s390x: 's390x',
  };
  const name = names[arch];
  if (!name) throw new Error(`no OCI architecture for Node's "${arch}"`);
  return name;
}

export interface ImageConfig {
  readonly user: string;
  readonly env: Readonly<Record<string, string>>;
  readonly entrypoint: readonly string[];
  readonly cmd: readonly string[];
  readonly workingDir: string;
  readonly labels: Readonly<Record<string, string>>;
}

export interface LayerWithHistory {
  readonly blob: LayerBlob;
  /** How the layer was made, for the image history. */
  readonly createdBy: string;
}

export interface WrittenImage {
  readonly archive: string;
  /** Digest of the image manifest: what `image@sha256:…` references. */
  readonly digest: string;
  readonly tag: string;
  readonly archiveSha256: string;
  readonly archiveSize: number;
}

function descriptor(mediaType: string, bytes: Uint8Array) {
  return {
    mediaType,
    digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
    size: bytes.length,
  };
}

export async function writeImageArchive(options: {
  readonly archive: string;
  readonly tag: string;
  readonly created: string;
  readonly epoch: number;
  readonly layers: readonly LayerWithHistory[];
  readonly config: ImageConfig;
}): Promise<WrittenImage> {
  const config = {
    created: options.created,
    architecture: ociArchitecture(),
    os: 'linux',
    config: {
      User: options.config.user,
      Env: Object.entries(options.config.env).map(([name, value]) => `${name}=${value}`),
      Entrypoint: [...options.config.entrypoint],
      Cmd: [...options.config.cmd],
      WorkingDir: options.config.workingDir,
      Labels: options.config.labels,
    },
    rootfs: { type: 'layers', diff_ids: options.layers.map((layer) => layer.blob.diffId) },
    history: options.layers.map((layer) => ({ created: options.created, created_by: layer.createdBy })),
  };
  const configBytes = new TextEncoder().encode(JSON.stringify(config));
  const manifest = {
    schemaVersion: 2,
    mediaType: MEDIA_TYPES.manifest,
    config: descriptor(MEDIA_TYPES.config, configBytes),
    layers: options.layers.map((layer) => ({
      mediaType: MEDIA_TYPES.layer,
      digest: layer.blob.digest,
      size: layer.blob.size,
    })),
    annotations: options.config.labels,
  };
  const manifestBytes = new TextEncoder().encode(JSON.stringify(manifest));
  const manifestDescriptor = descriptor(MEDIA_TYPES.manifest, manifestBytes);
  const index = {
    schemaVersion: 2,
    mediaType: MEDIA_TYPES.index,
    manifests: [
      {
        ...manifestDescriptor,
        platform: { architecture: config.architecture, os: 'linux' },
        annotations: { 'org.opencontainers.image.ref.name': options.tag },
      },
    ],
  };

  await mkdir(dirname(options.archive), { recursive: true });
  const layout = await mkdtemp(`${options.archive}.layout-`);
  try {
    const blobs = join(layout, 'blobs', 'sha256');
    await mkdir(blobs, { recursive: true });
    const blobPath = (digest: string) => join(blobs, digest.slice('sha256:'.length));
    for (const layer of options.layers) await copyFile(layer.blob.path, blobPath(layer.blob.digest));
    await writeFile(blobPath(manifest.config.digest), configBytes);
    await writeFile(blobPath(manifestDescriptor.digest), manifestBytes);
    await writeFile(join(layout, 'index.json'), JSON.stringify(index));
    await writeFile(join(layout, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
    await run('chmod', ['-R', 'u=rwX,go=rX', layout]);
    const partial = `${options.archive}.partial`;
    await run('tar', [
      '--create',
      `--file=${partial}`,
      ...reproducibleTarFlags(options.epoch),
      '-C',
      layout,
      '.',
    ]);
    await rename(partial, options.archive);
  } finally {
    await rm(layout, { recursive: true, force: true });
  }
  const { sha256, size } = await fileSha256(options.archive);
  return {
    archive: options.archive,
    digest: manifestDescriptor.digest,
    tag: options.tag,
    archiveSha256: sha256,
    archiveSize: size,
  };
}

export async function fileSha256(path: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), size };
}
