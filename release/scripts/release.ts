/** `npm run release`: the npm tarball, chart packages + index.yaml, images + images.json and SHA256SUMS in dist/release/. */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assembleRelease } from '../src/release.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const release = await assembleRelease({
  root,
  outDir: join(root, 'dist', 'release'),
  log: (line) => process.stderr.write(`${line}\n`),
});
process.stdout.write(release.sums);
