/**
 * Real package managers through the real broker, by name. Debian's npm, pip, cargo and go run in an emulated
 * toolchain container (uid 65532, read-only image, the container's env only) in the agent's network namespace,
 * where the one reachable address is the broker's. Each fetches its package from a fake registry that serves
 * the real registry's name over TLS (test CA) in the upstream namespace, through the broker's CONNECT proxy
 * with its own caller name and token in `HTTPS_PROXY`. The broker resolves the name itself and allows only the
 * caller's own hosts: each tool's own fetch lands; the same tool pointed at a mirror that is not on its list
 * fails with the broker's refusal in its error output, and the mirror sees no request; another caller's token
 * does not open this caller's hosts.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_DENIED_CIDRS } from '../../toolchain-server/broker/config.ts';
import type { FakeApi } from '../backends/fake-model.ts';
import { canEmulatePods, type PodSpec, PodVolumes, runContainer } from '../backends/pod-emulation.ts';
import { makeTestCa } from '../support/test-ca.ts';
import { type BrokerProcess, brokerMissing, startBroker } from './broker-process.ts';
import {
  cratesRegistry,
  goProxy,
  npmRegistry,
  pypiRegistry,
  type StaticFile,
  startStaticSite,
} from './fake-registries.ts';
import { PACKAGE_MANAGERS, type PackageManager } from './package-managers.ts';
import { BROKER_AGENT_SIDE, BrokerTopology, testDeniedCidrs } from './topology.ts';

const BROKER_SERVICE = 'e2e-broker.agents.svc';
const BROKER_PORT = 8480;
const CA_DIR = '/etc/toolyard-test-ca';
/** Hosts no caller lists, serving the same packages (a tool pointed there would succeed if let through). */
const MIRRORS = ['registry.yarnpkg.com', 'pypi.doubanio.com', 'rsproxy.cn', 'goproxy.io'] as const;
/**
 * Each tool, aimed at a mirror instead of its own registry, and what its error output shows: the broker's
 * 403 reason (caller, host:port, the caller's list) where the tool prints the proxy's status text; cargo's
 * libcurl prints the status only.
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
  cargo: { registry: 'sparse+https://rsproxy.cn/', expect: /CONNECT tunnel failed, response 403/ },
  go: {
    registry: 'https://goproxy.io',
    expect: /caller \\?"toolchain-go\\?" may not reach goproxy\.io:443; its list: proxy\.golang\.org:443/,
  },
};

const token = (name: string) => `broker-token-${name}-${Math.random().toString(36).slice(2, 14)}`;

describe('real package managers through the real broker, by name', { timeout: 5 * 60_000 }, () => {
  const skip = canEmulatePods() ?? brokerMissing();
  let dir: string;
  let topology: BrokerTopology | undefined;
  let broker: BrokerProcess | undefined;
  let volumes: PodVolumes;
  const sites = new Map<string, FakeApi>();
  const tokens = new Map(PACKAGE_MANAGERS.map((pm) => [pm.name, token(pm.name)]));
  let caPem = '';

  before(async () => {
    if (skip) return;
    dir = mkdtempSync(join(tmpdir(), 'toolyard-broker-pm-'));
    topology = new BrokerTopology();
    const ca = makeTestCa(join(dir, 'ca'));
    caPem = ca.caPem;
    const serve = async (names: readonly string[], files: ReadonlyMap<string, StaticFile>) =>
      sites.set(names[0] as string, await startStaticSite(files, await topology!.site(ca, names)));
    const crates = cratesRegistry(dir, 'crate-marker');
    const npm = npmRegistry(dir, 'https://registry.npmjs.org', 'npm-marker');
    const pypi = pypiRegistry(dir, 'pypi-marker');
    const go = goProxy(dir, 'go-marker');
    await serve(['registry.npmjs.org'], npm);
    await serve(['pypi.org', 'files.pythonhosted.org'], pypi);
    await serve(['index.crates.io'], crates.index);
    await serve(['static.crates.io'], crates.downloads);
    await serve(['proxy.golang.org'], go);
    const mirror = new Map([
      ...npmRegistry(dir, 'https://registry.yarnpkg.com', 'mirror-marker'),
      ...pypi,
      ...crates.index,
      ...go,
    ]);
    await serve(MIRRORS, mirror);

    const tokenDir = join(dir, 'callers');
    mkdirSync(tokenDir);
    const config = {
      agent: 'e2e',
      listen: { host: '0.0.0.0', port: BROKER_PORT, allowedHosts: [BROKER_SERVICE] },
      health: { host: '127.0.0.1', port: 9480 },
      routes: [],
      callers: PACKAGE_MANAGERS.map((pm) => {
        const tokenFile = join(tokenDir, `toolchain-${pm.name}`);
        writeFileSync(tokenFile, tokens.get(pm.name) as string, { mode: 0o400 });
        return {
          name: `toolchain-${pm.name}`,
          tokenFile,
          egress: pm.hosts.map((host) => ({ host, ports: [443] })),
        };
      }),
      // The fake upstreams live on 10.231.2.0/24 (private addresses that never leave the machine): the test
      // broker may reach that /24 and nothing else private. Loopback and every other default range stay denied.
      deniedCidrs: testDeniedCidrs(DEFAULT_DENIED_CIDRS),
    };
    broker = await startBroker(topology, config, dir);

    const pod: PodSpec = {
      securityContext: { runAsUser: 65532, runAsGroup: 65532, fsGroup: 65532 },
      containers: [
        {
          name: 'toolchain',
          securityContext: { readOnlyRootFilesystem: true },
          volumeMounts: [
            { name: 'work', mountPath: '/work' },
            { name: 'tmp', mountPath: '/tmp' },
            { name: 'test-ca', mountPath: CA_DIR },
          ],
        },
      ],
      volumes: [
        { name: 'work', emptyDir: {} },
        { name: 'tmp', emptyDir: {} },
        { name: 'test-ca', configMap: { name: 'test-ca' } },
      ],
    };
    volumes = new PodVolumes(join(dir, 'pod'), pod, new Map([['test-ca', { 'ca.pem': caPem }]]));
  });

  after(async () => {
    await broker?.stop();
    await Promise.all([...sites.values()].map((site) => site.close()));
    topology?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `script` as the tool would run under the toolchain server, with `caller`'s proxy credentials. */
  const fetchWith = (pm: PackageManager, script: string, caller = pm.name) => {
    const work = `/work/${pm.name}-${Math.random().toString(36).slice(2, 8)}`;
    const proxy = `http://toolchain-${caller}:${tokens.get(caller)}@${BROKER_SERVICE}:${BROKER_PORT}`;
    return runContainer(volumes, 'toolchain', {
      netns: topology!.namespaces.exec('agent', []),
      argv: ['sh', '-c', `mkdir -p ${work} && cd ${work} && ${script}`],
      imageEnv: {
        PATH: '/usr/local/bin:/usr/bin:/bin',
        HTTPS_PROXY: proxy,
        https_proxy: proxy,
        HTTP_PROXY: proxy,
        http_proxy: proxy,
        NO_PROXY: 'localhost,127.0.0.1',
        no_proxy: 'localhost,127.0.0.1',
        ...pm.env(work, `${CA_DIR}/ca.pem`),
      },
      hosts: [`${BROKER_AGENT_SIDE} ${BROKER_SERVICE}`],
      timeoutMs: 120_000,
    });
  };

  const connects = (caller: string) =>
    (broker?.audit() ?? []).filter((line) => line['kind'] === 'connect' && line['caller'] === caller);

  for (const pm of PACKAGE_MANAGERS) {
    it(`${pm.name} fetches its package from ${pm.hosts.join(' and ')} through the broker`, async (t) => {
      if (skip) return t.skip(skip);
      const missing = pm.missing();
      if (missing) return t.skip(missing);
      const before = connects(`toolchain-${pm.name}`).length;
      const result = await fetchWith(pm, pm.script());
      const context = `exit ${result.code}\n${result.stdout.slice(-1500)}\n${result.stderr.slice(-3000)}\nbroker:\n${broker?.output().slice(-3000)}`;
      assert.equal(result.code, 0, context);
      const tunnels = connects(`toolchain-${pm.name}`).slice(before);
      for (const host of pm.hosts)
        assert.ok(
          tunnels.some((line) => line['decision'] === 'allowed' && line['target'] === `${host}:443`),
          `no allowed tunnel to ${host}:443 in the audit\n${JSON.stringify(tunnels)}`,
        );
    });

    it(`${pm.name} aimed at a mirror nobody listed fails with the broker's refusal; the mirror sees nothing`, async (t) => {
      if (skip) return t.skip(skip);
      const missing = pm.missing();
      if (missing) return t.skip(missing);
      const mirror = sites.get(MIRRORS[0]) as FakeApi;
      const seen = mirror.requests.length;
      const unlisted = UNLISTED[pm.name];
      const result = await fetchWith(pm, pm.script(unlisted.registry));
      const output = `${result.stdout}\n${result.stderr}`;
      assert.notEqual(result.code, 0, output);
      assert.match(output, unlisted.expect);
      assert.equal(mirror.requests.length, seen, 'the unlisted mirror was reached');
      assert.ok(
        connects(`toolchain-${pm.name}`).some((line) => line['decision'] === 'denied'),
        'no denied tunnel in the audit',
      );
    });
  }

  it("another caller's token does not open this caller's hosts", async (t) => {
    if (skip) return t.skip(skip);
    const npm = PACKAGE_MANAGERS.find((pm) => pm.name === 'npm') as PackageManager;
    const registry = sites.get('registry.npmjs.org') as FakeApi;
    const seen = registry.requests.length;
    const result = await fetchWith(npm, npm.script(), 'pip');
    assert.notEqual(result.code, 0, result.stdout + result.stderr);
    assert.equal(registry.requests.length, seen);
    assert.ok(connects('toolchain-pip').some((line) => line['decision'] === 'denied'));
  });

  it('no audit or log line of the broker carries a token', (t) => {
    if (skip) return t.skip(skip);
    const output = broker?.output() ?? '';
    for (const value of tokens.values())
      assert.ok(!output.includes(value), 'a caller token appears in the broker output');
  });
});
