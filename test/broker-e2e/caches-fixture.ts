/**
 * The world of the caches end-to-end test and bench (test/broker-e2e/caches.test.ts, bench/caches.ts): fake
 * registries behind the real broker (registry-world.ts: its rendered pod and caller token, in its own network
 * namespace), and "pods": the real toolchain server (source entry, `limits.confinement: required`) started in
 * the agent's network namespace with the rendered toolchain config plus what issue 21's renderer emits —
 * `caches`, `egressProxy.phase` and `offlineEnv` — and a fresh workspace holding a copy of the example projects
 * (cache-projects.ts). Cache directories are shared by every pod given the same `CacheSet`, as a claim would be.
 * Calls go over MCP from the agent namespace (mcp-call.ts). Needs root (namespaces), Debian's go, npm and pip,
 * rustup's cargo (the machine's default toolchain) and PyPI's uv (`npm run pypi-tools`); the servers' children
 * see only the Rust toolchain's and uv's directories and `/usr/bin:/bin`.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { cachedPypiTool } from '../../release/src/pypi-tools.ts';
import { rustToolchain } from '../support/rust-toolchain.ts';
import { type ServerProcess, startServerProcess } from '../toolchain-server/process-helpers.ts';
import { MARKERS, SDIST_PACKAGE, sdistRegistry, writeProjects } from './cache-projects.ts';
import { CRATE, GO_MODULE, NPM_PACKAGE, PYPI_PACKAGE } from './fake-registries.ts';
import { brokerToken, RegistryWorld, toolchainConfig } from './registry-world.ts';
import { BROKER_AGENT_SIDE } from './topology.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
export const CALLER = 'toolchain-builder';
export const BROKER_PORT = 8480;
const DEBIAN_PATH = '/usr/bin:/bin';

export type Tool = 'cargo' | 'go' | 'npm' | 'pip' | 'uv';
export const TOOLS: readonly Tool[] = ['cargo', 'go', 'npm', 'pip', 'uv'];
/** The tools whose cache is a download cache (uv's is a build cache: uv cannot read it read-only). */
export const DOWNLOAD_TOOLS = ['cargo', 'go', 'npm', 'pip'] as const satisfies readonly Tool[];

export interface Exec {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The command's run time as the server measured it (0 when the call was refused). */
  readonly durationMs: number;
}

/** One set of cache directories (a claim): download caches per ecosystem, and build caches. */
export interface CacheSet {
  readonly cargo: string;
  readonly go: string;
  readonly npm: string;
  readonly pip: string;
  /** UV_CACHE_DIR (`kind: build`, read-write in every call: uv cannot use a read-only cache). */
  readonly uv: string;
  /** GOCACHE (`kind: build`): each pod gets `<goBuild>/<pod>` unless `sharedBuild`. */
  readonly goBuild: string;
  /** CARGO_TARGET_DIR (`kind: build`). */
  readonly cargoTarget: string;
}

export interface PodOptions {
  readonly phase: 'always' | 'fetch';
  /** Access of the download caches (build caches are the pod's own, read-write). */
  readonly access?: 'read-write' | 'read-only';
  readonly caches: CacheSet;
  /** Use the set's build caches as they are (a warm build cache), instead of a directory per pod. */
  readonly sharedBuild?: boolean;
  /** `limits.connect` (rendered toolchains get `pod`; a server on its own defaults to `egress`). */
  readonly connect?: 'egress' | 'pod';
}

export interface Pod {
  readonly name: string;
  readonly workspace: string;
  readonly server: ServerProcess;
}

/** rustup's default toolchain's bin directory (cargo, rustc). */
function rustBinDir(): string {
  const rust = rustToolchain();
  if (!rust) throw new Error("rustup's default toolchain is missing");
  return rust.bin;
}

/** The directory of the pinned uv (`npm run pypi-tools` fetches it). */
function uvBinDir(): string {
  const uv = cachedPypiTool('uv');
  if (!uv) throw new Error('uv is not fetched: run npm run pypi-tools');
  return uv.binDir;
}

