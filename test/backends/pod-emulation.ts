/**
 * Runs a container of a rendered pod the way a kubelet and a container runtime would, without either: a private
 * mount namespace (`unshare -m`), a read-only root built from the host's system directories (standing in for
 * the image), every volumeMount bind-mounted at its path, ConfigMap volumes laid out as the kubelet's atomic
 * writer lays them out (a timestamped directory, `..data`, one symlink per key, modes and group from the pod's
 * `fsGroup`, the mount read-only), `subPath` mounts as the single resolved file, emptyDirs writable
 * (mode 2777, group fsGroup), the container's env only, its uid/gid and fsGroup as a supplementary group.
 * Needs root (as CI runs); the network namespace stays the host's (127.0.0.1 shared with the test) unless
 * `netns` names a pod's own.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { KubeObject } from '../../constructs/src/render.ts';
import {
  CODEBOX_BINARY,
  CONFINE_BINARY,
  hostConfinePath,
} from '../../toolchain-server/scripts/build-confine.ts';
import { BUNDLE_PATH } from '../../toolchain-server/scripts/bundle.ts';

interface KeyToPath {
  readonly key: string;
  readonly path: string;
  readonly mode?: number;
}

interface KeyedSource {
  readonly name: string;
  readonly items?: readonly KeyToPath[];
  readonly defaultMode?: number;
}

export interface PodVolume {
  readonly name: string;
  readonly emptyDir?: Record<string, unknown>;
  readonly configMap?: KeyedSource;
  readonly secret?: {
    readonly secretName: string;
    readonly items?: readonly KeyToPath[];
    readonly defaultMode?: number;
  };
  readonly projected?: {
    readonly defaultMode?: number;
    readonly sources: readonly {
      readonly configMap?: KeyedSource;
      readonly secret?: KeyedSource;
    }[];
  };
  /** A claim: the host directory the test gives for it (`claims`), standing in for its volume. */
  readonly persistentVolumeClaim?: { readonly claimName: string };
}

export interface VolumeMount {
  readonly name: string;
  readonly mountPath: string;
  readonly subPath?: string;
  readonly readOnly?: boolean;
}

export interface ContainerSpec {
  readonly name: string;
  readonly command?: readonly string[];
  readonly args?: readonly string[];
  readonly env?: readonly { readonly name: string; readonly value?: string; readonly valueFrom?: unknown }[];
  readonly volumeMounts?: readonly VolumeMount[];
  readonly securityContext?: {
    readonly runAsUser?: number;
    readonly runAsGroup?: number;
    readonly readOnlyRootFilesystem?: boolean;
  };
}

export interface PodSpec {
  readonly securityContext?: {
    readonly runAsUser?: number;
    readonly runAsGroup?: number;
    readonly fsGroup?: number;
  };
  readonly containers: readonly ContainerSpec[];
  readonly volumes?: readonly PodVolume[];
}

/** The pod template of a rendered workload (the first, or the one named), and the ConfigMaps it mounts. */
export function renderedPod(
  objects: readonly KubeObject[],
  workloadName?: string,
): {
  pod: PodSpec;
  configMaps: Map<string, Record<string, string>>;
} {
  const workload = objects.find(
    (o) =>
      (o.kind === 'Deployment' || o.kind === 'StatefulSet') &&
      (workloadName === undefined || o.metadata.name === workloadName),
  );
  if (!workload) throw new Error(`rendered objects hold no workload ${workloadName ?? ''}`);
  const pod = (workload as unknown as { spec: { template: { spec: PodSpec } } }).spec.template.spec;
  const configMaps = new Map<string, Record<string, string>>();
  for (const object of objects)
    if (object.kind === 'ConfigMap')
      configMaps.set(object.metadata.name, (object as unknown as { data: Record<string, string> }).data);
  return { pod, configMaps };
}

/** The kubelet's SetVolumeOwnership: group fsGroup, group-readable (+x and setgid on directories). */
function applyOwnership(path: string, fsGroup: number | undefined): void {
  if (fsGroup === undefined) return;
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return;
  chownSync(path, stat.uid, fsGroup);
  const mask = stat.isDirectory() ? 0o440 | 0o110 | 0o2000 : 0o440;
  chmodSync(path, (stat.mode & 0o7777) | mask);
  if (stat.isDirectory()) for (const entry of readdirSync(path)) applyOwnership(join(path, entry), fsGroup);
}

