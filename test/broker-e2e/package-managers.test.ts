/**
 * Real package managers through the real broker, by name. A spec with one toolchain per package manager, each
 * declaring its ecosystem (`network.egress.ecosystems: [npm]`, `[pypi]`, `[crates]`, `[go]`), is rendered; the
 * broker runs as its rendered pod (config, caller tokens) in the broker namespace. Debian's npm, pip and go,
 * rustup's cargo and PyPI's uv run in the rendered toolchain container (uid 65532, read-only root, its env and volumes) in the agent's
 * network namespace, whose one reachable address is the broker's, with the proxy environment the toolchain
 * server gives its children (`egressProxyEnv` of the rendered `egressProxy`, with this container's token).
 * Each fetches its package from a fake registry that serves the real registry's name over TLS (test CA) in
 * the upstream namespace. The broker resolves the name itself and allows only the caller's own hosts: each
 * tool's fetch lands; the same tool aimed at a mirror nobody listed fails with the broker's refusal in its
 * error output, and the mirror sees no request; another caller's token does not open this caller's hosts.
 * And end to end through the toolchain server itself: the real server, started as its rendered sidecar
 * (rendered config with `egressProxy`, its token Secret mounted as a file), runs npm for an MCP `exec_allowed`
 * call from the agent namespace, and npm's fetch goes through the broker as `toolchain-npm`. (Test-only: the
 * server's config sets `NODE_EXTRA_CA_CERTS` to the test CA for its children.)
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { tracedProxyUser } from '../../toolchain-server/kit/proxy-user.ts';
import { parseTraceparent, type TraceContext } from '../../toolchain-server/kit/trace-context.ts';
import { BUNDLE_PATH } from '../../toolchain-server/scripts/bundle.ts';
import { egressProxyEnv } from '../../toolchain-server/src/policy/proxy-env.ts';
import type { FakeApi } from '../backends/fake-model.ts';
import { canEmulatePods, PodVolumes, runContainer, startContainer } from '../backends/pod-emulation.ts';
import { eventually } from './broker-process.ts';
import { NPM_PACKAGE, npmRegistry } from './fake-registries.ts';
import {
  PACKAGE_MANAGERS,
  type PackageManager,
  RUST_DIR,
  rustHostDir,
  UV_DIR,
  uvHostDir,
} from './package-managers.ts';
import { AGENT, brokerToken, RegistryWorld, toolchainConfig } from './registry-world.ts';
import { BROKER_AGENT_SIDE } from './topology.ts';

/** The context a traced `exec_allowed` call's process span gives its children. */
const TRACED_CALL = parseTraceparent(
  '00-5ce0e9a56015fec5aadfa328ae398115-7a085853722dc6d2-01',
) as TraceContext;
const HERE = dirname(fileURLToPath(import.meta.url));
const ECOSYSTEM: Record<PackageManager['name'], string> = {
  npm: 'npm',
  pip: 'pypi',
  uv: 'pypi',
  cargo: 'crates',
  go: 'go',
};
const BROKER_SERVICE = `${AGENT}-broker.agents.svc`;
const CA_DIR = '/opt/toolyard-test-ca';
/** Hosts no caller lists, serving the same packages (a tool pointed there would succeed if let through). */
const MIRRORS = ['registry.yarnpkg.com', 'pypi.doubanio.com', 'rsproxy.cn', 'goproxy.io'] as const;
/**
 * Each tool, aimed at a mirror instead of its own registry, and what its error output shows: the broker's
 * 403 reason (caller, host:port, the caller's list) where the tool prints the proxy's status text; cargo's
 * libcurl prints the status only, uv none.
 */
const UNLISTED: Record<PackageManager['name'], { registry: string; expect: RegExp }> = {
  npm: {
    registry: 'https://registry.yarnpkg.com/',
    expect:
      /E403[\s\S]*caller "toolchain-npm" may not reach registry\.yarnpkg\.com:443; its list: registry\.npmjs\.org:443/,
  },
  pip: {
    registry: 'https://pypi.doubanio.com/simple/',
    expect: /Tunnel connection failed: 403 caller "toolchain-pip" may not reach pypi\.doubanio\.com:443/,
  },
  // uv (reqwest) reports the refused CONNECT without its status.
  uv: {
    registry: 'https://pypi.doubanio.com/simple/',
    expect:
      /Failed to fetch: https:\/\/pypi\.doubanio\.com\/simple\/toolyard-e2e\/[\s\S]*tunnel error: unsuccessful/,
  },
  cargo: { registry: 'sparse+https://rsproxy.cn/', expect: /CONNECT tunnel failed, response 403/ },
  go: {
    registry: 'https://goproxy.io',
    expect: /caller \\?"toolchain-go\\?" may not reach goproxy\.io:443; its list: proxy\.golang\.org:443/,
  },
};

