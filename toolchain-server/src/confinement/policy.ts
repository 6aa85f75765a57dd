/**
 * The Landlock policy of every call, as helper flags. Landlock only allows (a ruleset cannot subtract), so "the
 * whole image read-only except the server's own files" is built by walking down from `/`: a directory that holds
 * none of the denied paths is granted whole; one that holds some is opened up and its entries granted one by one,
 * the denied ones left out. Symbolic links are never granted (their targets are granted, or not, where they live).
 */
import { mkdirSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import type { CacheConfig, ToolchainServerConfig } from '../config.ts';

/** Variables naming download/build caches that stay writable across calls when `env.set` pins them. */
export const CACHE_VARIABLES = [
  'CARGO_HOME',
  'CARGO_TARGET_DIR',
  'GOPATH',
  'GOCACHE',
  'GOMODCACHE',
  'npm_config_cache',
  'NPM_CONFIG_CACHE',
  'PIP_CACHE_DIR',
  'UV_CACHE_DIR',
  'XDG_CACHE_HOME',
  'YARN_CACHE_FOLDER',
  'TF_PLUGIN_CACHE_DIR',
  'HELM_CACHE_HOME',
  'GRADLE_USER_HOME',
] as const;

/** Device files every call may write (Landlock applies to device nodes too). */
const WRITABLE_DEVICES = ['/dev/null', '/dev/zero', '/dev/full'];

/** Directories that hold credentials a command never needs (Kubernetes mounts Secrets and tokens there). */
const ALWAYS_DENIED = ['/run/secrets', '/var/run/secrets'];

function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** Read-only grants that cover `/` except `denied` (absolute real paths). */
export function readOnlyGrants(denied: readonly string[], top = '/'): string[] {
  const deny = [...new Set(denied)].filter((d) => d !== '/' && d !== '');
  const grants: string[] = [];
  const walk = (dir: string) => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.isSymbolicLink()) continue;
      const path = join(dir, entry.name);
      if (deny.includes(path)) continue;
      if (deny.some((d) => d.startsWith(path + sep))) {
        if (entry.isDirectory()) walk(path);
        continue;
      }
      grants.push(path);
    }
  };
  walk(top);
  return grants;
}

export interface StaticPolicy {
  readonly readOnly: readonly string[];
  readonly readWrite: readonly string[];
  /** TCP ports children may connect to; empty: none; undefined: no connect rule (`limits.connect: pod`). */
  readonly connectPorts: readonly number[] | undefined;
  /** Every path a child may not read, as resolved at start (for docs and tests). */
  readonly denied: readonly string[];
  /** Declared caches (`caches`): granted per call by `callPolicy`. */
  readonly caches?: readonly CacheConfig[];
  /** `egressProxy.phase`: with `fetch`, only fetch calls may connect to `proxyPort` and write download caches. */
  readonly phase?: 'always' | 'fetch';
  /** The egress proxy's port (in `connectPorts`), when egressProxy is set. */
  readonly proxyPort?: number;
}

/** What one call may do beyond the static policy: whether it is a structured fetch tool's call. */
export interface CallKind {
  readonly fetch: boolean;
}

/** Whether a call gets the egress proxy (its variables and the connect rule). */
export function callHasEgress(policy: Pick<StaticPolicy, 'phase'>, call: CallKind): boolean {
  return policy.phase !== 'fetch' || call.fetch;
}

/**
 * The policy of one call: the static policy plus each declared cache, read-write or read-only. A `read-only`
 * consumer's cache is read-only in every call; under `phase: fetch` a `download` cache is writable only in
 * fetch calls (they run no project code), and every other call loses the connect rule to the proxy's port. `build` caches of
 * a read-write consumer stay writable in every call.
 */