/**
 * The volumes of one pod, materialized on the host once and shared by its containers. Secrets are the test's
 * values (`secrets`: Secret name → key → value), laid out like ConfigMaps, as the kubelet does.
 */
export class PodVolumes {
  readonly root: string;
  readonly pod: PodSpec;
  private readonly configMaps: Map<string, Record<string, string>>;
  private readonly secrets: ReadonlyMap<string, Record<string, string>>;
  private readonly claims: ReadonlyMap<string, string>;
  private readonly paths = new Map<string, string>();

  constructor(
    root: string,
    pod: PodSpec,
    configMaps: Map<string, Record<string, string>>,
    secrets: ReadonlyMap<string, Record<string, string>> = new Map(),
    /** Host directories standing in for PersistentVolumeClaims, by claim name (a provisioned volume). */
    claims: ReadonlyMap<string, string> = new Map(),
  ) {
    this.root = root;
    this.pod = pod;
    this.configMaps = configMaps;
    this.secrets = secrets;
    this.claims = claims;
    mkdirSync(root, { recursive: true });
    chmodSync(root, 0o755);
  }

  /**
   * The values of `container`'s `secretKeyRef` env entries, as the kubelet resolves them from this pod's Secrets
   * (an entry whose Secret or key is not there is left out).
   */
  secretEnv(container: string): Record<string, string> {
    const env: Record<string, string> = {};
    for (const entry of this.pod.containers.find((c) => c.name === container)?.env ?? []) {
      const ref = (entry.valueFrom as { secretKeyRef?: { name: string; key: string } } | undefined)
        ?.secretKeyRef;
      const value = ref && this.secrets.get(ref.name)?.[ref.key];
      if (value !== undefined) env[entry.name] = value;
    }
    return env;
  }

  /** Host directory of a volume, laid out on first use. */
  hostPath(name: string): string {
    const existing = this.paths.get(name);
    if (existing) return existing;
    const volume = (this.pod.volumes ?? []).find((v) => v.name === name);
    if (!volume) throw new Error(`pod has no volume "${name}"`);
    if (volume.persistentVolumeClaim) {
      const claimed = this.claims.get(volume.persistentVolumeClaim.claimName);
      if (!claimed)
        throw new Error(
          `volume "${name}": no host directory for claim ${volume.persistentVolumeClaim.claimName}`,
        );
      this.paths.set(name, claimed);
      return claimed;
    }
    const dir = join(this.root, name);
    const fsGroup = this.pod.securityContext?.fsGroup;
    mkdirSync(dir);
    // emptyDir and the emptyDir that wraps a ConfigMap are created 0777 before ownership is applied.
    chmodSync(dir, 0o777);
    if (volume.configMap) this.writeKeys(dir, [this.keyed('ConfigMap', volume.configMap)]);
    else if (volume.secret)
      this.writeKeys(dir, [
        this.keyed('Secret', {
          name: volume.secret.secretName,
          ...(volume.secret.items ? { items: volume.secret.items } : {}),
          defaultMode: volume.secret.defaultMode ?? 0o644,
        }),
      ]);
    else if (volume.projected)
      this.writeKeys(
        dir,
        volume.projected.sources.map((source) =>
          source.configMap
            ? this.keyed('ConfigMap', { defaultMode: volume.projected?.defaultMode, ...source.configMap })
            : source.secret
              ? this.keyed('Secret', { defaultMode: volume.projected?.defaultMode, ...source.secret })
              : (() => {
                  throw new Error(`volume "${name}": only configMap and secret projections are emulated`);
                })(),
        ),
      );
    else if (!volume.emptyDir)
      throw new Error(`volume "${name}": only emptyDir, configMap, secret and projected are emulated`);
    applyOwnership(dir, fsGroup);
    this.paths.set(name, dir);
    return dir;
  }

