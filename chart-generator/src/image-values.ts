/** The `image` values group every container of a chart gets: registry, repository, tag, digest, pull policy. */
import type { ParsedImage } from './image-reference.ts';
import { group, leaf, type ValueNode } from './values-model.ts';
import { IMAGE_PULL_POLICY } from './values-schemas.ts';

export function imageValues(description: string, image: ParsedImage, pullPolicy: unknown): ValueNode {
  return group('image', description, [
    leaf(
      'registry',
      'Registry host (replaced by global.imageRegistry when that is set).',
      { type: 'string' },
      image.registry,
    ),
    leaf('repository', 'Repository within the registry.', { type: 'string', minLength: 1 }, image.repository),
    leaf('tag', 'Tag (ignored when digest is set).', { type: 'string' }, image.tag),
    leaf(
      'digest',
      'Digest, e.g. sha256:…; wins over tag.',
      { type: 'string', pattern: '^$|^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$' },
      image.digest,
    ),
    leaf('pullPolicy', 'Image pull policy.', IMAGE_PULL_POLICY, pullPolicy),
  ]);
}
