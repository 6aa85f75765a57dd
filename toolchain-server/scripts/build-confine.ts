/**
 * Builds the confinement helper `toolyard-confine` (toolchain-server/confine/toolyard-confine.c) and code mode's
 * `toolyard-codebox` (toolyard-codebox.c, docs/code-mode.md) for every image architecture into
 * `toolchain-server/dist/confine/<oci-arch>/<name>`, reproducibly: fixed
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
/** Code mode's last step before the interpreter (channel, limits, no sockets), also in `<bundleDir>/bin/`. */
export const CODEBOX_BINARY = 'toolyard-codebox';
export const CODEBOX_SOURCE = join(serverRoot, 'confine', 'toolyard-codebox.c');
/** The freestanding binaries built here, by file name. */
export const CONFINE_PROGRAMS = {
  [CONFINE_BINARY]: CONFINE_SOURCE,
  [CODEBOX_BINARY]: CODEBOX_SOURCE,
} as const;
export type ConfineProgram = keyof typeof CONFINE_PROGRAMS;

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

/** Compiles the helper (or `program`) for one architecture into `outFile` (default: the dist path). */
export async function buildConfine(
  arch: ConfineArchitecture,
  outFile?: string,
  program: ConfineProgram = CONFINE_BINARY,
): Promise<string> {
  outFile ??= join(CONFINE_DIST, arch, program);
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
        relative(serverRoot, CONFINE_PROGRAMS[program]),
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
    throw new Error(`${compiler} failed to build ${program} for ${arch}:\n${e.stderr ?? e.message}`);
  }
  await rename(temp, outFile);
  return outFile;
}

/** Builds every program for every architecture; returns the paths with their sizes. */
export async function buildAllConfine(): Promise<
  Array<{ arch: ConfineArchitecture; path: string; bytes: number }>
> {
  const out = [];
  for (const arch of Object.keys(CONFINE_ARCHITECTURES) as ConfineArchitecture[])
    for (const program of Object.keys(CONFINE_PROGRAMS) as ConfineProgram[]) {
      const path = await buildConfine(arch, undefined, program);
      out.push({ arch, path, bytes: (await stat(path)).size });
    }
  return out;
}

/** The helper (or `program`) for the architecture this process runs on, from the dist tree. */
export function hostConfinePath(program: ConfineProgram = CONFINE_BINARY): string {
  const arch = process.arch === 'arm64' ? 'arm64' : 'amd64';
  return join(CONFINE_DIST, arch, program);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const { arch, path, bytes } of await buildAllConfine())
    process.stdout.write(`${arch}: ${relative(process.cwd(), path)} (${bytes} bytes)\n`);
}