export function callPolicy(policy: StaticPolicy, call: CallKind): StaticPolicy {
  const egress = callHasEgress(policy, call);
  const caches = policy.caches ?? [];
  if (caches.length === 0 && egress) return policy;
  const writable = (cache: CacheConfig) =>
    cache.access === 'read-write' && (cache.kind === 'build' || egress);
  return {
    ...policy,
    readOnly: [...policy.readOnly, ...caches.filter((c) => !writable(c)).map((c) => c.path)],
    readWrite: [...policy.readWrite, ...caches.filter(writable).map((c) => c.path)],
    // Only the proxy's port goes: other connect rules (if any) are not about egress. Without a connect rule
    // (`limits.connect: pod`) a non-fetch call may open a socket to the proxy, but holds no token for it: the
    // token is neither in its environment nor readable (the server's secrets are outside every grant).
    connectPorts:
      egress || policy.connectPorts === undefined
        ? policy.connectPorts
        : policy.connectPorts.filter((p) => p !== policy.proxyPort),
  };
}

export interface PolicyInputs {
  readonly config: ToolchainServerConfig;
  /** The server's own files: its config file and its bundle directory (the helper lives there too). */
  readonly ownFiles: readonly string[];
  /** Where per-call scratch directories are made; never readable by another call. */
  readonly scratchBase: string;
  /**
   * The resolved binaries of the allowed commands: their directories are readable and executable even where
   * the walk from `/` leaves them out (a toolchain installed under TMPDIR), unless they hold the server's own files.
   */
  readonly commandPaths?: readonly string[];
}

function proxyPort(url: string): number {
  const u = new URL(url);
  if (u.port) return Number(u.port);
  return u.protocol === 'https:' ? 443 : 80;
}

/**
 * Landlock rules only add: a token or config file inside a workspace root or a declared cache would be readable
 * (and writable) by every call, whatever the deny list says. Refuses to start, naming the field and what to do.
 * Directories among `files` (the bundle) are skipped: a workspace that holds the server's source is a checkout.
 */
function assertSecretsOutside(
  files: ReadonlyArray<readonly [field: string, path: string]>,
  readWrite: readonly string[],
): void {
  const areas = readWrite.map((p) => [p, real(p) ?? p] as const);
  for (const [field, file] of files) {
    const path = real(file);
    if (path === undefined || !statSync(path).isFile()) continue;
    const area = areas.find(([, r]) => path === r || path.startsWith(r + sep));
    if (area)
      throw new Error(
        `${field} ${file} lies inside ${area[0]}, which every confined call may read and write: move it out of workspaceRoots and the declared caches (or set limits.confinement to off, which protects it less)`,
      );
  }
}

/** The part of the policy that is the same for every call, computed once at start. */
export function staticPolicy(inputs: PolicyInputs): StaticPolicy {
  const { config } = inputs;
  const secrets = [
    config.auth?.bearerTokenFile,
    config.egressProxy?.tokenFile,
    config.sandbox?.bootstrapTokenFile,
    config.telemetry?.tokenFile,
    ...(config.codeMode?.servers.map((s) => s.tokenFile) ?? []),
  ].filter((p): p is string => p !== undefined);
  const deniedRaw = [
    ...inputs.ownFiles,
    ...secrets,
    // A mounted Secret's key is a symlink into a hidden directory beside it: deny the whole mount.
    ...secrets.map((p) => dirname(p)),
    ...ALWAYS_DENIED,
    tmpdir(),
    inputs.scratchBase,
  ];
  const denied = [
    ...new Set(
      deniedRaw.flatMap((p) => {
        const r = real(p);
        return r && r !== p ? [p, r] : [p];
      }),
    ),
  ].filter((p) => p !== '/');
  const own = [...inputs.ownFiles, ...secrets, ...ALWAYS_DENIED].flatMap((p) => [p, real(p) ?? p]);
  const inside = (path: string, dir: string) => path === dir || path.startsWith(dir + sep);
  const commandDirs = [...new Set((inputs.commandPaths ?? []).map((p) => dirname(real(p) ?? p)))].filter(
    (dir) => !own.some((o) => inside(o, dir) || inside(dir, o)),
  );
  const readWrite = [...config.workspaceRoots];
  const caches = config.caches;
  for (const name of CACHE_VARIABLES) {
    const value = config.env.set[name];
    if (!value?.startsWith('/')) continue;
    // A variable inside a declared cache gets that cache's access; one that holds a cache would widen it.
    if (caches.some((c) => inside(value, c.path))) continue;
    const held = caches.find((c) => inside(c.path, value));
    if (held)
      throw new Error(
        `env.set.${name} (${value}) holds the cache ${held.name} (${held.path}), which would make it writable in every call: point ${name} inside the cache or elsewhere`,
      );
    try {
      mkdirSync(value, { recursive: true });
    } catch {}
    readWrite.push(value);
  }
  for (const cache of caches)
    try {
      mkdirSync(cache.path, { recursive: true });
    } catch {}
  assertSecretsOutside(
    [
      ...(config.auth?.bearerTokenFile
        ? [['auth.bearerTokenFile', config.auth.bearerTokenFile] as const]
        : []),
      ...(config.egressProxy ? [['egressProxy.tokenFile', config.egressProxy.tokenFile] as const] : []),
      ...(config.sandbox ? [['sandbox.bootstrapTokenFile', config.sandbox.bootstrapTokenFile] as const] : []),
      ...(config.telemetry?.tokenFile ? [['telemetry.tokenFile', config.telemetry.tokenFile] as const] : []),
      ...(config.codeMode?.servers ?? []).flatMap((s, i) =>
        s.tokenFile ? [[`codeMode.servers[${i}].tokenFile`, s.tokenFile] as const] : [],
      ),
      ...inputs.ownFiles.map((f) => ['the config file', f] as const),
    ],
    [...readWrite, ...caches.map((c) => c.path)],
  );
  readWrite.push(...WRITABLE_DEVICES);
  const walked = readOnlyGrants(denied);
  return {
    readOnly: [...walked, ...commandDirs.filter((dir) => !walked.some((g) => inside(dir, g)))],
    readWrite,
    connectPorts:
      config.limits.connect === 'pod'
        ? undefined
        : [
            ...new Set([
              ...(config.egressProxy ? [proxyPort(config.egressProxy.url)] : []),
              ...config.limits.testPorts,
            ]),
          ],
    denied,
    caches,
    phase: config.egressProxy?.phase ?? 'always',
    ...(config.egressProxy ? { proxyPort: proxyPort(config.egressProxy.url) } : {}),
  };
}

