/**
 * A small seeded generator of valid, varied Agent specs for property-based tests: no dependencies, the same
 * seed always yields the same spec. Valid by construction (unique names and ports, no reserved paths or
 * env names, exec mode with commands, structured mode with presets, toolchains with `placement: pod` on a
 * ReadWriteMany workspace with a token or an explicit waiver); the invariant tests also assert that
 * `checkSpecText` accepts every generated spec, so a generator bug cannot hide a renderer bug.
 */
import type { ToolyardAgent } from '../../schema/src/types.generated.ts';
import { withCaches } from './cache-generator.ts';

/** mulberry32: tiny, fast, good enough for test data. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  bool(probability = 0.5): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]!;
  }

  /** A random subset (in the original order), at least `min` items. */
  subset<T>(items: readonly T[], min = 0): T[] {
    for (;;) {
      const chosen = items.filter(() => this.bool());
      if (chosen.length >= min) return chosen;
    }
  }
}

const WORDS = [
  'alpha',
  'build',
  'code',
  'delta',
  'edge',
  'forge',
  'gamma',
  'hub',
  'infra',
  'jet',
  'kite',
  'lab',
];
const PRESETS = ['go', 'python', 'cargo', 'node', 'terraform', 'helm'] as const;
const COMMANDS = ['cargo', 'rustc', 'go', 'python', 'pytest', 'npm', 'node', 'terraform', 'helm', 'make'];
const BACKEND_TYPES = ['claude', 'openai', 'gemini', 'custom'] as const;
const ECOSYSTEMS = ['npm', 'pypi', 'crates', 'go', 'terraform', 'helm', 'github', 'maven'] as const;
const HOSTS = ['api.github.com', '*.example.com', 'artifacts.example.org', 'mirror.example.net:443'];

/** `network.egress` by name: ecosystems, hosts, or both (never empty). */
function namedEgress(random: Random) {
  for (;;) {
    const ecosystems = random.bool(0.7) ? random.subset(ECOSYSTEMS) : [];
    const hosts = random.bool(0.5) ? random.subset(HOSTS) : [];
    if (ecosystems.length + hosts.length === 0) continue;
    return { ...(ecosystems.length > 0 ? { ecosystems } : {}), ...(hosts.length > 0 ? { hosts } : {}) };
  }
}

/** A DNS label made of words, padded towards `length` characters (never more). */
function dnsName(random: Random, length: number, prefix = ''): string {
  let name = prefix + random.pick(WORDS);
  while (name.length < length) name += `-${random.pick(WORDS)}`;
  return name.slice(0, length).replace(/-+$/, '');
}

function image(random: Random, repository: string) {
  return random.bool(0.2)
    ? { repository, digest: `sha256:${'0123456789abcdef'.repeat(4)}` }
    : {
        repository,
        tag: `${random.int(0, 3)}.${random.int(0, 20)}.${random.int(0, 9)}`,
        ...(random.bool(0.2) ? { pullPolicy: 'Always' as const } : {}),
      };
}

function resources(random: Random) {
  return random.bool(0.5)
    ? undefined
    : {
        requests: { cpu: `${random.int(1, 9) * 100}m`, memory: `${random.int(1, 8) * 128}Mi` },
        limits: { memory: `${random.int(1, 4)}Gi` },
      };
}

/** One valid spec per seed. */
/** A valid spec for a seed, caches included (test/support/cache-generator.ts). */
export function generateSpec(seed: number): ToolyardAgent {
  return withCaches(generateBaseSpec(seed), seed);
}

