/**
 * Writes OCI image archives (image-spec v1: an image layout — `oci-layout`, `index.json`, `blobs/sha256/…` —
 * in one tar, what `skopeo copy oci-archive:…` and `umoci` read), one image index per image over a manifest per
 * architecture. Every byte is a function of the layers and the configs: fixed mtimes and ownership in the tars, `created` from the commit, sorted JSON keys nowhere
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
  /** Digest of the image index: what `image@sha256:…` references, whatever the node's architecture. */
  readonly digest: string;
  /** Digest of each architecture's image manifest. */
  readonly manifests: Readonly<Record<string, string>>;
  readonly tag: string;
  readonly archiveSha256: string;
  readonly archiveSize: number;
}

/** One architecture of an image: its layers and config. */
export interface PlatformImage {
  /** OCI architecture name (`amd64`, `arm64`). */
  readonly architecture: string;
  readonly layers: readonly LayerWithHistory[];
  readonly config: ImageConfig;
}

function descriptor(mediaType: string, bytes: Uint8Array) {
  return {
    mediaType,
    digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
    size: bytes.length,
  };
}

const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

/** An image manifest and its config for one platform, as blobs. */
function platformBlobs(image: PlatformImage, created: string) {
  const config = {
    created,
    architecture: image.architecture,
    os: 'linux',
    config: {
      User: image.config.user,
      Env: Object.entries(image.config.env).map(([name, value]) => `${name}=${value}`),
      Entrypoint: [...image.config.entrypoint],
      Cmd: [...image.config.cmd],
      WorkingDir: image.config.workingDir,
      Labels: image.config.labels,
    },
    rootfs: { type: 'layers', diff_ids: image.layers.map((layer) => layer.blob.diffId) },
    history: image.layers.map((layer) => ({ created, created_by: layer.createdBy })),
  };
  const configBytes = encode(config);
  const manifest = {
    schemaVersion: 2,
    mediaType: MEDIA_TYPES.manifest,
    config: descriptor(MEDIA_TYPES.config, configBytes),
    layers: image.layers.map((layer) => ({
      mediaType: MEDIA_TYPES.layer,
      digest: layer.blob.digest,
      size: layer.blob.size,
    })),
    annotations: image.config.labels,
  };
  const manifestBytes = encode(manifest);
  return {
    configBytes,
    configDigest: manifest.config.digest,
    manifestBytes,
    manifest: descriptor(MEDIA_TYPES.manifest, manifestBytes),
  };
}

/**
 * Writes one image for several architectures as an OCI archive: the layout's `index.json` names one image index
 * (tagged `tag`), which lists a manifest per architecture with its platform — what `skopeo copy --all` pushes
 * as a multi-architecture image, and what a kubelet resolves to its node's architecture.
 */
export async function writeImageArchive(options: {
  readonly archive: string;
  readonly tag: string;
  readonly created: string;
  readonly epoch: number;
  readonly platforms: readonly PlatformImage[];
  /** Annotations of the image index (the image's labels). */
  readonly annotations: Readonly<Record<string, string>>;
}): Promise<WrittenImage> {
  const platforms = options.platforms.map((image) => ({
    image,
    blobs: platformBlobs(image, options.created),
  }));
  const imageIndex = {
    schemaVersion: 2,
    mediaType: MEDIA_TYPES.index,
    manifests: platforms.map(({ image, blobs }) => ({
      ...blobs.manifest,
      platform: { architecture: image.architecture, os: 'linux' },
    })),
    annotations: options.annotations,
  };
  const imageIndexBytes = encode(imageIndex);
  const imageIndexDescriptor = descriptor(MEDIA_TYPES.index, imageIndexBytes);
  const layoutIndex = {
    schemaVersion: 2,
    mediaType: MEDIA_TYPES.index,
    manifests: [
      { ...imageIndexDescriptor, annotations: { 'org.opencontainers.image.ref.name': options.tag } },
    ],
  };

  await mkdir(dirname(options.archive), { recursive: true });
  const layout = await mkdtemp(`${options.archive}.layout-`);
  try {
    const blobs = join(layout, 'blobs', 'sha256');
    await mkdir(blobs, { recursive: true });
    const blobPath = (digest: string) => join(blobs, digest.slice('sha256:'.length));
    for (const { image, blobs: b } of platforms) {
      for (const layer of image.layers) await copyFile(layer.blob.path, blobPath(layer.blob.digest));
      await writeFile(blobPath(b.configDigest), b.configBytes);
      await writeFile(blobPath(b.manifest.digest), b.manifestBytes);
    }
    await writeFile(blobPath(imageIndexDescriptor.digest), imageIndexBytes);
    await writeFile(join(layout, 'index.json'), JSON.stringify(layoutIndex));
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
    digest: imageIndexDescriptor.digest,
    manifests: Object.fromEntries(
      platforms.map(({ image, blobs: b }) => [image.architecture, b.manifest.digest]),
    ),
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
