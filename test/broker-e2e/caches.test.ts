/**
 * Shared caches and egress only while fetching, end to end with Debian's cargo, go, npm and pip: the real
 * toolchain server (source entry, `limits.confinement: required`) runs in the agent pod's network namespace,
 * whose one reachable address is the real broker (its rendered pod, config and caller tokens); fake registries
 * serve the real names over TLS behind it (package-managers.test.ts has the topology). The server's config is
 * the rendered one plus what issue 21's renderer emits: `caches` (one directory each, shared by every "pod" of
 * the test as a claim would be), `egressProxy.phase: fetch` and `offlineEnv`.
 *
 * - pod A's fetch tools (cargo_fetch, go_mod_download, npm_ci_fetch, pip_download) fill the caches through the
 *   broker;
 * - pod B (a fresh server and workspace, the same caches) builds and tests each project offline, and the broker
 *   sees no connection from it;
 * - a non-fetch call has no proxy variable or token in its environment and cannot connect to the broker (the
 *   control, a `phase: always` pod, connects);
 * - project code cannot plant a file in a download cache, neither from a read-write consumer's non-fetch call
 *   nor from a read-only consumer (the control, a `phase: always` read-write pod, can); a read-only consumer
 *   still builds from the caches;
 * - a tampered npm cache entry is refused by npm's integrity check (control: the untampered entry installs).
 * (Test-only: the children trust the test CA through each tool's CA variable, and cargo 1.65 gets its
 * sparse-registry switch.)
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { renderAgent } from '../../constructs/src/render.ts';
import type { ToolyardAgent } from '../../schema/src/types.generated.ts';
import { PROXY_ENV_NAMES } from '../../toolchain-server/src/policy/proxy-env.ts';
import type { FakeApi } from '../backends/fake-model.ts';
import { canEmulatePods, renderedPod } from '../backends/pod-emulation.ts';
import { makeTestCa, type TestCa } from '../broker/tls-fixture.ts';
import { type ServerProcess, startServerProcess } from '../toolchain-server/process-helpers.ts';
import { type BrokerProcess, brokerMissing, startBrokerPod } from './broker-process.ts';
import { MARKERS, writeProjects } from './cache-projects.ts';
import {
  CRATE,
  cratesRegistry,
  GO_MODULE,
  goProxy,
  NPM_PACKAGE,
  npmRegistry,
  PYPI_PACKAGE,
  pypiRegistry,
  type StaticFile,
  startStaticSite,
} from './fake-registries.ts';
import { PACKAGE_MANAGERS } from './package-managers.ts';
import { BROKER_AGENT_SIDE, BrokerTopology } from './topology.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const AGENT = 'e2e';
const CALLER = 'toolchain-builder';
const BROKER_PORT = 8480;
const DEBIAN_PATH = '/usr/bin:/bin';
type Tool = 'cargo' | 'go' | 'npm' | 'pip';
const TOOLS: readonly Tool[] = ['cargo', 'go', 'npm', 'pip'];

interface Exec {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

interface Pod {
  readonly name: string;
  readonly workspace: string;
  readonly server: ServerProcess;
}

describe('caches and the fetch phase: Debian cargo, go, npm and pip through the real server and broker', {
  timeout: 20 * 60_000,
}, () => {
  const skip = canEmulatePods();
  let dir: string;
  let ca: TestCa | undefined;
  let topology: BrokerTopology | undefined;
  let broker: BrokerProcess | undefined;
  const sites = new Map<string, FakeApi>();
  const pods: Pod[] = [];
  const token = `broker-token-builder-${Math.random().toString(36).slice(2, 14)}`;
  let tokenFile: string;
  let caFile: string;
  let projects: string;
  let renderedConfig: Record<string, unknown>;
  let npmIntegrity: string;
  let cache: Record<'cargo' | 'go' | 'npm' | 'pip' | 'goBuild', string>;

  before(async () => {
    if (skip) return;
    const missing = brokerMissing() ?? PACKAGE_MANAGERS.map((pm) => pm.missing()).find(Boolean);
    if (missing) throw new Error(missing);
    // Outside TMPDIR: the server's confinement hides its TMPDIR (other calls' scratch) from every call.
    dir = mkdtempSync('/var/tmp/toolyard-caches-e2e-');
    topology = new BrokerTopology();
    const testCa = makeTestCa();
    ca = testCa;
    const serve = async (names: readonly string[], files: ReadonlyMap<string, StaticFile>) =>
      sites.set(names[0] as string, await startStaticSite(files, await topology!.site(testCa, names)));
    const crates = cratesRegistry(dir, MARKERS.cargo);
    const npm = npmRegistry(dir, 'https://registry.npmjs.org', MARKERS.npm);
    await serve(['registry.npmjs.org'], npm);
    await serve(['pypi.org', 'files.pythonhosted.org'], pypiRegistry(dir, MARKERS.pip));
    await serve(['index.crates.io'], crates.index);
    await serve(['static.crates.io'], crates.downloads);
    await serve(['proxy.golang.org'], goProxy(dir, MARKERS.go));
    const packument = JSON.parse(String(npm.get(`/${NPM_PACKAGE.name}`)?.body)) as {
      versions: Record<string, { dist: { integrity: string } }>;
    };
    npmIntegrity = packument.versions[NPM_PACKAGE.version]!.dist.integrity;

    caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, testCa.ca);
    mkdirSync(join(dir, 'secret'));
    tokenFile = join(dir, 'secret', 'token');
    writeFileSync(tokenFile, token);
    cache = {
      cargo: join(dir, 'caches', 'cargo'),
      go: join(dir, 'caches', 'go'),
      npm: join(dir, 'caches', 'npm'),
      pip: join(dir, 'caches', 'pip'),
      goBuild: join(dir, 'caches', 'go-build'),
    };
    for (const path of Object.values(cache)) mkdirSync(path, { recursive: true });
    projects = join(dir, 'projects');
    writeProjects(projects, npmIntegrity);
    writeFileSync(join(projects, 'plant.sh'), 'echo planted > "$1/planted-$2" && echo wrote\n');
    writeFileSync(join(projects, 'connect.sh'), 'exec 3<>"/dev/tcp/$1/$2" && echo connected\n');

    const spec: ToolyardAgent = {
      apiVersion: 'toolyard.dev/v1alpha1',
      kind: 'Agent',
      metadata: { name: AGENT, namespace: 'agents' },
      spec: {
        workspace: { mountPath: '/workspace' },
        backends: [
          {
            name: 'claude',
            type: 'claude',
            image: { repository: 'example/claude-code', tag: '2.1.330' },
            port: 8080,
            model: { apiKeySecret: { name: 'model-keys', key: 'anthropic' } },
          },
        ],
        toolchains: [
          {
            name: 'builder',
            image: { repository: 'debian', tag: 'bookworm' },
            port: 8700,
            healthPort: 9700,
            tools: { mode: 'exec', allowedCommands: ['sh'] },
            network: { egress: { ecosystems: ['npm', 'pypi', 'crates', 'go'] } },
          },
        ],
      },
    };
    const objects = renderAgent(spec).objects;
    const secrets = new Map<string, Record<string, string>>([
      [`${AGENT}-broker-tokens`, { claude: 'claude-token-x', [CALLER]: token }],
      ['model-keys', { anthropic: 'model-key-x' }],
    ]);
    broker = await startBrokerPod({ topology, objects, secrets, caPem: testCa.ca, dir });
    const { configMaps } = renderedPod(objects, AGENT);
    renderedConfig = JSON.parse(configMaps.get(`${AGENT}-toolchain-builder`)?.['config.json'] ?? '{}');
    assert.equal((renderedConfig.egressProxy as { user: string }).user, CALLER);
  });

  after(async () => {
    for (const pod of pods) pod.server.child.kill('SIGKILL');
    await Promise.all(pods.map((pod) => pod.server.exited));
    await broker?.stop();
    await Promise.all([...sites.values()].map((site) => site.close()));
    topology?.remove();
    ca?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A "pod": a fresh workspace (a copy of the projects, as a checkout) and a server with the rendered config plus
   * caches, phase and offline variables; `access` for the download caches (the go build cache is the pod's own).
   */
  const startPod = async (
    name: string,
    phase: 'always' | 'fetch',
    access: 'read-write' | 'read-only' = 'read-write',
  ): Promise<Pod> => {
    const workspace = join(dir, 'pods', name, 'workspace');
    mkdirSync(dirname(workspace), { recursive: true });
    cpSync(projects, workspace, { recursive: true });
    const rendered = renderedConfig as { egressProxy: Record<string, unknown> };
    const config = {
      ...renderedConfig,
      listen: { host: '127.0.0.1', port: 0 },
      health: undefined,
      auth: undefined,
      workspaceRoots: [workspace],
      tools: {
        mode: 'exec',
        presets: ['cargo', 'go', 'node', 'python'],
        allowedCommands: ['sh', 'bash', 'printenv', 'npm', 'pip', 'pytest'],
      },
      limits: {
        confinement: 'required',
        maxConcurrency: 2,
        defaultTimeoutSeconds: 600,
        maxTimeoutSeconds: 900,
      },
      egressProxy: {
        ...rendered.egressProxy,
        // The Service name resolves through the pod's hosts file in a cluster; this test's server runs in the
        // agent namespace without one, so the proxy is named by the broker's address.
        url: `http://${BROKER_AGENT_SIDE}:${BROKER_PORT}`,
        tokenFile,
        phase,
      },
      caches: [
        { name: 'cargo', ecosystem: 'cargo', path: cache.cargo, access, kind: 'download' },
        { name: 'go', ecosystem: 'go', path: cache.go, access, kind: 'download' },
        { name: 'npm', ecosystem: 'npm', path: cache.npm, access, kind: 'download' },
        { name: 'pip', ecosystem: 'pip', path: cache.pip, access, kind: 'download' },
        { name: 'go-build', ecosystem: 'go-build', path: join(cache.goBuild, name), kind: 'build' },
      ],
      offlineEnv: {
        CARGO_NET_OFFLINE: 'true',
        GOPROXY: 'off',
        GOFLAGS: '-mod=mod',
        npm_config_offline: 'true',
        PIP_NO_INDEX: '1',
        PIP_FIND_LINKS: join(cache.pip, 'wheelhouse'),
      },
      env: {
        passthrough: ['PATH'],
        set: {
          CARGO_HOME: cache.cargo,
          GOMODCACHE: cache.go,
          GOCACHE: join(cache.goBuild, name),
          npm_config_cache: cache.npm,
          PIP_CACHE_DIR: cache.pip,
          GOPROXY: 'https://proxy.golang.org',
          GONOSUMDB: GO_MODULE.path,
          GOTOOLCHAIN: 'local',
          CARGO_REGISTRIES_CRATES_IO_PROTOCOL: 'sparse',
          CARGO_TERM_COLOR: 'never',
          CARGO_NET_RETRY: '0',
          npm_config_update_notifier: 'false',
          PIP_DISABLE_PIP_VERSION_CHECK: '1',
          // Test-only: the fake registries' CA, and Debian cargo 1.65's switch for the sparse protocol.
          NODE_EXTRA_CA_CERTS: caFile,
          // This machine's global npmrc names a cafile, which npm then trusts instead of NODE_EXTRA_CA_CERTS.
          npm_config_cafile: caFile,
          SSL_CERT_FILE: caFile,
          CARGO_HTTP_CAINFO: caFile,
          PIP_CERT: caFile,
          CARGO_UNSTABLE_SPARSE_REGISTRY: 'true',
          __CARGO_TEST_CHANNEL_OVERRIDE_DO_NOT_USE_THIS: 'nightly',
        },
        callerAllowed: [],
      },
    };
    mkdirSync(join(dir, 'pods', name, 'server'), { recursive: true });
    const server = await startServerProcess({
      node: 'ip',
      nodeFlags: topology!.namespaces.exec('agent', [process.execPath]).slice(1),
      config,
      dir: join(dir, 'pods', name, 'server'),
      env: { PATH: DEBIAN_PATH },
    });
    const pod = { name, workspace, server };
    pods.push(pod);
    return pod;
  };

  const call = async (pod: Pod, tool: string, args: Record<string, unknown>): Promise<Exec> => {
    const { stdout } = await promisify(execFile)(
      'ip',
      topology!.namespaces
        .exec('agent', [
          process.execPath,
          join(HERE, 'mcp-call.ts'),
          `${pod.server.url}/mcp`,
          tool,
          JSON.stringify(args),
        ])
        .slice(1),
      { encoding: 'utf8', maxBuffer: 64 << 20 },
    );
    const outcome = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { result: unknown };
    const result = outcome.result as Exec | Array<{ text: string }>;
    if (Array.isArray(result))
      return { exitCode: null, stdout: '', stderr: result.map((r) => r.text).join('\n') };
    return result;
  };
  const exec = (pod: Pod, cwd: string, command: string[]) => call(pod, 'exec_allowed', { command, cwd });
  const ok = (r: Exec, what: string) =>
    assert.equal(
      r.exitCode,
      0,
      `${what}: exit ${r.exitCode}\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`,
    );
  const tunnels = () =>
    (broker?.audit() ?? []).filter((line) => line['kind'] === 'connect' && line['caller'] === CALLER);

  /** The build (and test) of each project, as an agent would run it after fetching. */
  const build: Record<Tool, (pod: Pod) => Promise<void>> = {
    cargo: async (pod) => ok(await call(pod, 'cargo_test', { cwd: 'cargo' }), 'cargo_test'),
    go: async (pod) => ok(await call(pod, 'go_test', { cwd: 'go' }), 'go_test'),
    npm: async (pod) => {
      ok(await exec(pod, 'npm', ['npm', 'ci', '--no-audit', '--no-fund']), 'npm ci (offline)');
      const test = await call(pod, 'npm_test', { cwd: 'npm' });
      ok(test, 'npm_test');
      assert.match(test.stdout, /marker ok/);
    },
    pip: async (pod) => {
      ok(
        await exec(pod, 'pip', [
          'pip',
          'install',
          '--no-input',
          '--target',
          'deps',
          '--requirement',
          'requirements.txt',
        ]),
        'pip install (offline)',
      );
      ok(await exec(pod, 'pip', ['pytest', '-p', 'no:cacheprovider', 'test_marker.py']), 'pytest');
    },
  };

  const FETCH: Record<Tool, { tool: string; filled: () => boolean; hosts: string[] }> = {
    cargo: {
      tool: 'cargo_fetch',
      hosts: ['index.crates.io', 'static.crates.io'],
      filled: () =>
        readdirSync(join(cache.cargo, 'registry', 'cache')).some((index) =>
          existsSync(join(cache.cargo, 'registry', 'cache', index, `${CRATE.name}-${CRATE.version}.crate`)),
        ),
    },
    go: {
      tool: 'go_mod_download',
      hosts: ['proxy.golang.org'],
      filled: () =>
        existsSync(join(cache.go, 'cache', 'download', GO_MODULE.path, '@v', `${GO_MODULE.version}.zip`)),
    },
    npm: {
      tool: 'npm_ci_fetch',
      hosts: ['registry.npmjs.org'],
      filled: () => existsSync(join(cache.npm, '_cacache', 'index-v5')),
    },
    pip: {
      tool: 'pip_download',
      hosts: ['pypi.org', 'files.pythonhosted.org'],
      filled: () =>
        existsSync(
          join(cache.pip, 'wheelhouse', `${PYPI_PACKAGE.module}-${PYPI_PACKAGE.version}-py3-none-any.whl`),
        ),
    },
  };

  let podA: Pod;
  let podB: Pod;
  let podAlways: Pod;
  let podReadOnly: Pod;

  for (const tool of TOOLS)
    it(`${tool}: a fetch call (${FETCH[tool].tool}) fills the cache through the broker`, async (t) => {
      if (skip) return t.skip(skip);
      podA ??= await startPod('a', 'fetch');
      const before = tunnels().length;
      ok(await call(podA, FETCH[tool].tool, { cwd: tool }), FETCH[tool].tool);
      assert.ok(FETCH[tool].filled(), `${tool}: the cache holds nothing after the fetch`);
      for (const host of FETCH[tool].hosts)
        assert.ok(
          tunnels()
            .slice(before)
            .some((line) => line['decision'] === 'allowed' && line['target'] === `${host}:443`),
          `${tool}: no allowed tunnel to ${host} in the broker's audit`,
        );
      // The repository commits its lockfile: later pods check out the one the fetch resolved.
      if (tool === 'cargo')
        cpSync(join(podA.workspace, 'cargo', 'Cargo.lock'), join(projects, 'cargo', 'Cargo.lock'));
    });

  for (const tool of TOOLS)
    it(`${tool}: a second pod (fresh server and workspace, same cache) builds and tests offline; the broker sees nothing`, async (t) => {
      if (skip) return t.skip(skip);
      podB ??= await startPod('b', 'fetch');
      const before = tunnels().length;
      const seen = [...sites.values()].reduce((n, site) => n + site.requests.length, 0);
      await build[tool](podB);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(tunnels().length, before, `${tool}: the offline build opened a tunnel`);
      assert.equal(
        [...sites.values()].reduce((n, site) => n + site.requests.length, 0),
        seen,
      );
    });

  it('a non-fetch call has no proxy variable or token and cannot connect to the broker; the control (phase always) can', async (t) => {
    if (skip) return t.skip(skip);
    podB ??= await startPod('b', 'fetch');
    podAlways ??= await startPod('always', 'always');
    const env = await exec(podB, '.', ['printenv']);
    ok(env, 'printenv');
    assert.ok(
      !env.stdout.includes(token) && !env.stdout.includes(encodeURIComponent(token)),
      'token in a build call',
    );
    for (const name of PROXY_ENV_NAMES) assert.doesNotMatch(env.stdout, new RegExp(`^${name}=`, 'm'));
    assert.match(env.stdout, /^CARGO_NET_OFFLINE=true$/m);
    const connect = await exec(podB, '.', ['bash', 'connect.sh', BROKER_AGENT_SIDE, String(BROKER_PORT)]);
    assert.notEqual(connect.exitCode, 0);
    assert.match(connect.stderr, /Permission denied/);
    const controlEnv = await exec(podAlways, '.', ['printenv', 'HTTPS_PROXY']);
    assert.ok(controlEnv.stdout.includes(encodeURIComponent(token)), 'control: phase always has no token');
    const control = await exec(podAlways, '.', [
      'bash',
      'connect.sh',
      BROKER_AGENT_SIDE,
      String(BROKER_PORT),
    ]);
    assert.equal(control.stdout, 'connected\n', control.stderr);
  });

  for (const tool of TOOLS)
    it(`${tool}: project code cannot plant a file in the download cache (read-write consumer's build call, read-only consumer); the control (phase always, read-write) can; the read-only consumer still builds`, async (t) => {
      if (skip) return t.skip(skip);
      podB ??= await startPod('b', 'fetch');
      podAlways ??= await startPod('always', 'always');
      podReadOnly ??= await startPod('ro', 'fetch', 'read-only');
      const target = cache[tool];
      for (const pod of [podB, podReadOnly]) {
        const r = await exec(pod, '.', ['sh', 'plant.sh', target, pod.name]);
        assert.notEqual(r.exitCode, 0, `${pod.name} planted into ${tool}'s cache`);
        assert.match(r.stderr, /Permission denied/);
        assert.ok(!existsSync(join(target, `planted-${pod.name}`)));
      }
      const control = await exec(podAlways, '.', ['sh', 'plant.sh', target, 'control']);
      assert.equal(control.stdout, 'wrote\n', control.stderr);
      rmSync(join(target, 'planted-control'));
      await build[tool](podReadOnly);
    });

  it("npm: a tampered cache entry is refused by npm's integrity check; the control (restored entry) installs", async (t) => {
    if (skip) return t.skip(skip);
    podB ??= await startPod('b', 'fetch');
    const hex = Buffer.from(npmIntegrity.slice('sha512-'.length), 'base64').toString('hex');
    const entry = join(
      cache.npm,
      '_cacache',
      'content-v2',
      'sha512',
      hex.slice(0, 2),
      hex.slice(2, 4),
      hex.slice(4),
    );
    const original = readFileSync(entry);
    try {
      // Someone with write access (another consumer, the node) swaps the tarball for one with other code.
      const evil = npmRegistry(join(dir, 'evil'), 'https://registry.npmjs.org', 'planted-marker');
      writeFileSync(
        entry,
        evil.get(`/${NPM_PACKAGE.name}/-/${NPM_PACKAGE.name}-${NPM_PACKAGE.version}.tgz`)!.body,
      );
      rmSync(join(podB.workspace, 'npm', 'node_modules'), { recursive: true, force: true });
      const r = await exec(podB, 'npm', ['npm', 'ci', '--no-audit', '--no-fund']);
      assert.notEqual(r.exitCode, 0, r.stdout);
      // npm checks the entry's sha512 on read, calls it corrupted and would refetch: this build call may neither
      // delete the entry (the download cache is read-only to it) nor reach the registry.
      assert.match(r.stderr, /seems to be corrupted|EINTEGRITY/);
      assert.ok(!existsSync(join(podB.workspace, 'npm', 'node_modules', NPM_PACKAGE.name, 'index.js')));
    } finally {
      writeFileSync(entry, original);
    }
    await build.npm(podB);
  });
});
