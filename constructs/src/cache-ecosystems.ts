/**
 * The cache table: for each ecosystem `spec.workspace.caches[].ecosystem` may name, what kind of cache it is,
 * the variables that point its tool at the cache, whether the tool verifies what it reads from it, the offline
 * settings of calls that are not fetch calls under `network.egress.phase: fetch`, and the fetch tools that may
 * fill it. One table: the renderer, the semantic checks (did-you-mean, sharing rules), `explain` and the docs
 * table in docs/caches.md (kept in sync by test/docs/cache-ecosystems.test.ts) all read it.
 */
import type { CacheAccess, CacheKind, ToolPreset } from '../../toolchain-server/src/config.ts';

export interface CacheEcosystem {
  /** `download`: what a registry served (shareable under the rules). `build`: what project code produced. */
  readonly kind: CacheKind;
  /** The variables that point the tool at the cache mounted at `path`, for a consumer with `access`. */
  readonly variables: (path: string, access: CacheAccess) => Readonly<Record<string, string>>;
  /** The tool checks what it reads from the cache against the project's lockfile (or the cache's own hashes). */
  readonly verifiesOnRead: boolean;
  /** How it verifies, or why it does not. */
  readonly verification: string;
  /** Variables that make the tool work offline from the cache (calls that are not fetch calls). */
  readonly offline: (path: string) => Readonly<Record<string, string>>;
  /** Structured fetch tools (toolchain server presets) that fill it and run no project code. */
  readonly fetchTools: readonly string[];
  /** The tool preset it belongs to, if toolyard has one. */
  readonly preset?: ToolPreset;
  /** Files the tool reads as configuration or runs from the cache directory (never shared content). */
  readonly configFiles: readonly string[];
  /** The tool cannot run with the cache read-only. */
  readonly needsWrite: boolean;
  /** What the docs table says besides. */
  readonly note: string;
}