export class CachesFixture {
  readonly dir: string;
  readonly token = brokerToken('builder');
  readonly pods: Pod[] = [];
  /** The tarball's sha512 SRI, as the lockfile and npm's cache name it. */
  npmIntegrity = '';
  private renderedConfig: Record<string, unknown> = {};
  private readonly projects: string;
  private readonly tokenFile: string;
  private readonly caFile: string;

  private readonly world: RegistryWorld;

  private constructor(world: RegistryWorld) {
    this.world = world;
    this.dir = world.dir;
    this.projects = join(this.dir, 'projects');
    this.tokenFile = join(this.dir, 'secret', 'token');
    this.caFile = join(this.dir, 'ca.pem');
  }

  /** Why the fixture cannot run here, or undefined. */
  static missing(): string | undefined {
    return RegistryWorld.missing();
  }

  /** `projectCode: false`: projects without the fetch tests' build script, rustc wrapper and preinstall. */
  static async start(options: { projectCode?: boolean } = {}): Promise<CachesFixture> {
    // Outside TMPDIR: the server's confinement hides its TMPDIR (other calls' scratch) from every call.
    const fixture = new CachesFixture(RegistryWorld.create('/var/tmp/toolyard-caches-e2e-'));
    try {
      await fixture.setUp(options.projectCode ?? true);
    } catch (error) {
      await fixture.stop();
      throw error;
    }
    return fixture;
  }

  private async setUp(projectCode: boolean): Promise<void> {
    const { npm } = await this.world.serveRegistries(MARKERS, sdistRegistry(this.dir));
    const packument = JSON.parse(String(npm.get(`/${NPM_PACKAGE.name}`)?.body)) as {
      versions: Record<string, { dist: { integrity: string } }>;
    };
    this.npmIntegrity = packument.versions[NPM_PACKAGE.version]!.dist.integrity;

    writeFileSync(this.caFile, this.world.ca.ca);
    mkdirSync(dirname(this.tokenFile));
    writeFileSync(this.tokenFile, this.token);
    writeProjects(this.projects, this.npmIntegrity, projectCode);
    mkdirSync(join(this.projects, 'pip-sdist'));
    writeFileSync(
      join(this.projects, 'pip-sdist', 'requirements.txt'),
      `${SDIST_PACKAGE.name}==${SDIST_PACKAGE.version}\n`,
    );
    writeFileSync(join(this.projects, 'plant.sh'), 'echo planted > "$1/planted-$2" && echo wrote\n');
    writeFileSync(join(this.projects, 'connect.sh'), 'exec 3<>"/dev/tcp/$1/$2" && echo connected\n');
    // A CONNECT for $3 through the proxy at $1:$2, with the credentials of $HTTPS_PROXY if it has any (the test's
    // token needs no percent-decoding); prints the proxy's status line.
    writeFileSync(
      join(this.projects, 'tunnel.sh'),
      [
        'exec 3<>"/dev/tcp/$1/$2" || exit 1',
        'creds=$(printf %s "$HTTPS_PROXY" | sed -n "s#^http://\\([^@]*\\)@.*#\\1#p")',
        'auth=""',
        'if [ -n "$creds" ]; then auth="Proxy-Authorization: Basic $(printf %s "$creds" | base64 -w0)\\r\\n"; fi',
        'printf "CONNECT %s HTTP/1.1\r\nHost: %s\r\n%b\r\n" "$3" "$3" "$auth" >&3',
        'head -n1 <&3',
        '',
      ].join('\n'),
    );

    const { configMaps } = await this.world.startBroker(
      [
        {
          name: 'builder',
          image: { repository: 'debian', tag: 'bookworm' },
          port: 8700,
          healthPort: 9700,
          tools: { mode: 'exec', allowedCommands: ['sh'] },
          network: { egress: { ecosystems: ['npm', 'pypi', 'crates', 'go'] } },
        },
      ],
      { [CALLER]: this.token },
    );
    this.renderedConfig = toolchainConfig(configMaps, 'builder');
    if ((this.renderedConfig.egressProxy as { user?: string } | undefined)?.user !== CALLER)
      throw new Error(`the rendered toolchain config has no egressProxy for ${CALLER}`);
  }

