/**
 * Builds the confinement helper `toolyard-confine` (toolchain-server/confine/toolyard-confine.c) for every
 * image architecture into `toolchain-server/dist/confine/<oci-arch>/toolyard-confine`, reproducibly: fixed
 * flags, source paths mapped to `.`, no build id, stripped, one compiler per architecture (Debian's `gcc` for
 * amd64 on amd64 hosts, `aarch64-linux-gnu-gcc` from `gcc-aarch64-linux-gnu` for arm64, and the other way round
 * on arm64 hosts). The output depends only on the source and the compiler version.
 */
import { execFile } from 'node:child_process';
import { mkdir, rename, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const serverRoot = join(here, '..');
export const CONFINE_SOURCE = join(serverRoot, 'confine', 'toolyard-confine.c');
export const CONFINE_DIST = join(serverRoot, 'dist', 'confine');
/** The helper's file name, also its name in `<bundleDir>/bin/`. */
export const CONFINE_BINARY = 'toolyard-confine';

/** Architectures the images are built for (OCI names), with the ELF machine each binary must carry. */
export const CONFINE_ARCHITECTURES = {
  amd64: { gnu: 'x86_64-linux-gnu', elfMachine: 62, extraFlags: ['-fcf-protection=none'] },
  arm64: { gnu: 'aarch64-linux-gnu', elfMachine: 183, extraFlags: [] as string[] },
} as const;
export type ConfineArchitecture = keyof typeof CONFINE_ARCHITECTURES;

/** Every flag, fixed: freestanding, static, no PIE, no unwind tables, no build id, stripped. */
export const CONFINE_FLAGS = [
  '-std=c11',
  '-Os',
  '-ffreestanding',
  '-fno-builtin',
  '-nostdlib',
  '-static',
  '-fno-pie',
  '-no-pie',
  '-fno-stack-protector',
  '-fno-asynchronous-unwind-tables',
  '-fno-unwind-tables',
  '-ffunction-sections',
  '-fdata-sections',
  '-Wall',
  '-Wextra',
  '-Werror',
  '-Wl,--build-id=none',
  '-Wl,--gc-sections',
  '-Wl,-z,noexecstack',
  '-Wl,-z,noseparate-code',
  '-s',
] as const;

/** The compiler for `arch` on this host: the native `gcc` when the host is that architecture, else the cross one. */
export function compilerFor(arch: ConfineArchitecture, hostArch = process.arch): string {
  const native = (hostArch === 'x64' && arch === 'amd64') || (hostArch === 'arm64' && arch === 'arm64');
  return native ? 'gcc' : `${CONFINE_ARCHITECTURES[arch].gnu}-gcc`;
}

/** Compiles the helper for one architecture into `outFile` (default: the dist path). */
export async function buildConfine(
  arch: ConfineArchitecture,
  outFile = join(CONFINE_DIST, arch, CONFINE_BINARY),
): Promise<string> {
  await mkdir(dirname(outFile), { recursive: true });
  const compiler = compilerFor(arch);
  const temp = `${outFile}.tmp-${process.pid}`;
  try {
    await run(
      compiler,
      [
        ...CONFINE_FLAGS,
        ...CONFINE_ARCHITECTURES[arch].extraFlags,
        `-ffile-prefix-map=${serverRoot}=.`,
        '-o',
        temp,
        relative(serverRoot, CONFINE_SOURCE),
      ],
      {
        cwd: serverRoot,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', SOURCE_DATE_EPOCH: '0' },
      },
    );
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT')
      throw new Error(
        `${compiler} is not installed: install Debian's ${compiler === 'gcc' ? 'gcc' : `gcc-${CONFINE_ARCHITECTURES[arch].gnu}`} (see .ci/run)`,
      );
    throw new Error(`${compiler} failed to build ${CONFINE_BINARY} for ${arch}:\n${e.stderr ?? e.message}`);
  }
  await rename(temp, outFile);
  return outFile;
}

/** Builds every architecture; returns the paths with their sizes. */
export async function buildAllConfine(): Promise<
  Array<{ arch: ConfineArchitecture; path: string; bytes: number }>
> {
  const out = [];
  for (const arch of Object.keys(CONFINE_ARCHITECTURES) as ConfineArchitecture[]) {
    const path = await buildConfine(arch);
    out.push({ arch, path, bytes: (await stat(path)).size });
  }
  return out;
}

/** The helper for the architecture this process runs on, from the dist tree. */
export function hostConfinePath(): string {
  const arch = process.arch === 'arm64' ? 'arm64' : 'amd64';
  return join(CONFINE_DIST, arch, CONFINE_BINARY);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const { arch, path, bytes } of await buildAllConfine())
    process.stdout.write(`${arch}: ${relative(process.cwd(), path)} (${bytes} bytes)\n`);
}
