/** An image reference and pull policy from the spec's `image` (tag or digest). */
import type { Image } from '../../schema/src/types.generated.ts';
import * as D from './defaults.ts';
import type { PlannedImage } from './plan-types.ts';

export function planImage(image: Image): PlannedImage {
  const reference = image.digest ? `${image.repository}@${image.digest}` : `${image.repository}:${image.tag}`;
  return { reference, pullPolicy: image.pullPolicy ?? D.DEFAULT_PULL_POLICY };
}