describe('real package managers through the real broker, by name', { timeout: 5 * 60_000 }, () => {
  // Root (namespaces, mounts) is the one prerequisite a machine may genuinely lack; CI runs as root.
  const skip = canEmulatePods();
  let world: RegistryWorld | undefined;
  let volumes: PodVolumes;
  /** Broker tokens by caller (`toolchain-npm`, …). */
  const tokens = new Map(PACKAGE_MANAGERS.map((pm) => [`toolchain-${pm.name}`, brokerToken(pm.name)]));
  const proxies = new Map<string, Parameters<typeof egressProxyEnv>[0]>();
  let imageMounts: Record<string, string> = {};

  before(async () => {
    if (skip) return;
    const missing = RegistryWorld.missing();
    if (missing) throw new Error(missing);
    world = RegistryWorld.create(join(tmpdir(), 'toolyard-broker-pm-'));
    const { dir } = world;
    const { pypi, crates, go } = await world.serveRegistries({
      cargo: 'crate-marker',
      go: 'go-marker',
      npm: 'npm-marker',
      pip: 'pypi-marker',
    });
    const mirror = new Map([
      ...npmRegistry(dir, 'https://registry.yarnpkg.com', 'mirror-marker'),
      ...pypi,
      ...crates.index,
      ...go,
    ]);
    await world.serve(MIRRORS, mirror);

    // The CA certificate alone, for the tools' trust settings (mounted like part of the image).
    const caDir = join(dir, 'ca-public');
    mkdirSync(caDir);
    writeFileSync(join(caDir, 'ca.pem'), world.ca.ca);
    // rustup's toolchain and the pinned uv, as an image would carry them.
    imageMounts = { [CA_DIR]: caDir, [RUST_DIR]: rustHostDir() as string, [UV_DIR]: uvHostDir() as string };

    const { pod, configMaps, secrets } = await world.startBroker(
      PACKAGE_MANAGERS.map((pm, i) => ({
        name: pm.name,
        image: { repository: 'debian', tag: 'bookworm' },
        port: 8700 + i,
        healthPort: 9700 + i,
        tools: { mode: 'exec' as const, allowedCommands: [pm.name] },
        network: { egress: { ecosystems: [ECOSYSTEM[pm.name]] } },
      })),
      Object.fromEntries(tokens),
    );
    for (const pm of PACKAGE_MANAGERS) {
      const name = `${AGENT}-toolchain-${pm.name}`;
      const config = toolchainConfig(configMaps, pm.name) as {
        egressProxy: Parameters<typeof egressProxyEnv>[0];
        env: { set: Record<string, string> };
      };
      proxies.set(pm.name, config.egressProxy);
      // Test-only: the server's children trust the test CA (standing in for the public roots).
      config.env.set.NODE_EXTRA_CA_CERTS = `${CA_DIR}/ca.pem`;
      configMaps.set(name, { ...configMaps.get(name), 'config.json': JSON.stringify(config) });
    }
    volumes = new PodVolumes(join(dir, 'pod'), pod, configMaps, secrets);
    // The init container's copy: the toolchain server bundle and a Node runtime in the shared emptyDir.
    const server = volumes.hostPath('toolyard-server');
    mkdirSync(join(server, 'bin'));
    copyFileSync(process.execPath, join(server, 'bin', 'node'));
    copyFileSync(BUNDLE_PATH, join(server, 'toolchain-server.mjs'));
  });

  after(async () => {
    await world?.stop();
  });

  /**
   * Runs `script` in the tool's toolchain container as the toolchain server runs a child: the container's env
   * plus the proxy env of its rendered `egressProxy`, with `caller`'s token (another caller's, to test that);
   * with `trace`, the proxy user carries it as a traced call's does (`<caller>~<traceparent>`).
   */
  const fetchWith = (pm: PackageManager, script: string, caller = pm.name, trace?: TraceContext) => {
    const work = `/tmp/${pm.name}-${Math.random().toString(36).slice(2, 8)}`;
    const proxy = proxies.get(pm.name);
    assert.ok(proxy, `toolchain ${pm.name} is rendered without an egressProxy`);
    const callerProxy = { ...proxies.get(caller), ...{ url: proxy.url, noProxy: proxy.noProxy } };
    return runContainer(volumes, `toolchain-${pm.name}`, {
      netns: world!.topology.namespaces.exec('agent', []),
      argv: ['sh', '-c', `mkdir -p ${work} && cd ${work} && ${script}`],
      imageMounts,
      imageEnv: {
        PATH: '/usr/local/bin:/usr/bin:/bin',
        ...egressProxyEnv(
          {
            url: callerProxy.url,
            user: trace ? tracedProxyUser(callerProxy.user as string, trace) : (callerProxy.user as string),
            noProxy: callerProxy.noProxy,
          },
          tokens.get(`toolchain-${caller}`) as string,
        ),
        ...pm.env(work, `${CA_DIR}/ca.pem`),
      },
      hosts: [`${BROKER_AGENT_SIDE} ${BROKER_SERVICE}`],
      timeoutMs: 120_000,
    });
  };

  const connects = (caller: string) => world?.connects(caller) ?? [];
  const site = (name: string) => world?.sites.get(name) as FakeApi;

  for (const pm of PACKAGE_MANAGERS) {
    it(`${pm.name} fetches its package from ${pm.hosts.join(' and ')} through the broker, as a traced call's child`, async (t) => {
      if (skip) return t.skip(skip);
      const before = connects(`toolchain-${pm.name}`).length;
      // The proxy user carries the call's trace context: the tool must send it as written, and the broker still
      // knows the caller by its token (the audit lines below name it).
      const result = await fetchWith(pm, pm.script(), pm.name, TRACED_CALL);
      const context = `exit ${result.code}\n${result.stdout.slice(-1500)}\n${result.stderr.slice(-3000)}\nbroker:\n${world?.broker?.output().slice(-3000)}`;
      assert.equal(result.code, 0, context);
      const tunnels = () => connects(`toolchain-${pm.name}`).slice(before);
      for (const host of pm.hosts)
        assert.ok(
          await eventually(() =>
            tunnels().some((line) => line['decision'] === 'allowed' && line['target'] === `${host}:443`),
          ),
          `no allowed tunnel to ${host}:443 in the audit\n${JSON.stringify(tunnels())}`,
        );
    });

    it(`${pm.name} aimed at a mirror nobody listed fails with the broker's refusal; the mirror sees nothing`, async (t) => {
      if (skip) return t.skip(skip);
      const mirror = site(MIRRORS[0]);
      const seen = mirror.requests.length;
      const unlisted = UNLISTED[pm.name];
      const result = await fetchWith(pm, pm.script(unlisted.registry));
      const output = `${result.stdout}\n${result.stderr}`;
      assert.notEqual(result.code, 0, output);
      assert.match(output, unlisted.expect);
      assert.equal(mirror.requests.length, seen, 'the unlisted mirror was reached');
      assert.ok(
        await eventually(() =>
          connects(`toolchain-${pm.name}`).some((line) => line['decision'] === 'denied'),
        ),
        'no denied tunnel in the audit',
      );
    });
  }

  it('npm run by the real toolchain server (its rendered config and egressProxy) fetches through the broker', async (t) => {
    if (skip) return t.skip(skip);
    const name = 'toolchain-npm';
    const config = JSON.parse(
      readFileSync(join(volumes.hostPath(`${name}-config`), 'config.json'), 'utf8'),
    ) as { listen: { port: number } };
    const registry = site('registry.npmjs.org');
    const seen = registry.requests.length;
    const started = startContainer(volumes, name, {
      netns: world!.topology.namespaces.exec('agent', []),
      imageMounts,
      imageEnv: { PATH: '/usr/local/bin:/usr/bin:/bin' },
      hosts: [`${BROKER_AGENT_SIDE} ${BROKER_SERVICE}`],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(
          () => reject(new Error(`the toolchain server did not start: ${out}`)),
          30_000,
        );
        started.child.stdout?.on('data', (chunk: Buffer) => {
          out += chunk.toString('utf8');
          if (out.includes('"event":"listening"')) {
            clearTimeout(timer);
            resolve();
          }
        });
        void started.done.then((r) =>
          reject(new Error(`the toolchain server exited ${r.code}: ${r.stderr}`)),
        );
      });
      const argv = [
        'npm',
        'install',
        '--no-audit',
        '--no-fund',
        '--no-package-lock',
        '--prefix',
        '/workspace/npm-via-server',
        `${NPM_PACKAGE.name}@${NPM_PACKAGE.version}`,
      ];
      const { stdout } = await promisify(execFile)(
        'ip',
        world!.topology.namespaces
          .exec('agent', [
            process.execPath,
            join(HERE, 'mcp-exec.ts'),
            `http://127.0.0.1:${config.listen.port}/mcp`,
            JSON.stringify(argv),
          ])
          .slice(1),
        { encoding: 'utf8' },
      );
      const outcome = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
        isError: boolean;
        result: Record<string, unknown>;
      };
      assert.equal(outcome.isError, false, stdout);
      assert.equal(outcome.result['exitCode'], 0, stdout);
      assert.ok(registry.requests.length > seen, 'the registry saw no request');
      assert.ok(
        await eventually(() =>
          connects(name).some((l) => l['decision'] === 'allowed' && l['target'] === 'registry.npmjs.org:443'),
        ),
      );
    } finally {
      if (started.child.pid)
        try {
          process.kill(-started.child.pid, 'SIGKILL');
        } catch {}
      await started.done;
    }
  });

  it("another caller's token does not open this caller's hosts", async (t) => {
    if (skip) return t.skip(skip);
    const npm = PACKAGE_MANAGERS.find((pm) => pm.name === 'npm') as PackageManager;
    const registry = site('registry.npmjs.org');
    const seen = registry.requests.length;
    const result = await fetchWith(npm, npm.script(), 'pip');
    assert.notEqual(result.code, 0, result.stdout + result.stderr);
    assert.equal(registry.requests.length, seen);
    assert.ok(
      await eventually(() => connects('toolchain-pip').some((line) => line['decision'] === 'denied')),
    );
  });

  it('no audit or log line of the broker carries a token', (t) => {
    if (skip) return t.skip(skip);
    const output = world?.broker?.output() ?? '';
    for (const value of tokens.values())
      assert.ok(!output.includes(value), 'a caller token appears in the broker output');
  });
});
