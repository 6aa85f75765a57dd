/**
 * The test cluster's binaries, built from pinned Go modules with the machine's Go (never downloaded prebuilt):
 * kube-apiserver, kube-controller-manager, kube-scheduler and kubelet from `k8s.io/kubernetes` and etcd from
 * `go.etcd.io/etcd/server/v3` (module `go/`), kwok from `sigs.k8s.io/kwok` (module `kwok/`). Static
 * (`CGO_ENABLED=0`), version-stamped as Kubernetes' own build does (`/version` and Helm's `kubeVersion` checks
 * read it), and kept in the cache directory under a key of everything that decides the bytes: both modules'
 * go.mod and go.sum, the etcd entry point, the Go version and this recipe. A warm run reuses them; Go's own build
 * cache (on the machine, outside the repository) makes a rebuild after a version bump only recompile what changed.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir } from '../../release/src/cache-dir.ts';
import { fillCacheDir, goBuild, goBuildEnv, hasFile } from '../support/go-build.ts';
import {
  AGENT_SANDBOX_MODULE,
  AGENT_SANDBOX_VERSION,
  COREDNS_VERSION,
  KUBE_ROUTER_VERSION,
  KUBERNETES_COMMANDS,
  KUBERNETES_VERSION,
  KWOK_VERSION,
} from './versions.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const CONTROL_PLANE_MODULE = join(HERE, 'go');
const KWOK_MODULE = join(HERE, 'kwok');
const AGENT_SANDBOX_GO_MODULE = join(HERE, 'agent-sandbox');
const COREDNS_MODULE = join(HERE, 'coredns');
const KUBE_ROUTER_MODULE = join(HERE, 'kube-router');
const NODE_TOOLS_MODULE = join(HERE, 'node-tools');
/** Files whose bytes decide the binaries (besides the Go version and the recipe below). */
const INPUTS = [
  'go/go.mod',
  'go/go.sum',
  'go/cmd/etcd/main.go',
  'kwok/go.mod',
  'kwok/go.sum',
  'coredns/go.mod',
  'coredns/go.sum',
  'kube-router/go.mod',
  'kube-router/go.sum',
  'node-tools/go.mod',
  'node-tools/cmd/pause/main.go',
  'node-tools/cmd/probe/main.go',
];
/** Bump when the way the binaries are built changes, so an old cache entry is never taken for a new one. */
const RECIPE = 'static, trimpath, stripped, version-stamped: 2';

export interface ClusterBinaries {
  readonly dir: string;
  readonly etcd: string;
  readonly kubeApiserver: string;
  readonly kubeControllerManager: string;
  readonly kubeScheduler: string;
  readonly kubelet: string;
  readonly kubeProxy: string;
  readonly kwok: string;
  readonly coredns: string;
  readonly kubeRouter: string;
  /** The real node's pod sandbox process (node-tools/cmd/pause). */
  readonly pause: string;
  /** The network probe the node tests run in pods (node-tools/cmd/probe). */
  readonly probe: string;
}

function binariesIn(dir: string): ClusterBinaries {
  return {
    dir,
    etcd: join(dir, 'etcd'),
    kubeApiserver: join(dir, 'kube-apiserver'),
    kubeControllerManager: join(dir, 'kube-controller-manager'),
    kubeScheduler: join(dir, 'kube-scheduler'),
    kubelet: join(dir, 'kubelet'),
    kubeProxy: join(dir, 'kube-proxy'),
    kwok: join(dir, 'kwok'),
    coredns: join(dir, 'coredns'),
    kubeRouter: join(dir, 'kube-router'),
    pause: join(dir, 'pause'),
    probe: join(dir, 'probe'),
  };
}

/** The oldest Go that builds Kubernetes 1.35 (its go.mod says go 1.25.0). */
const MIN_GO = [1, 25] as const;

function versionOf(go: string): string | undefined {
  try {
    return execFileSync(go, ['env', 'GOVERSION'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}

function newEnough(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^go/, '').split('.').map(Number);
  return major > MIN_GO[0] || (major === MIN_GO[0] && minor >= MIN_GO[1]);
}

let chosenGo: string | undefined;

/**
 * The Go that builds: `go` on PATH if it is new enough, else the machine's own toolchain in /usr/local/go (a
 * Debian `golang-go`, older, may come first on PATH where the red-team tests need one).
 */
function goBinary(): string {
  if (chosenGo) return chosenGo;
  for (const candidate of ['go', '/usr/local/go/bin/go']) {
    const version = versionOf(candidate);
    if (version && newEnough(version)) {
      chosenGo = candidate;
      return candidate;
    }
  }
  throw new Error(
    `the test cluster needs Go ${MIN_GO.join('.')} or newer to build Kubernetes; found ${versionOf('go') ?? 'no go'} on PATH and none in /usr/local/go`,
  );
}

function goVersion(): string {
  return versionOf(goBinary()) ?? '';
}

/** The cache entry's name: the Kubernetes version and a hash of every input. */
export function binariesKey(): string {
  const hash = createHash('sha256');
  for (const file of INPUTS)
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(HERE, file)))
      .update('\0');
  hash.update(goVersion()).update('\0').update(RECIPE);
  return `${KUBERNETES_VERSION}-${hash.digest('hex').slice(0, 16)}`;
}

