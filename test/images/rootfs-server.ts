/**
 * Runs an image the way a container runtime would, without one: the archive unpacked by umoci into a root
 * filesystem, the entrypoint started inside it with chroot as uid/gid 65532, in its own mount and PID
 * namespaces (a fresh /proc, the host's /dev), with exactly the image's environment. The server binds
 * 127.0.0.1 in the host's network namespace, where the test reaches it.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { listeningPort } from '../../toolchain-server/scripts/listening-port.ts';

const run = promisify(execFile);

export interface OciImageConfig {
  readonly created: string;
  readonly architecture: string;
  readonly config: {
    readonly User: string;
    readonly Env: readonly string[];
    readonly Entrypoint: readonly string[];
    readonly Cmd: readonly string[];
    readonly WorkingDir: string;
    readonly Labels: Readonly<Record<string, string>>;
  };
}

export interface UnpackedImage {
  readonly rootfs: string;
  readonly config: OciImageConfig;
  readonly tag: string;
}

interface IndexEntry {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
  readonly platform?: { readonly architecture: string; readonly os: string };
  readonly annotations?: Record<string, string>;
}

/**
 * `tar -x` of the archive into an OCI layout; its one tag names an image index with a manifest per
 * architecture; the manifest of `architecture` is tagged `<tag>-<architecture>` in the layout (as a registry
 * resolves a multi-architecture image for a node) and `umoci unpack`ed into `dir/bundle`.
 */
export async function unpackImage(
  archive: string,
  dir: string,
  architecture = 'amd64',
): Promise<UnpackedImage> {
  const layout = join(dir, 'layout');
  mkdirSync(layout, { recursive: true });
  await run('tar', ['-xf', archive, '-C', layout]);
  const blob = (digest: string) =>
    readFileSync(join(layout, 'blobs', 'sha256', digest.replace(/^sha256:/, '')), 'utf8');
  const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8')) as { manifests: IndexEntry[] };
  const [entry] = index.manifests;
  if (!entry || index.manifests.length !== 1) throw new Error(`${archive}: expected one image in index.json`);
  if (entry.mediaType !== 'application/vnd.oci.image.index.v1+json')
    throw new Error(`${archive}: its tag names a ${entry.mediaType}, not a multi-architecture image index`);
  const tag = entry.annotations?.['org.opencontainers.image.ref.name'];
  if (!tag) throw new Error(`${archive}: the image index has no tag`);
  const imageIndex = JSON.parse(blob(entry.digest)) as { manifests: IndexEntry[] };
  const platform = imageIndex.manifests.find((m) => m.platform?.architecture === architecture);
  if (!platform) throw new Error(`${archive}: no ${architecture} manifest in the image index`);
  const manifest = JSON.parse(blob(platform.digest)) as { config: { digest: string } };
  const config = JSON.parse(blob(manifest.config.digest)) as OciImageConfig;
  const platformTag = `${tag}-${architecture}`;
  writeFileSync(
    join(layout, 'index.json'),
    JSON.stringify({
      ...index,
      manifests: [
        {
          mediaType: platform.mediaType,
          digest: platform.digest,
          size: platform.size,
          annotations: { 'org.opencontainers.image.ref.name': platformTag },
        },
      ],
    }),
  );
  await run('umoci', ['unpack', '--image', `${layout}:${platformTag}`, join(dir, 'bundle')], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return { rootfs: join(dir, 'bundle', 'rootfs'), config, tag };
}

export interface ChrootServer {
  readonly child: ChildProcess;
  readonly port: number;
  readonly url: string;
  stderr(): string;
  stop(): Promise<void>;
}

/**
 * Starts `argv` in `rootfs` as `user` ("uid:gid") with `env` only, in namespaces that take their mounts with
 * them when the server ends.
 */
export async function startInRootfs(options: {
  readonly rootfs: string;
  readonly argv: readonly string[];
  readonly env: readonly string[];
  readonly user: string;
}): Promise<ChrootServer> {
  if (process.getuid?.() !== 0)
    throw new Error('the image tests chroot into root filesystems: run them as root');
  const script =
    'root="$0"; user="$1"; shift; mount --rbind /dev "$root/dev" && exec chroot --userspec="$user" "$root" /usr/bin/env -i "$@"';
  const child = spawn(
    'unshare',
    [
      '--mount',
      '--pid',
      '--fork',
      `--mount-proc=${join(options.rootfs, 'proc')}`,
      'sh',
      '-c',
      script,
      options.rootfs,
      options.user,
      ...options.env,
      ...options.argv,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // unshare --fork ignores SIGTERM while it waits for its child, and chroot's setuid would clear a parent-death
  // signal: stop kills the server itself, PID 1 of its namespace (the child unshare forked).
  const stop = async () => {
    const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim();
    if (children !== '') process.kill(Number(children.split(' ')[0]), 'SIGKILL');
    await exited;
  };
  const port = await listeningPort(child, { describe: () => stderr, timeoutMs: 30_000 }).catch(
    async (error: unknown) => {
      if (child.exitCode === null) await stop().catch(() => {});
      throw error;
    },
  );
  return {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    stderr: () => stderr,
    stop,
  };
}

/** Writes a toolchain server config into the root filesystem, at the path the image's command names. */
export function writeConfigInRootfs(rootfs: string, path: string, config: unknown): void {
  const target = join(rootfs, path);
  mkdirSync(join(target, '..'), { recursive: true });
  writeFileSync(target, JSON.stringify(config));
}
