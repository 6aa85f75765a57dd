/** `npm run build:lib`: the package's compiled library and CLI in lib/ (see release/src/build-lib.ts). */
import { fileURLToPath } from 'node:url';
import { buildLib } from '../src/build-lib.ts';

const out = await buildLib(fileURLToPath(new URL('../../', import.meta.url)));
process.stdout.write(`${out}\n`);