/**
 * The helper's argv for one call (before `--report-fd`, `--argv0` and the command). The helper makes the scratch
 * directory (`--scratch`: new and private, or the call fails) and removes it after the call when it is empty.
 */
export function helperArgs(
  policy: StaticPolicy,
  mode: 'required' | 'best-effort',
  scratch: string | undefined,
  timeoutMs: number,
  graceMs: number,
): string[] {
  const args = ['--mode', mode, '--scope-signals', '--scope-abstract'];
  if (policy.connectPorts) {
    args.push('--no-connect');
    for (const port of policy.connectPorts) args.push('--connect', String(port));
  }
  for (const path of policy.readOnly) args.push('--ro', path);
  for (const path of policy.readWrite) args.push('--rw', path);
  if (scratch) args.push('--rw', scratch, '--scratch', scratch);
  args.push('--timeout-ms', String(timeoutMs), '--grace-ms', String(graceMs));
  return args;
}

/**
 * The helper's argv for a code-mode run (docs/code-mode.md): the image and the workspace read-only (declared caches
 * too), writes only where `readWrite` says (the run directory, `.` — the outputs directory the helper entered — and
 * the devices), the scratch HOME, no TCP connect at all, scopes; `required`, since a run is never unconfined.
 */
export function codeModeHelperArgs(
  policy: StaticPolicy,
  inputs: {
    readonly roots: readonly string[];
    readonly readOnly: readonly string[];
    readonly readWrite: readonly string[];
    readonly scratch: string;
    readonly timeoutMs: number;
    readonly graceMs: number;
  },
): string[] {
  const args = ['--mode', 'required', '--scope-signals', '--scope-abstract', '--no-connect'];
  const readOnly = [
    ...policy.readOnly,
    ...inputs.roots,
    ...(policy.caches ?? []).map((c) => c.path),
    ...inputs.readOnly,
  ];
  for (const path of readOnly) args.push('--ro', path);
  const devices = policy.readWrite.filter((p) => WRITABLE_DEVICES.includes(p));
  for (const path of [...devices, ...inputs.readWrite]) args.push('--rw', path);
  args.push('--rw', inputs.scratch, '--scratch', inputs.scratch);
  args.push('--timeout-ms', String(inputs.timeoutMs), '--grace-ms', String(inputs.graceMs));
  return args;
}
