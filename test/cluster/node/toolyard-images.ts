/**
 * toolyard's own images as `npm run images` writes them (dist/images/<name>.oci.tar, tagged with the package
 * version), for the real test node to import under their published names (ghcr.io/toolyard/<name>:<version>),
 * which is what rendered specs reference. The names CoreDNS on the node answers with the fake public host.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { TOOLYARD_IMAGE_PREFIX } from '../../../constructs/src/defaults.ts';
import { REPO_ROOT } from '../../support/golden.ts';
import type { ImageArchive } from './node.ts';

export const IMAGES_DIR = join(REPO_ROOT, 'dist', 'images');

/** Names the fake public host answers to (the node tests' upstreams). */
export const PUBLIC_NAMES = ['upstream.toolyard.test', 'api.anthropic.com'] as const;

export function builtImages(dir = IMAGES_DIR): ImageArchive[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith('.oci.tar'))
    .sort()
    .map((file) => ({
      archive: join(dir, file),
      repository: `${TOOLYARD_IMAGE_PREFIX}/${file.replace(/\.oci\.tar$/, '')}`,
    }));
}
