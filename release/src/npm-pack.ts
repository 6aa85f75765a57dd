/** `npm pack` of the repository (its `prepack` builds lib/ and the server bundle first), with npm's report. */
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { npmCliScript } from './node-runtime.ts';

const run = promisify(execFile);

export interface PackedPackage {
  /** Absolute path of the .tgz. */
  readonly tarball: string;
  /** Paths inside the package, as npm lists them (relative to `package/`). */
  readonly files: readonly string[];
  readonly integrity: string;
}

interface NpmPackReport {
  filename: string;
  integrity: string;
  files: { path: string }[];
}

export async function npmPack(root: string, destination: string): Promise<PackedPackage> {
  await mkdir(destination, { recursive: true });
  const { stdout } = await run(
    process.execPath,
    [await npmCliScript(), 'pack', '--json', '--pack-destination', destination],
    { cwd: root, maxBuffer: 64 * 1024 * 1024 },
  ).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`npm pack failed:\n${error.stderr ?? ''}${error.stdout ?? ''}`);
  });
  // Lifecycle scripts (prepack) print to the same stdout before npm's JSON report.
  const report = JSON.parse(stdout.slice(stdout.lastIndexOf('\n[\n') + 1)) as NpmPackReport[];
  const [packed] = report;
  if (!packed) throw new Error('npm pack reported no package');
  return {
    tarball: join(destination, packed.filename),
    files: packed.files.map((file) => file.path).sort(),
    integrity: packed.integrity,
  };
}
