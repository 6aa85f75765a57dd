/**
 * `npm run bench:images`: how long `npm run images` takes and what it produces. Builds every image into a
 * temporary directory with the root filesystem cache as it is (run it once before to measure a warm cache;
 * `--cold` uses an empty cache of its own, which downloads and unpacks every Debian package again), then prints
 * per-image archive sizes, layer sizes and the total time.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildImages } from '../images/src/build.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const cold = process.argv.includes('--cold');
const out = await mkdtemp(join(tmpdir(), 'toolyard-bench-images-'));
let cache: string | undefined;
if (cold) {
  cache = await mkdtemp(join(tmpdir(), 'toolyard-bench-cache-'));
  process.env['XDG_CACHE_HOME'] = cache;
}
try {
  const started = performance.now();
  const built = await buildImages({ root, outDir: out });
  const seconds = (performance.now() - started) / 1000;
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  process.stdout.write(
    `images benchmark (${cold ? 'empty cache' : 'cache as found'}, node ${process.version})\n\n`,
  );
  process.stdout.write('| image | archive MiB | root filesystem from cache |\n| --- | ---: | --- |\n');
  for (const image of built)
    process.stdout.write(
      `| ${image.name} | ${mib(image.archiveSize)} | ${image.rootfsFromCache ? 'yes' : 'no'} |\n`,
    );
  process.stdout.write(`\ntotal: ${seconds.toFixed(0)} s for ${built.length} images\n`);
} finally {
  await rm(out, { recursive: true, force: true });
  if (cache) await rm(cache, { recursive: true, force: true });
}