export const CACHE_ECOSYSTEMS = {
  cargo: {
    kind: 'download',
    variables: (path) => ({ CARGO_HOME: path }),
    verifiesOnRead: false,
    verification:
      'cargo checks a `.crate` against the index checksum when it downloads it; a cached `.crate` and the extracted `registry/src` tree are reused without a check.',
    offline: () => ({ CARGO_NET_OFFLINE: 'true' }),
    fetchTools: ['cargo_fetch'],
    preset: 'cargo',
    configFiles: ['config.toml', 'config', 'credentials.toml', 'credentials', 'bin'],
    needsWrite: false,
    note: 'The whole `CARGO_HOME` (cargo has no variable for `registry/` and `git/` alone); the toolchain server restores `config.toml`/`config` after every call.',
  },
  'cargo-target': {
    kind: 'build',
    variables: (path) => ({ CARGO_TARGET_DIR: path }),
    verifiesOnRead: false,
    verification:
      'build outputs: cargo trusts its fingerprints and the artefacts beside them; a planted `.rlib` or build-script output is linked as is.',
    offline: () => ({}),
    fetchTools: [],
    preset: 'cargo',
    configFiles: [],
    needsWrite: true,
    note: 'Never read-only: cargo writes its lock and fingerprints into the target directory on every build, warm or not (cargo 1.95: "Permission denied").',
  },
  go: {
    kind: 'download',
    variables: (path) => ({ GOMODCACHE: path }),
    verifiesOnRead: false,
    verification:
      'go checks a module zip against `go.sum` and the checksum database when it downloads it; extracted module trees are reused without a check (`go mod verify` re-hashes them on demand).',
    offline: () => ({ GOPROXY: 'off' }),
    fetchTools: ['go_mod_download'],
    preset: 'go',
    configFiles: [],
    needsWrite: false,
    note: 'Offline: `GOPROXY=off` only (`GOFLAGS=-mod=mod` would override vendor mode).',
  },
  'go-build': {
    kind: 'build',
    variables: (path) => ({ GOCACHE: path }),
    verifiesOnRead: false,
    verification:
      'Build outputs keyed by the hash of their inputs; the outputs themselves are not re-hashed on reuse, so a planted entry is linked as is.',
    offline: () => ({}),
    fetchTools: [],
    preset: 'go',
    configFiles: [],
    needsWrite: false,
    note: 'Read-only works: go treats cache writes as best effort and rebuilds what it misses (Debian Go 1.19: `go build` with a read-only, partly cold `GOCACHE`). So a build cache another job warms can be read by agents.',
  },
  npm: {
    kind: 'download',
    variables: (path) => ({ npm_config_cache: path }),
    verifiesOnRead: true,
    verification:
      "cacache reads content by its sha512 and checks it on every read; `npm ci` asks for the lockfile's `integrity`. Without a lockfile, cached registry metadata decides what is fetched: share only for `npm ci`.",
    offline: () => ({ npm_config_offline: 'true' }),
    fetchTools: ['npm_ci_fetch'],
    preset: 'node',
    configFiles: [],
    needsWrite: false,
    note: '',
  },
  pip: {
    kind: 'download',
    variables: (path) => ({ PIP_CACHE_DIR: path }),
    verifiesOnRead: false,
    verification:
      'pip checks hashes only in hash-checking mode (`--require-hashes`); its HTTP cache and the wheels it built locally are reused without a check.',
    // pip_download puts wheels in <cache>/wheelhouse (toolchain-server/src/tools/fetch-tools.ts): offline installs
    // find them there.
    offline: (path) => ({ PIP_NO_INDEX: '1', PIP_FIND_LINKS: `${path}/wheelhouse` }),
    fetchTools: ['pip_download'],
    preset: 'python',
    configFiles: [],
    needsWrite: false,
    note: 'Holds wheels pip built from source distributions (project code ran to build them).',
  },
  uv: {
    // A build cache, though uv downloads into it: it also holds the wheels uv built from source distributions
    // (their build backends ran), it is not verified on read, and uv cannot use it read-only.
    kind: 'build',
    variables: (path) => ({ UV_CACHE_DIR: path }),
    verifiesOnRead: false,
    verification:
      'uv checks hashes when it downloads (and `uv.lock` hashes then); unpacked archives and the wheels it built from sdists are reused without a check.',
    offline: () => ({ UV_OFFLINE: '1' }),
    // uv_sync_fetch installs the locked wheels into a throwaway environment (toolchain-server/src/tools/fetch-tools.ts):
    // the cache then holds them, and `uv sync --frozen` installs offline from it.
    fetchTools: ['uv_sync_fetch'],
    preset: 'python',
    configFiles: [],
    needsWrite: true,
    note: 'A build cache: uv takes a lock and writes temporary files in its cache on every run, so it cannot be read-only (uv 0.13.9: "Read-only file system" on `uv sync --frozen`; astral-sh/uv#15934), and besides downloads it holds wheels built from sdists. So it is never shared read-write between agents and stays writable in every call; under `phase: fetch`, `uv_sync_fetch` fills it through the broker and the other calls install from it offline (`UV_OFFLINE=1`).',
  },
  maven: {
    kind: 'download',
    variables: (path) => ({ MAVEN_ARGS: `-Dmaven.repo.local=${path}` }),
    verifiesOnRead: false,
    verification:
      'Maven checks `.sha1` files on download (and only warns by default); artefacts in the local repository are reused without a check.',
    offline: (path) => ({ MAVEN_ARGS: `-Dmaven.repo.local=${path} --offline` }),
    fetchTools: [],
    configFiles: [],
    needsWrite: false,
    note: '`MAVEN_ARGS` needs Maven 3.9 or later.',
  },
  gradle: {
    kind: 'download',
    variables: (path, access): Record<string, string> =>
      access === 'read-write' ? { GRADLE_USER_HOME: path } : { GRADLE_RO_DEP_CACHE: `${path}/caches` },
    verifiesOnRead: false,
    verification:
      'Gradle checks artefacts only with dependency verification (`gradle/verification-metadata.xml`), on every build; otherwise cached artefacts are reused without a check.',
    offline: () => ({}),
    fetchTools: [],
    configFiles: ['init.d', 'init.gradle', 'init.gradle.kts', 'gradle.properties'],
    needsWrite: false,
    note: "Read-write consumers get `GRADLE_USER_HOME`; read-only ones Gradle's own read-only dependency cache (`GRADLE_RO_DEP_CACHE=<path>/caches`) and keep their own `GRADLE_USER_HOME`, so they never read its init scripts. Pass `--offline` yourself.",
  },
  terraform: {
    kind: 'download',
    variables: (path) => ({ TF_PLUGIN_CACHE_DIR: path }),
    verifiesOnRead: true,
    verification:
      '`terraform init` checks a cached provider against the hashes in `.terraform.lock.hcl` before it uses it (a provider not yet in the lock file is trusted on first use).',
    offline: () => ({}),
    fetchTools: [],
    preset: 'terraform',
    configFiles: [],
    needsWrite: false,
    note: '',
  },
} as const satisfies Record<string, CacheEcosystem>;

export type CacheEcosystemName = keyof typeof CACHE_ECOSYSTEMS;

export const CACHE_ECOSYSTEM_NAMES = Object.keys(CACHE_ECOSYSTEMS) as CacheEcosystemName[];

export function isCacheEcosystem(name: string): name is CacheEcosystemName {
  return Object.hasOwn(CACHE_ECOSYSTEMS, name);
}

export function cacheEcosystem(name: CacheEcosystemName): CacheEcosystem {
  return CACHE_ECOSYSTEMS[name];
}

/** The docs table (a Markdown section of docs/caches.md), generated from the table above. */
export function cacheEcosystemsMarkdownTable(): string {
  const path = '<path>';
  const code = (vars: Readonly<Record<string, string>>) =>
    Object.entries(vars)
      .map(([name, value]) => `\`${name}=${value}\``)
      .join(', ') || '—';
  const rows = CACHE_ECOSYSTEM_NAMES.map((name) => {
    const e = cacheEcosystem(name);
    const rw = e.variables(path, 'read-write');
    const ro = e.variables(path, 'read-only');
    const variables =
      JSON.stringify(rw) === JSON.stringify(ro) ? code(rw) : `${code(rw)} (read-only: ${code(ro)})`;
    const tools = e.fetchTools.map((t) => `\`${t}\``).join(', ') || '—';
    return `| \`${name}\` | ${e.kind} | ${variables} | ${e.verifiesOnRead ? 'yes' : 'no'}: ${e.verification} | ${code(e.offline(path))} | ${tools} | ${e.note || '—'} |`;
  });
  return [
    '| Ecosystem | Kind | Variables | Verifies on read | Offline | Fetch tools | Notes |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}