function binariesDir(): string {
  return cacheDir('cluster', binariesKey());
}

/**
 * `-X` settings for the version packages, as Kubernetes' release build sets them: the server's `/version`, the
 * components' `--version`, and the clients' user agent. The build date is the module's own release time, so two
 * builds of the same inputs give the same bytes.
 */
function versionLdflags(moduleTime: string): string {
  const [major, minor] = KUBERNETES_VERSION.slice(1).split('.');
  const values: Record<string, string> = {
    gitVersion: KUBERNETES_VERSION,
    gitMajor: major ?? '',
    gitMinor: minor ?? '',
    gitTreeState: 'clean',
    buildDate: moduleTime,
  };
  const flags: string[] = [];
  for (const pkg of ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'])
    for (const [name, value] of Object.entries(values)) flags.push(`-X ${pkg}.${name}=${value}`);
  return flags.join(' ');
}

function moduleTime(moduleDir: string, path: string): string {
  const info = JSON.parse(
    execFileSync(goBinary(), ['list', '-m', '-json', path], {
      cwd: moduleDir,
      encoding: 'utf8',
      env: goBuildEnv(),
    }),
  ) as { Time?: string };
  if (!info.Time) throw new Error(`go list -m ${path} gave no release time`);
  return info.Time.replace(/\.\d+Z$/, 'Z');
}

/** `go build` of packages of a pinned module into `out/`, with the Go `goBinary` chose. */
function buildFrom(moduleDir: string, out: string, ldflags: string, packages: readonly string[]): void {
  goBuild({ go: goBinary(), moduleDir, output: `${out}/`, packages, ldflags });
}

function firstLine(binary: string, args: readonly string[]): string {
  return (execFileSync(binary, args, { encoding: 'utf8' }).split('\n')[0] ?? '').trim();
}

/** Checks that each built binary says the version it was built from. */
function checkVersions(bin: ClusterBinaries): void {
  const expected: Array<[string, readonly string[], string]> = [
    [bin.kubeApiserver, ['--version'], `Kubernetes ${KUBERNETES_VERSION}`],
    [bin.kubeControllerManager, ['--version'], `Kubernetes ${KUBERNETES_VERSION}`],
    [bin.kubeScheduler, ['--version'], `Kubernetes ${KUBERNETES_VERSION}`],
    [bin.kubelet, ['--version'], `Kubernetes ${KUBERNETES_VERSION}`],
    [bin.kubeProxy, ['--version'], `Kubernetes ${KUBERNETES_VERSION}`],
    [bin.coredns, ['-version'], `CoreDNS-${COREDNS_VERSION.slice(1)}`],
    [bin.kwok, ['--version'], `kwok version ${KWOK_VERSION}`],
  ];
  for (const [binary, args, prefix] of expected) {
    const printed = firstLine(binary, args);
    if (!printed.startsWith(prefix))
      throw new Error(`${binary} ${args.join(' ')} printed "${printed}", not ${prefix}`);
  }
  const etcd = firstLine(bin.etcd, ['--version']);
  if (!/^etcd Version: 3\.6\./.test(etcd)) throw new Error(`etcd --version printed "${etcd}", not 3.6.x`);
}

/** Builds the binaries unless the cache has them; returns where they are. Atomic: a half-done build never counts. */
export function buildClusterBinaries(log: (line: string) => void = () => {}): ClusterBinaries {
  const dir = binariesDir();
  fillCacheDir(dir, hasFile('.complete'), (staging) => {
    const started = Date.now();
    log(`building Kubernetes ${KUBERNETES_VERSION} and etcd from Go modules (cold: ~5-10 min on 2 cores)`);
    const ldflags = versionLdflags(moduleTime(CONTROL_PLANE_MODULE, 'k8s.io/kubernetes'));
    buildFrom(CONTROL_PLANE_MODULE, staging, ldflags, [...KUBERNETES_COMMANDS, './cmd/etcd']);
    log(
      `building kwok ${KWOK_VERSION}, CoreDNS ${COREDNS_VERSION}, kube-router ${KUBE_ROUTER_VERSION} and the node's tools`,
    );
    buildFrom(KWOK_MODULE, staging, '', ['sigs.k8s.io/kwok/cmd/kwok']);
    buildFrom(COREDNS_MODULE, staging, '', ['github.com/coredns/coredns']);
    buildFrom(KUBE_ROUTER_MODULE, staging, '', ['github.com/cloudnativelabs/kube-router/v2/cmd/kube-router']);
    buildFrom(NODE_TOOLS_MODULE, staging, '', ['./cmd/pause', './cmd/probe']);
    checkVersions(binariesIn(staging));
    writeFileSync(join(staging, '.complete'), `${binariesKey()}\n`);
    log(`cluster binaries built in ${Math.round((Date.now() - started) / 1000)} s`);
  });
  return binariesIn(dir);
}

/**
 * agent-sandbox's controller and its CRDs (module `agent-sandbox/`), an entry of its own in the same cache, keyed
 * by its module's go.mod and go.sum, the Go version and the recipe: the sandbox tests need it, the rest of the
 * cluster does not, and a bump of one never rebuilds the other.
 */
export interface AgentSandboxBinaries {
  readonly dir: string;
  readonly controller: string;
  /** The CRD manifests of the release, as its module ships them (`k8s/crds/*.yaml`). */
  readonly crds: readonly string[];
}

const AGENT_SANDBOX_INPUTS = ['agent-sandbox/go.mod', 'agent-sandbox/go.sum'];
const AGENT_SANDBOX_RECIPE = 'static, trimpath, stripped; CRDs copied from k8s/crds: 1';
const AGENT_SANDBOX_CRDS = [
  'agents.x-k8s.io_sandboxes.yaml',
  'extensions.agents.x-k8s.io_sandboxclaims.yaml',
  'extensions.agents.x-k8s.io_sandboxtemplates.yaml',
  'extensions.agents.x-k8s.io_sandboxwarmpools.yaml',
];

function agentSandboxKey(): string {
  const hash = createHash('sha256');
  for (const file of AGENT_SANDBOX_INPUTS)
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(HERE, file)))
      .update('\0');
  hash.update(goVersion()).update('\0').update(AGENT_SANDBOX_RECIPE);
  return `agent-sandbox-${AGENT_SANDBOX_VERSION}-${hash.digest('hex').slice(0, 16)}`;
}

