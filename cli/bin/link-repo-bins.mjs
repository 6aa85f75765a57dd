#!/usr/bin/env node
// postinstall: npm links the bins of dependencies into node_modules/.bin, never the root package's own, so
// `npx toolyard-toolchain-server` would not resolve in a checkout. Link every bin of package.json there.
// Plain JavaScript on purpose: npm may run it with whatever Node the machine has.
import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { bin = {} } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const binDir = join(root, 'node_modules', '.bin');
mkdirSync(binDir, { recursive: true });
for (const [name, target] of Object.entries(bin)) {
  const link = join(binDir, name);
  rmSync(link, { force: true });
  symlinkSync(relative(binDir, join(root, target)), link);
  chmodSync(join(root, target), 0o755);
}