  /** Fresh, empty cache directories. */
  cacheSet(label: string): CacheSet {
    const root = join(this.dir, 'caches', label);
    const set: CacheSet = {
      cargo: join(root, 'cargo'),
      go: join(root, 'go'),
      npm: join(root, 'npm'),
      pip: join(root, 'pip'),
      uv: join(root, 'uv'),
      goBuild: join(root, 'go-build'),
      cargoTarget: join(root, 'cargo-target'),
    };
    for (const path of Object.values(set)) mkdirSync(path, { recursive: true });
    return set;
  }

  /** The projects as a checkout would have them (the cargo test copies the lockfile a fetch resolved here). */
  get projectsDir(): string {
    return this.projects;
  }

  /** A "pod": a fresh workspace and a server with the rendered config plus caches, phase and offline variables. */
  async startPod(name: string, options: PodOptions): Promise<Pod> {
    const { caches, phase } = options;
    const access = options.access ?? 'read-write';
    const podDir = join(this.dir, 'pods', name);
    const workspace = join(podDir, 'workspace');
    mkdirSync(join(podDir, 'server'), { recursive: true });
    cpSync(this.projects, workspace, { recursive: true });
    const goBuild = options.sharedBuild ? caches.goBuild : join(caches.goBuild, name);
    const cargoTarget = options.sharedBuild ? caches.cargoTarget : join(caches.cargoTarget, name);
    const rendered = this.renderedConfig as { egressProxy: Record<string, unknown> };
    const config = {
      ...this.renderedConfig,
      listen: { host: '127.0.0.1', port: 0 },
      health: undefined,
      auth: undefined,
      workspaceRoots: [workspace],
      tools: {
        mode: 'exec',
        presets: ['cargo', 'go', 'node', 'python'],
        allowedCommands: ['sh', 'bash', 'printenv', 'npm', 'pip', 'pytest', 'uv'],
      },
      limits: {
        ...(options.connect ? { connect: options.connect } : {}),
        confinement: 'required',
        maxConcurrency: 2,
        defaultTimeoutSeconds: 600,
        maxTimeoutSeconds: 900,
      },
      egressProxy: {
        ...rendered.egressProxy,
        // The Service name resolves through the pod's hosts file in a cluster; these servers run in the agent
        // namespace without one, so the proxy is named by the broker's address.
        url: `http://${BROKER_AGENT_SIDE}:${BROKER_PORT}`,
        tokenFile: this.tokenFile,
        phase,
      },
      caches: [
        { name: 'cargo', ecosystem: 'cargo', path: caches.cargo, access, kind: 'download' },
        { name: 'go', ecosystem: 'go', path: caches.go, access, kind: 'download' },
        { name: 'npm', ecosystem: 'npm', path: caches.npm, access, kind: 'download' },
        { name: 'pip', ecosystem: 'pip', path: caches.pip, access, kind: 'download' },
        { name: 'uv', ecosystem: 'uv', path: caches.uv, kind: 'build' },
        { name: 'go-build', ecosystem: 'go-build', path: goBuild, kind: 'build' },
        { name: 'cargo-target', ecosystem: 'cargo-target', path: cargoTarget, kind: 'build' },
      ],
      offlineEnv: {
        CARGO_NET_OFFLINE: 'true',
        GOPROXY: 'off',
        npm_config_offline: 'true',
        PIP_NO_INDEX: '1',
        PIP_FIND_LINKS: join(caches.pip, 'wheelhouse'),
        UV_OFFLINE: '1',
      },
      env: {
        passthrough: ['PATH'],
        set: {
          CARGO_HOME: caches.cargo,
          CARGO_TARGET_DIR: cargoTarget,
          GOMODCACHE: caches.go,
          GOCACHE: goBuild,
          npm_config_cache: caches.npm,
          PIP_CACHE_DIR: caches.pip,
          UV_CACHE_DIR: caches.uv,
          GOPROXY: 'https://proxy.golang.org',
          GONOSUMDB: GO_MODULE.path,
          GOTOOLCHAIN: 'local',
          CARGO_REGISTRIES_CRATES_IO_PROTOCOL: 'sparse',
          CARGO_TERM_COLOR: 'never',
          CARGO_NET_RETRY: '0',
          npm_config_update_notifier: 'false',
          PIP_DISABLE_PIP_VERSION_CHECK: '1',
          // Test-only: the fake registries' CA.
          NODE_EXTRA_CA_CERTS: this.caFile,
          // This machine's global npmrc names a cafile, which npm then trusts instead of NODE_EXTRA_CA_CERTS.
          npm_config_cafile: this.caFile,
          SSL_CERT_FILE: this.caFile,
          CARGO_HTTP_CAINFO: this.caFile,
          PIP_CERT: this.caFile,
        },
        callerAllowed: [],
      },
    };
    const server = await startServerProcess({
      node: 'ip',
      nodeFlags: this.world.topology.namespaces.exec('agent', [process.execPath]).slice(1),
      config,
      dir: join(podDir, 'server'),
      env: { PATH: `${rustBinDir()}:${uvBinDir()}:${DEBIAN_PATH}` },
    });
    const pod = { name, workspace, server };
    this.pods.push(pod);
    return pod;
  }

