/**
 * The world the package-manager end-to-end tests stand in (package-managers.test.ts, and caches-fixture.ts for
 * caches.test.ts and bench/caches.ts): the broker topology's network namespaces (topology.ts), a test CA, fake
 * registries serving the real registries' names over TLS in the upstream namespace (fake-registries.ts), and
 * the real broker run as the rendered pod of an agent `e2e` whose spec has one claude backend and the
 * toolchains the test names (broker-process.ts). Each test keeps only its own toolchains, tokens and pods.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { KubeObject } from '../../constructs/src/render.ts';
import { renderAgent } from '../../constructs/src/render.ts';
import type { Toolchain, ToolyardAgent } from '../../schema/src/types.generated.ts';
import type { FakeApi } from '../backends/fake-model.ts';
import { type PodSpec, renderedPod } from '../backends/pod-emulation.ts';
import { makeTestCa, type TestCa } from '../broker/tls-fixture.ts';
import { type AuditLine, type BrokerProcess, brokerMissing, startBrokerPod } from './broker-process.ts';
import {
  cratesRegistry,
  goProxy,
  npmRegistry,
  pypiRegistry,
  type StaticFile,
  startStaticSite,
} from './fake-registries.ts';
import { PACKAGE_MANAGERS } from './package-managers.ts';
import { BrokerTopology } from './topology.ts';

export const AGENT = 'e2e';

/** A fresh broker token for `name` (a caller, or a stand-in for another Secret value). */
export const brokerToken = (name: string): string =>
  `broker-token-${name}-${Math.random().toString(36).slice(2, 14)}`;

/** What each registry's package holds as its marker (a build that checks it used what the registry served). */
export interface RegistryMarkers {
  readonly cargo: string;
  readonly go: string;
  readonly npm: string;
  readonly pip: string;
}

/** The route tables the registries serve, for a test that serves them again (a mirror) or reads one. */
export interface Registries {
  readonly npm: ReadonlyMap<string, StaticFile>;
  readonly pypi: ReadonlyMap<string, StaticFile>;
  readonly crates: {
    readonly index: ReadonlyMap<string, StaticFile>;
    readonly downloads: ReadonlyMap<string, StaticFile>;
  };
  readonly go: ReadonlyMap<string, StaticFile>;
}

/** The agent's rendered pod and the Secret values its containers mount. */
export interface AgentPod {
  readonly objects: readonly KubeObject[];
  readonly pod: PodSpec;
  readonly configMaps: Map<string, Record<string, string>>;
  readonly secrets: ReadonlyMap<string, Record<string, string>>;
}

export class RegistryWorld {
  /** The fake upstreams, by the first name each serves. */
  readonly sites = new Map<string, FakeApi>();
  /** A fresh directory for the test's files, removed by `stop`. */
  readonly dir: string;
  readonly topology: BrokerTopology;
  readonly ca: TestCa;
  private brokerProcess: BrokerProcess | undefined;

  private constructor(dir: string, topology: BrokerTopology, ca: TestCa) {
    this.dir = dir;
    this.topology = topology;
    this.ca = ca;
  }

  /** Why the world cannot be built here (no broker bundle, a package manager missing), or undefined. */
  static missing(): string | undefined {
    return brokerMissing() ?? PACKAGE_MANAGERS.map((pm) => pm.missing()).find(Boolean);
  }

  /** The namespaces and a test CA, in a fresh directory named from `dirPrefix` (as `mkdtemp` takes it). */
  static create(dirPrefix: string): RegistryWorld {
    const dir = mkdtempSync(dirPrefix);
    let topology: BrokerTopology | undefined;
    try {
      topology = new BrokerTopology();
      return new RegistryWorld(dir, topology, makeTestCa());
    } catch (error) {
      topology?.remove();
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** The broker, once `startBroker` has started it. */
  get broker(): BrokerProcess | undefined {
    return this.brokerProcess;
  }

  /** Serves `files` over HTTPS for `names` on an upstream address of their own. */
  async serve(names: readonly string[], files: ReadonlyMap<string, StaticFile>): Promise<FakeApi> {
    const site = await startStaticSite(files, await this.topology.site(this.ca, names));
    this.sites.set(names[0] as string, site);
    return site;
  }

  /**
   * Serves the four registries under their real names, in this order (each takes the next upstream address):
   * registry.npmjs.org; pypi.org and files.pythonhosted.org (with `pypiExtra`'s routes); index.crates.io;
   * static.crates.io; proxy.golang.org.
   */
  async serveRegistries(
    markers: RegistryMarkers,
    pypiExtra: ReadonlyMap<string, StaticFile> = new Map(),
  ): Promise<Registries> {
    const crates = cratesRegistry(this.dir, markers.cargo);
    const npm = npmRegistry(this.dir, 'https://registry.npmjs.org', markers.npm);
    const pypi = pypiRegistry(this.dir, markers.pip);
    const go = goProxy(this.dir, markers.go);
    await this.serve(['registry.npmjs.org'], npm);
    await this.serve(['pypi.org', 'files.pythonhosted.org'], new Map([...pypi, ...pypiExtra]));
    await this.serve(['index.crates.io'], crates.index);
    await this.serve(['static.crates.io'], crates.downloads);
    await this.serve(['proxy.golang.org'], go);
    return { npm, pypi, crates, go };
  }

  /**
   * Renders the agent with `toolchains` and starts the broker as its rendered pod, with `callerTokens` (caller
   * → token) in the broker's token Secret. Returns the agent's rendered pod for the test's own containers.
   */
  async startBroker(
    toolchains: Toolchain[],
    callerTokens: Readonly<Record<string, string>>,
  ): Promise<AgentPod> {
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
        toolchains,
      },
    };
    const objects = renderAgent(spec).objects;
    const secrets = new Map<string, Record<string, string>>([
      [`${AGENT}-broker-tokens`, { claude: brokerToken('claude'), ...callerTokens }],
      ['model-keys', { anthropic: brokerToken('anthropic-key') }],
    ]);
    this.brokerProcess = await startBrokerPod({
      topology: this.topology,
      objects,
      secrets,
      caPem: this.ca.ca,
      dir: this.dir,
    });
    return { objects, secrets, ...renderedPod(objects, AGENT) };
  }

  /** The broker's audit lines of `caller`'s CONNECT tunnels. */
  connects(caller: string): AuditLine[] {
    return (this.brokerProcess?.audit() ?? []).filter(
      (line) => line['kind'] === 'connect' && line['caller'] === caller,
    );
  }

  /** Stops the broker and the fake upstreams, removes the namespaces, the CA and the directory. */
  async stop(): Promise<void> {
    await this.brokerProcess?.stop();
    await Promise.all([...this.sites.values()].map((site) => site.close()));
    this.topology.remove();
    this.ca.cleanup();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A rendered toolchain's server config (`config.json` of its ConfigMap), parsed. */
export function toolchainConfig(
  configMaps: ReadonlyMap<string, Record<string, string>>,
  toolchain: string,
): Record<string, unknown> {
  return JSON.parse(configMaps.get(`${AGENT}-toolchain-${toolchain}`)?.['config.json'] ?? '{}');
}
