/**
 * `npm run images [name…]`: builds toolyard's images as OCI archives in dist/images/ without Docker (see
 * images/src/build.ts). Names limit the build to some images.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IMAGES, imageNamed } from '../definitions.ts';
import { buildImages } from '../src/build.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const names = process.argv.slice(2);
const started = performance.now();
const built = await buildImages({
  root,
  outDir: join(root, 'dist', 'images'),
  images: names.length > 0 ? names.map(imageNamed) : IMAGES,
  log: (line) => process.stdout.write(`${line}\n`),
});
const cached = built.filter((image) => image.rootfsFromCache).length;
process.stdout.write(
  `${built.length} image(s) in dist/images/ in ${((performance.now() - started) / 1000).toFixed(0)} s (${cached} root filesystem(s) from the cache)\n`,
);