  async stopPod(pod: Pod): Promise<void> {
    pod.server.child.kill('SIGKILL');
    await pod.server.exited;
    this.pods.splice(this.pods.indexOf(pod), 1);
  }

  /** Calls one tool of a pod's server over MCP from the agent namespace. */
  async call(pod: Pod, tool: string, args: Record<string, unknown>): Promise<Exec> {
    const argv = this.world.topology.namespaces.exec('agent', [
      process.execPath,
      join(HERE, 'mcp-call.ts'),
      `${pod.server.url}/mcp`,
      tool,
      JSON.stringify(args),
    ]);
    const { stdout } = await promisify(execFile)('ip', argv.slice(1), {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    const outcome = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { result: unknown };
    const result = outcome.result as Exec | Array<{ text: string }>;
    if (Array.isArray(result))
      return { exitCode: null, stdout: '', stderr: result.map((r) => r.text).join('\n'), durationMs: 0 };
    return result;
  }

  exec(pod: Pod, cwd: string, command: string[]): Promise<Exec> {
    return this.call(pod, 'exec_allowed', { command, cwd });
  }

  /** The broker's audit lines of this toolchain's CONNECT tunnels. */
  tunnels(): Array<Readonly<Record<string, unknown>>> {
    return this.world.connects(CALLER);
  }

  /** Requests the fake registries have seen, in all. */
  registryRequests(): number {
    return [...this.world.sites.values()].reduce((n, site) => n + site.requests.length, 0);
  }

  async stop(): Promise<void> {
    for (const pod of this.pods) pod.server.child.kill('SIGKILL');
    await Promise.all(this.pods.map((pod) => pod.server.exited));
    await this.world.stop();
  }
}

/** Fails with the call's output unless it exited 0. */
export function assertOk(r: Exec, what: string): void {
  if (r.exitCode !== 0)
    throw new Error(`${what}: exit ${r.exitCode}\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`);
}

/** Each project's fetch tool, the hosts it reaches, and whether a cache set holds what it fetched. */
export const FETCH: Record<Tool, { tool: string; hosts: string[]; filled: (c: CacheSet) => boolean }> = {
  cargo: {
    tool: 'cargo_fetch',
    hosts: ['index.crates.io', 'static.crates.io'],
    filled: (c) =>
      existsSync(join(c.cargo, 'registry', 'cache')) &&
      readdirSync(join(c.cargo, 'registry', 'cache')).some((index) =>
        existsSync(join(c.cargo, 'registry', 'cache', index, `${CRATE.name}-${CRATE.version}.crate`)),
      ),
  },
  go: {
    tool: 'go_mod_download',
    hosts: ['proxy.golang.org'],
    filled: (c) =>
      existsSync(join(c.go, 'cache', 'download', GO_MODULE.path, '@v', `${GO_MODULE.version}.zip`)),
  },
  npm: {
    tool: 'npm_ci_fetch',
    hosts: ['registry.npmjs.org'],
    filled: (c) => existsSync(join(c.npm, '_cacache', 'index-v5')),
  },
  pip: {
    tool: 'pip_download',
    hosts: ['pypi.org', 'files.pythonhosted.org'],
    filled: (c) =>
      existsSync(
        join(c.pip, 'wheelhouse', `${PYPI_PACKAGE.module}-${PYPI_PACKAGE.version}-py3-none-any.whl`),
      ),
  },
  uv: {
    tool: 'uv_sync_fetch',
    hosts: ['pypi.org', 'files.pythonhosted.org'],
    // The unpacked wheel in uv's archive bucket.
    filled: (c) =>
      existsSync(c.uv) &&
      readdirSync(c.uv)
        .filter((bucket) => bucket.startsWith('archive-v'))
        .some((bucket) =>
          readdirSync(join(c.uv, bucket)).some((entry) =>
            existsSync(join(c.uv, bucket, entry, PYPI_PACKAGE.module, '__init__.py')),
          ),
        ),
  },
};

/**
 * The build and test of each project as an agent runs them after fetching, through a pod's server: cargo_test,
 * go_test, `npm ci` then npm_test, `pip install --target deps` then pytest, `uv sync --frozen` then
 * `uv run --frozen python check_marker.py`. Throws unless each passed; returns
 * the commands' run time as the server measured it (without the MCP client's own start-up).
 */
export async function buildAndTest(fixture: CachesFixture, pod: Pod, tool: Tool): Promise<number> {
  const steps: Record<Tool, Array<[string, Record<string, unknown>]>> = {
    cargo: [['cargo_test', { cwd: 'cargo' }]],
    go: [['go_test', { cwd: 'go' }]],
    npm: [
      ['exec_allowed', { cwd: 'npm', command: ['npm', 'ci', '--no-audit', '--no-fund'] }],
      ['npm_test', { cwd: 'npm' }],
    ],
    pip: [
      [
        'exec_allowed',
        {
          cwd: 'pip',
          command: ['pip', 'install', '--no-input', '--target', 'deps', '--requirement', 'requirements.txt'],
        },
      ],
      ['exec_allowed', { cwd: 'pip', command: ['pytest', '-p', 'no:cacheprovider', 'test_marker.py'] }],
    ],
    uv: [
      ['exec_allowed', { cwd: 'uv', command: ['uv', 'sync', '--frozen'] }],
      ['exec_allowed', { cwd: 'uv', command: ['uv', 'run', '--frozen', 'python', 'check_marker.py'] }],
    ],
  };
  let ms = 0;
  for (const [name, args] of steps[tool]) {
    const r = await fixture.call(pod, name, args);
    assertOk(r, `${name} ${JSON.stringify(args)}`);
    if (tool === 'npm' && name === 'npm_test' && !r.stdout.includes('marker ok'))
      throw new Error(`npm_test did not check the marker:\n${r.stdout}`);
    if (
      tool === 'uv' &&
      String(args['command']).includes('check_marker.py') &&
      !r.stdout.includes('marker ok')
    )
      throw new Error(`uv run did not check the marker:\n${r.stdout}`);
    ms += r.durationMs;
  }
  return ms;
}