function generateBaseSpec(seed: number): ToolyardAgent {
  const random = new Random(seed);
  // Agent names from short to the 40-character maximum; gateways then get what is left of 63.
  const agentName = random.bool(0.15) ? dnsName(random, 40) : dnsName(random, random.int(3, 16));
  const namespace = random.bool(0.2) ? undefined : dnsName(random, random.int(4, 20));
  const agentNamespace = namespace ?? 'default';
  // The broker is on by default; off, backends hold their keys and pods get CIDR egress.
  const brokerEnabled = random.bool(0.85);
  const usedContainerNames = new Set<string>();
  const usedServerNames = new Set<string>();
  const usedPorts = new Set<number>();
  const uniqueName = (make: () => string, used: Set<string>): string => {
    for (;;) {
      const name = make();
      if (!used.has(name)) {
        used.add(name);
        return name;
      }
    }
  };
  const port = (min: number, max: number): number => {
    for (;;) {
      const candidate = random.int(min, max);
      if (!usedPorts.has(candidate)) {
        usedPorts.add(candidate);
        return candidate;
      }
    }
  };

  const backends = Array.from({ length: random.int(1, 3) }, () => {
    const type = random.pick(BACKEND_TYPES);
    // Names longer than 15 characters exercise the IANA port-name fallback; `backend-<n>` the collision with it.
    const name = uniqueName(
      () =>
        random.pick([
          () => `${type}${random.bool() ? '' : `-${random.int(1, 9)}`}`,
          () => dnsName(random, random.int(16, 30)),
          () => `backend-${random.int(0, 2)}`,
        ])(),
      usedContainerNames,
    );
    const secretCount = random.int(0, 2);
    return {
      name,
      type,
      image: image(random, `ghcr.io/example/${type}-backend`),
      port: port(8000, 8099),
      ...(random.bool(0.5) ? { healthPath: '/health' } : {}),
      ...(random.bool(0.3) ? { env: { LOG_LEVEL: random.pick(['info', 'debug']) } } : {}),
      ...(secretCount > 0
        ? {
            secretEnv: Array.from({ length: secretCount }, (_, i) => ({
              name: `API_KEY_${i}`,
              secretName: `${name}-credentials`,
              key: `key-${i}`,
            })),
          }
        : {}),
      ...(type === 'custom' && random.bool(0.5) ? { mcpConfigPath: `/home/agent/.${type}` } : {}),
      // A model backend names its key (required with the broker on); a custom one may declare a route.
      ...(type !== 'custom'
        ? { model: { apiKeySecret: { name: `${name}-model`, key: 'api-key' } } }
        : random.bool(0.5)
          ? {
              model: {
                apiKeySecret: { name: `${name}-model`, key: 'api-key' },
                upstream: 'https://llm.example.com/v1',
                credentialHeader: { name: 'authorization', prefix: 'Bearer ' },
              },
            }
          : {}),
      ...(random.bool(0.3)
        ? { network: { egress: random.bool(0.2) ? ('open' as const) : namedEgress(random) } }
        : {}),
      ...(type !== 'custom' && random.bool(0.3)
        ? {
            settings: {
              model: random.pick(['model-a', 'model-b']),
              telemetry: { enabled: random.bool(0.5) },
            },
          }
        : {}),
      ...(random.bool(0.2) ? { command: ['/usr/local/bin/backend'], args: ['--port', '8080'] } : {}),
      ...withResources(random),
    };
  });

  const toolchains = Array.from({ length: random.int(0, 4) }, () => {
    const name = uniqueName(
      () => (random.bool(0.1) ? dnsName(random, random.int(20, 40)) : dnsName(random, random.int(2, 10))),
      usedContainerNames,
    );
    usedContainerNames.add(`toolchain-${name}`);
    usedServerNames.add(`toolchain-${name}`);
    const mode = random.pick(['structured', 'exec'] as const);
    const presets = random.subset(PRESETS, mode === 'structured' ? 1 : 0);
    const allowedCommands = random.subset(COMMANDS, mode === 'exec' ? 1 : 0);
    // `<agent>-toolchain-<name>` names a toolchain pod's objects: it must fit in 63 characters.
    const inPod = agentName.length + '-toolchain-'.length + name.length <= 63 && random.bool(0.35);
    // A toolchain pod has a network namespace of its own: its port may be one the agent pod uses.
    const reusesBackendPort = inPod && random.bool(0.2);
    const mcpPort = reusesBackendPort ? backends[0]!.port : port(8700, 8799);
    const explicitHealth = reusesBackendPort || random.bool(0.3);
    const healthPort = explicitHealth ? port(9900, 9999) : mcpPort + 1000;
    if (!explicitHealth) usedPorts.add(healthPort);
    const tokenSecret = { bearerTokenSecret: { name: `${name}-token`, key: 'token' } };
    const access = inPod
      ? random.bool(0.8)
        ? { auth: tokenSecret }
        : { insecureAllowUnauthenticated: true }
      : random.bool(0.4)
        ? { auth: tokenSecret }
        : {};
    const maxTimeout = random.int(60, 3600);
    return {
      name,
      ...(inPod ? { placement: 'pod' as const } : random.bool(0.1) ? { placement: 'sidecar' as const } : {}),
      image: image(random, `docker.io/library/${random.pick(['rust', 'golang', 'node', 'python'])}`),
      port: mcpPort,
      ...(explicitHealth ? { healthPort } : {}),
      ...(random.bool(0.3) ? { injectServer: false } : {}),
      tools: { mode, presets, allowedCommands },
      ...(random.bool(0.6)
        ? {
            handles: {
              commands: random.subset(COMMANDS),
              files: random.subset(['Cargo.toml', 'go.mod', '*.py']),
            },
          }
        : {}),
      ...(random.bool(0.5)
        ? {
            limits: {
              defaultTimeoutSeconds: random.int(1, maxTimeout),
              maxTimeoutSeconds: maxTimeout,
              maxConcurrency: random.int(1, 4),
            },
          }
        : {}),
      ...(random.bool(0.8)
        ? {
            network: {
              egress: random.pick([
                () => 'none' as const,
                // The deprecated alias stands for the presets' ecosystems: it needs a preset.
                () => (presets.length > 0 ? ('registries' as const) : namedEgress(random)),
                () => 'open' as const,
                () => namedEgress(random),
              ])(),
            },
          }
        : {}),
      ...(random.bool(0.3) ? { env: { CARGO_TERM_COLOR: 'never' } } : {}),
      ...access,
      ...withResources(random),
    };
  });
  const hasToolchainPods = toolchains.some((t) => 'placement' in t && t.placement === 'pod');

  const gateways = Array.from({ length: random.int(0, 3) }, () => {
    // `<agent>-<gateway>` must fit in 63 characters.
    const room = Math.min(20, 63 - agentName.length - 1);
    const name = uniqueName(() => dnsName(random, random.int(2, room)), usedServerNames);
    const auth = {
      ...(random.bool(0.6)
        ? {
            auth: {
              bearerTokenSecret: { name: `${name}-token`, key: 'token' },
              ...(random.bool(0.3) ? { tokenEnv: 'GATEWAY_TOKEN' } : {}),
            },
          }
        : {}),
      ...(random.bool(0.3) ? { preApproved: random.bool() } : {}),
      ...(random.bool(0.3) ? { toolTimeoutSeconds: random.int(1, 7200) } : {}),
    };
    if (random.bool(0.35)) {
      const url = random.pick([
        `https://mcp.${name}.example/mcp`,
        `http://${name}.tools.svc.cluster.local:8080/mcp`,
        `https://mcp.example.com`,
      ]);
      return { name, url, ...auth };
    }
    const namespaces = random.bool(0.5) ? undefined : random.subset([agentNamespace, 'apps', 'staging'], 1);
    return {
      name,
      image: image(random, `ghcr.io/example/mcp-${name}`),
      port: random.pick([8000, 8080, 3000]),
      ...(random.bool(0.3) ? { path: '/v1/mcp' } : {}),
      ...(random.bool(0.3) ? { replicas: random.int(1, 3) } : {}),
      ...(random.bool(0.7)
        ? {
            authority: {
              kubernetes: {
                preset: random.pick(['read-only', 'namespace-write'] as const),
                ...(namespaces ? { namespaces: [...new Set(namespaces)] } : {}),
              },
            },
          }
        : {}),
      ...auth,
      ...(random.bool(0.3)
        ? { secretEnv: [{ name: 'UPSTREAM_TOKEN', secretName: `${name}-upstream`, key: 'token' }] }
        : {}),
      ...(random.bool(0.3) ? { egress: { cidrs: ['10.0.0.0/8'], ports: [443] } } : {}),
      ...(random.bool(0.5) ? { healthPath: '/health' } : {}),
    };
  });

  // Toolchain pods mount the workspace from their own pods: only a ReadWriteMany claim serves them all.
  const workspaceKind = hasToolchainPods
    ? random.pick(['existingClaim', 'claimTemplate'] as const)
    : random.pick(['default', 'emptyDir', 'memory', 'existingClaim', 'claimTemplate'] as const);
  const volume =
    workspaceKind === 'emptyDir'
      ? { emptyDir: { sizeLimit: `${random.int(1, 50)}Gi` } }
      : workspaceKind === 'memory'
        ? { emptyDir: { medium: 'Memory' as const, sizeLimit: '1Gi' } }
        : workspaceKind === 'existingClaim'
          ? {
              persistentVolumeClaim: {
                claimName: `${agentName}-src`,
                ...(hasToolchainPods || random.bool(0.2) ? { readWriteMany: true } : {}),
              },
            }
          : workspaceKind === 'claimTemplate'
            ? {
                persistentVolumeClaim: {
                  storage: `${random.int(1, 100)}Gi`,
                  ...(hasToolchainPods
                    ? {
                        storageClassName: random.pick(['nfs-csi', 'cephfs', 'efs-sc']),
                        accessModes: ['ReadWriteMany' as const],
                      }
                    : {
                        ...(random.bool() ? { storageClassName: 'standard-rwo' } : {}),
                        ...(random.bool(0.3) ? { accessModes: ['ReadWriteOncePod' as const] } : {}),
                      }),
                },
              }
            : undefined;
  const networkEnabled = random.bool(0.85);
  const rbac = random.bool(0.6) ? random.pick(['none', 'read-only', 'namespace-write'] as const) : undefined;
  // Pods with Kubernetes authority need the API server's addresses (no default since issue 32).
  const needsApiServer =
    (rbac ?? 'none') !== 'none' || gateways.some((g) => 'authority' in g && g.authority?.kubernetes);

  return {
    apiVersion: 'toolyard.dev/v1alpha1',
    kind: 'Agent',
    metadata: {
      name: agentName,
      ...(namespace ? { namespace } : {}),
      ...(random.bool(0.3) ? { labels: { team: random.pick(WORDS) } } : {}),
      ...(random.bool(0.3) ? { annotations: { owner: 'platform@example.com' } } : {}),
    },
    spec: {
      ...(volume || random.bool()
        ? {
            workspace: {
              mountPath: random.pick(['/workspace', '/src', '/home/agent/work']),
              ...(volume ? { volume } : {}),
            },
          }
        : {}),
      backends,
      ...(toolchains.length > 0 || random.bool() ? { toolchains } : {}),
      ...(gateways.length > 0 || random.bool() ? { gateways } : {}),
      ...(rbac ? { rbac: { preset: rbac } } : {}),
      networkPolicy: {
        enabled: networkEnabled,
        ...(random.bool(0.3) ? { modelEgress: { cidrs: ['0.0.0.0/0', '::/0'], ports: [443] } } : {}),
        ...(needsApiServer || random.bool(0.3)
          ? {
              apiServerEgress: random.bool()
                ? { cidrs: ['10.96.0.1/32'], ports: [443] }
                : { cidrs: ['10.96.0.1/32', '172.18.0.2/32', 'fd00:10:96::1/128'], ports: [443, 6443] },
            }
          : {}),
        ...(random.bool(0.3)
          ? { registryEgress: { cidrs: ['10.40.0.0/16', '2001:db8:40::/48'], ports: [443, 8443] } }
          : {}),
        ...(random.bool(0.3)
          ? {
              agentIngressFrom: [
                { ...(random.bool() ? { namespace: 'harness' } : {}), podLabels: { app: 'harness' } },
              ],
            }
          : {}),
      },
      ...(random.bool(0.2)
        ? { serviceAccount: { annotations: { 'iam.gke.io/gcp-service-account': 'a@b.iam' } } }
        : {}),
      ...(brokerEnabled
        ? random.bool(0.3)
          ? {
              broker: {
                ...(random.bool() ? { egressPorts: [443, 8080] } : {}),
                ...(random.bool() ? { replicas: 2 } : {}),
                ...(random.bool() ? { tokensSecret: `${agentName}-tokens` } : {}),
              },
            }
          : {}
        : { broker: { enabled: false } }),
    },
  } as ToolyardAgent;
}

function withResources(random: Random) {
  const r = resources(random);
  return r ? { resources: r } : {};
}
