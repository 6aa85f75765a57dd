/**
 * Regenerates `test/golden/*.k8s.yaml` from `examples/*.yaml` (npm run gen), or with `--check` exits 1 when a
 * golden file is missing, stale or orphaned (npm run gen:check, in CI). `--dir DIR` points it elsewhere (tests).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { GOLDEN_DIR, goldenFilesOnDisk, renderGoldenFiles } from '../support/golden.ts';

const { values } = parseArgs({
  options: { check: { type: 'boolean', default: false }, dir: { type: 'string', default: GOLDEN_DIR } },
});
const check = values.check;
const dir = values.dir;
const expected = renderGoldenFiles();
const drift: string[] = [];

for (const [name, content] of expected) {
  const path = join(dir, name);
  let current: string | undefined;
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === content) continue;
  drift.push(`${current === undefined ? 'missing' : 'stale'}: ${relative(process.cwd(), path)}`);
  if (!check) writeFileSync(path, content);
}
for (const name of goldenFilesOnDisk(dir)) {
  if (expected.has(name)) continue;
  drift.push(`orphaned (no example renders it): ${relative(process.cwd(), join(dir, name))}`);
  if (!check) rmSync(join(dir, name));
}

if (check && drift.length > 0) {
  process.stderr.write(
    `${drift.join('\n')}\nThe golden files are out of date. Regenerate with: npm run gen\n`,
  );
  process.exitCode = 1;
} else if (!check) {
  process.stdout.write(drift.length > 0 ? `updated:\n${drift.join('\n')}\n` : 'golden files up to date\n');
}