  /** One source's files: its data, and which keys go where with which mode. */
  private keyed(
    kind: 'ConfigMap' | 'Secret',
    source: { name: string; items?: readonly KeyToPath[]; defaultMode?: number | undefined },
  ): { data: Record<string, string>; items: readonly KeyToPath[]; label: string } {
    const data = (kind === 'ConfigMap' ? this.configMaps : this.secrets).get(source.name);
    const label = `${kind} "${source.name}"`;
    if (!data)
      throw new Error(
        kind === 'ConfigMap'
          ? `${label} is not among the rendered objects`
          : `${label}: no test value (pass it to PodVolumes)`,
      );
    const listed: readonly KeyToPath[] = source.items ?? Object.keys(data).map((key) => ({ key, path: key }));
    const items = listed.map((item) => ({
      ...item,
      mode: item.mode ?? source.defaultMode ?? 0o644,
    }));
    return { data, items, label };
  }

  /** The atomic writer's layout: `..<timestamp>/` with the files, `..data` → it, `<top>` → `..data/<top>`. */
  private writeKeys(
    dir: string,
    sources: readonly { data: Record<string, string>; items: readonly KeyToPath[]; label: string }[],
  ): void {
    const stamp = `..${new Date()
      .toISOString()
      .replace(/[-:T.Z]/g, '_')
      .slice(0, 26)}${process.pid}`;
    const payload = join(dir, stamp);
    mkdirSync(payload, { mode: 0o755 });
    chmodSync(payload, 0o755);
    const tops = new Set<string>();
    for (const { data, items, label } of sources)
      for (const item of items) {
        const content = data[item.key];
        if (content === undefined) throw new Error(`${label} has no key "${item.key}"`);
        const file = join(payload, item.path);
        mkdirSync(dirname(file), { recursive: true, mode: 0o755 });
        writeFileSync(file, content);
        chmodSync(file, item.mode ?? 0o644);
        tops.add(item.path.split('/')[0] as string);
      }
    symlinkSync(stamp, join(dir, '..data'));
    for (const top of tops) symlinkSync(join('..data', top), join(dir, top));
  }
}

export interface RunOptions {
  /** Host directories that stand in for the image, mounted read-only at the given paths. */
  readonly imageMounts?: Readonly<Record<string, string>>;
  /** The image's own environment (PATH); the container's env is applied over it. */
  readonly imageEnv?: Readonly<Record<string, string>>;
  /** Values for env entries that come from Secrets (`valueFrom.secretKeyRef`), by variable name. */
  readonly secretEnv?: Readonly<Record<string, string>>;
  /** Extra /etc/hosts lines, e.g. a gateway Service name → 127.0.0.1. */
  readonly hosts?: readonly string[];
  /** Replaces the container's command and args (a backend image's own entrypoint). */
  readonly argv?: readonly string[];
  /** Working directory inside the container. */
  readonly cwd?: string;
  /** argv prefix that enters the pod's network namespace (`ip netns exec <ns>`); default: the host's. */
  readonly netns?: readonly string[];
  readonly timeoutMs?: number;
}