function agentSandboxIn(dir: string): AgentSandboxBinaries {
  return {
    dir,
    controller: join(dir, 'agent-sandbox-controller'),
    crds: AGENT_SANDBOX_CRDS.map((file) => join(dir, 'crds', file)),
  };
}

/** Builds agent-sandbox's controller and copies its CRDs unless the cache has them; returns where they are. */
export function buildAgentSandbox(log: (line: string) => void = () => {}): AgentSandboxBinaries {
  const dir = cacheDir('cluster', agentSandboxKey());
  fillCacheDir(dir, hasFile('.complete'), (staging) => {
    const started = Date.now();
    log(`building agent-sandbox ${AGENT_SANDBOX_VERSION}'s controller (cold: ~5 min on 2 cores)`);
    buildFrom(AGENT_SANDBOX_GO_MODULE, staging, '', [`${AGENT_SANDBOX_MODULE}/cmd/agent-sandbox-controller`]);
    const moduleDir = execFileSync(goBinary(), ['list', '-m', '-f', '{{.Dir}}', AGENT_SANDBOX_MODULE], {
      cwd: AGENT_SANDBOX_GO_MODULE,
      encoding: 'utf8',
      env: goBuildEnv(),
    }).trim();
    mkdirSync(join(staging, 'crds'));
    for (const file of AGENT_SANDBOX_CRDS)
      writeFileSync(join(staging, 'crds', file), readFileSync(join(moduleDir, 'k8s', 'crds', file)));
    writeFileSync(join(staging, '.complete'), `${agentSandboxKey()}\n`);
    log(`agent-sandbox controller built in ${Math.round((Date.now() - started) / 1000)} s`);
  });
  return agentSandboxIn(dir);
}

/** The built binaries, or an error that says how to build them. */
export function requireClusterBinaries(): ClusterBinaries {
  const dir = binariesDir();
  if (!existsSync(join(dir, '.complete')))
    throw new Error(`the test cluster's binaries are not built in ${dir}; run: npm run cluster:build`);
  return binariesIn(dir);
}