export interface RunResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Host system directories that make up the stand-in image (read-only). */
const IMAGE_DIRS = ['usr', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The environment a container process starts with: the image's, then the container's `env` in order. */
export function containerEnv(container: ContainerSpec, options: RunOptions): Record<string, string> {
  const env: Record<string, string> = { ...options.imageEnv };
  for (const entry of container.env ?? []) {
    if (entry.value !== undefined)
      env[entry.name] = entry.value.replace(
        /\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g,
        (_, n: string) => env[n] ?? `$(${n})`,
      );
    else if (entry.valueFrom) {
      const value = options.secretEnv?.[entry.name];
      if (value === undefined)
        throw new Error(`container "${container.name}": no test value for secret env ${entry.name}`);
      env[entry.name] = value;
    }
  }
  return env;
}

/** The shell script that builds the container's root and execs its process; run inside `unshare -m`. */
export function containerScript(
  volumes: PodVolumes,
  container: ContainerSpec,
  options: RunOptions,
  newRoot: string,
): string {
  const pod = volumes.pod;
  const uid = container.securityContext?.runAsUser ?? pod.securityContext?.runAsUser ?? 0;
  const gid = container.securityContext?.runAsGroup ?? pod.securityContext?.runAsGroup ?? 0;
  const fsGroup = pod.securityContext?.fsGroup;
  const q = shellQuote;
  const lines = [
    'set -eu',
    'mount --make-rprivate /',
    `R=${q(newRoot)}`,
    'mount -t tmpfs -o mode=0755 toolyard-root "$R"',
  ];
  for (const dir of IMAGE_DIRS) {
    const host = `/${dir}`;
    if (!existsSync(host)) continue;
    if (lstatSync(host).isSymbolicLink()) lines.push(`ln -s "$(readlink ${q(host)})" "$R"/${dir}`);
    else
      lines.push(
        `mkdir "$R"/${dir}`,
        `mount --rbind ${q(host)} "$R"/${dir}`,
        `mount -o remount,bind,ro "$R"/${dir}`,
      );
  }
  // /etc is copied, so that mountpoints can be made in it and /etc/hosts can name the pod's Services.
  lines.push(
    'cp -a /etc "$R"/etc',
    'mkdir -p "$R"/proc "$R"/dev "$R"/sys',
    'mount --rbind /dev "$R"/dev',
    'mount -t proc proc "$R"/proc',
  );
  lines.push(
    `printf '%s\\n' ${['127.0.0.1 localhost', ...(options.hosts ?? [])].map(q).join(' ')} > "$R"/etc/hosts`,
  );
  for (const [path, host] of Object.entries(options.imageMounts ?? {}))
    lines.push(
      `mkdir -p "$R"${q(path)}`,
      `mount --rbind ${q(host)} "$R"${q(path)}`,
      `mount -o remount,bind,ro "$R"${q(path)}`,
    );
  for (const mount of container.volumeMounts ?? []) {
    const volume = (pod.volumes ?? []).find((v) => v.name === mount.name);
    const source = mount.subPath
      ? join(volumes.hostPath(mount.name), mount.subPath)
      : volumes.hostPath(mount.name);
    const target = `"$R"${q(mount.mountPath)}`;
    // A subPath mount binds the resolved path: for a ConfigMap key, the real file behind its symlinks.
    if (mount.subPath)
      lines.push(
        `mkdir -p "$(dirname ${target})"`,
        `[ -d ${q(source)} ] && mkdir -p ${target} || touch ${target}`,
        `mount --bind "$(readlink -f ${q(source)})" ${target}`,
      );
    else lines.push(`mkdir -p ${target}`, `mount --bind ${q(source)} ${target}`);
    // ConfigMap, Secret and projected volumes are always mounted read-only by the kubelet.
    if (mount.readOnly || volume?.configMap || volume?.secret || volume?.projected)
      lines.push(`mount -o remount,bind,ro ${target}`);
  }
  if (container.securityContext?.readOnlyRootFilesystem) lines.push('mount -o remount,ro "$R"');
  const argv = options.argv ?? [...(container.command ?? []), ...(container.args ?? [])];
  if (argv.length === 0) throw new Error(`container "${container.name}": no command to run`);
  const env = containerEnv(container, options);
  const groups = fsGroup !== undefined && fsGroup !== gid ? `${gid},${fsGroup}` : String(gid);
  lines.push(
    `exec chroot --userspec=${uid}:${gid} --groups=${groups} "$R" /usr/bin/env -i -C ${q(options.cwd ?? '/')} ${Object.entries(
      env,
    )
      .map(([k, v]) => q(`${k}=${v}`))
      .join(' ')} ${argv.map(q).join(' ')}`,
  );
  return `${lines.join('\n')}\n`;
}

/** Runs one container of the pod to completion (or until the timeout) and collects its output. */
export function runContainer(
  volumes: PodVolumes,
  containerName: string,
  options: RunOptions = {},
): Promise<RunResult> {
  const { child, done } = startContainer(volumes, containerName, options);
  child.stdin?.end();
  return done;
}

export interface StartedContainer {
  readonly child: ReturnType<typeof spawn>;
  readonly done: Promise<RunResult>;
}

/** Starts one container of the pod; `done` settles when it exits. */
export function startContainer(
  volumes: PodVolumes,
  containerName: string,
  options: RunOptions = {},
): StartedContainer {
  const container = volumes.pod.containers.find((c) => c.name === containerName);
  if (!container) throw new Error(`pod has no container "${containerName}"`);
  const newRoot = join(volumes.root, `..root-${containerName}`);
  mkdirSync(newRoot, { recursive: true });
  const script = containerScript(volumes, container, options, newRoot);
  const argv = [
    ...(options.netns ?? []),
    'unshare',
    '--mount',
    '--propagation',
    'private',
    'bash',
    '-c',
    script,
  ];
  const child = spawn(argv[0] as string, argv.slice(1), {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const timer = options.timeoutMs
    ? setTimeout(() => {
        stderr += `\n[pod-emulation] killed after ${options.timeoutMs} ms\n`;
        try {
          process.kill(-(child.pid as number), 'SIGKILL');
        } catch {}
      }, options.timeoutMs)
    : undefined;
  const done = new Promise<RunResult>((resolve) => {
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, done };
}

/**
 * The init container's copy (`cp -R /opt/toolyard/. /toolyard/` from the toolchain-server image) into the pod's
 * server bundle volume: a Node runtime (this process's), the server bundle, and the helpers the images carry
 * beside them in `bin/` — `toolyard-confine` (kernel confinement of every call) and `toolyard-codebox` (code
 * mode's last step) — from `npm run build:server`'s dist tree. Without the helpers a best-effort server runs its
 * calls unconfined and `run_code` is unavailable, which no real pod does. Returns the volume's host directory.
 */
export function installServerBundle(volumes: PodVolumes, volume = 'toolyard-server'): string {
  const helpers = [CONFINE_BINARY, CODEBOX_BINARY] as const;
  const missing = [BUNDLE_PATH, ...helpers.map((h) => hostConfinePath(h))].filter((f) => !existsSync(f));
  if (missing.length > 0) throw new Error(`missing ${missing.join(', ')}; run: npm run build:server`);
  const dir = volumes.hostPath(volume);
  mkdirSync(join(dir, 'bin'));
  copyFileSync(process.execPath, join(dir, 'bin', 'node'));
  copyFileSync(BUNDLE_PATH, join(dir, 'toolchain-server.mjs'));
  for (const helper of helpers) copyFileSync(hostConfinePath(helper), join(dir, 'bin', helper));
  return dir;
}

export interface StartedServer extends StartedContainer {
  /** Every JSON line the server wrote to stdout (its events and audit lines), in order, as they come. */
  readonly lines: Record<string, unknown>[];
  /** Kills the container's process group. */
  stop(): void;
}

/**
 * Starts a toolchain server container of the pod and resolves once it listens (its `listening` event), collecting
 * its JSON lines; rejects with its output when it exits or does not listen within `timeoutMs`.
 */
export function startServer(
  volumes: PodVolumes,
  containerName: string,
  options: RunOptions = {},
  timeoutMs = 30_000,
): Promise<StartedServer> {
  const started = startContainer(volumes, containerName, options);
  const lines: Record<string, unknown>[] = [];
  const stop = () => {
    try {
      process.kill(-(started.child.pid as number), 'SIGKILL');
    } catch {}
  };
  return new Promise<StartedServer>((resolve, reject) => {
    let pending = '';
    let listening = false;
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`${containerName} did not start within ${timeoutMs} ms: ${JSON.stringify(lines)}`));
    }, timeoutMs);
    started.child.stdout?.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const complete = pending.split('\n');
      pending = complete.pop() as string;
      for (const line of complete) {
        let event: Record<string, unknown>;
        try {
          event = JSON.parse(line) as Record<string, unknown>;
        } catch {
          continue;
        }
        lines.push(event);
        if (event.event === 'listening' && !listening) {
          listening = true;
          clearTimeout(timer);
          resolve({ ...started, lines, stop });
        }
      }
    });
    void started.done.then((r) => {
      clearTimeout(timer);
      if (!listening) reject(new Error(`${containerName} exited ${r.code}: ${r.stderr}${r.stdout}`));
    });
  });
}

/** True when this process can build mount namespaces (root with `unshare` and `chroot`). */
export function canEmulatePods(): string | undefined {
  if (process.getuid?.() !== 0)
    return 'the backend end-to-end test emulates pods with mount namespaces and needs root';
  try {
    execFileSync('unshare', ['--mount', 'true']);
  } catch (error) {
    return `unshare --mount failed: ${(error as Error).message}`;
  }
  return undefined;
}
