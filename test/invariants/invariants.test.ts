/**
 * Invariants over every example and over randomly generated valid specs (seeded: set TOOLYARD_SEED to explore
 * other corners; a failure names the seed that reproduces it).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { checkSpecText } from '../../constructs/src/check-spec-text.ts';
import { type KubeObject, renderAgent, toYamlDocuments } from '../../constructs/src/render.ts';
import { formatSpecError } from '../../schema/src/load.ts';
import type { ToolyardAgent } from '../../schema/src/types.generated.ts';
import { exampleFiles, REPO_ROOT } from '../support/golden.ts';
import { generateSpec } from '../support/spec-generator.ts';
import { INVARIANTS } from './invariants.ts';

const GENERATED = 250;
const BASE_SEED = Number(process.env['TOOLYARD_SEED'] ?? 20250101);

interface Case {
  readonly label: string;
  readonly agent: ToolyardAgent;
  readonly objects: readonly KubeObject[];
}

function loadCases(label: string, text: string): Case[] {
  const result = checkSpecText(text, label);
  if (!result.ok) throw new Error(`${label} is invalid:\n${result.errors.map(formatSpecError).join('\n')}`);
  return result.specs.map((spec) => ({ label, agent: spec.agent, objects: renderAgent(spec.agent).objects }));
}

const exampleCases = exampleFiles().flatMap((file) =>
  loadCases(file, readFileSync(join(REPO_ROOT, file), 'utf8')),
);
const generatedTexts = Array.from({ length: GENERATED }, (_, i) => ({
  label: `generated spec (seed ${BASE_SEED + i})`,
  text: stringify(generateSpec(BASE_SEED + i)),
}));
const generatedCases = generatedTexts.flatMap(({ label, text }) => loadCases(label, text));
const allCases = [...exampleCases, ...generatedCases];

/** A container's egress posture: `none`, `open`, `registries`, or `named` (`{ hosts, ecosystems }`). */
const posture = (egress: string | object | undefined) =>
  egress === undefined ? 'none' : typeof egress === 'string' ? egress : 'named';

/** Renderer bugs these invariants found; reported, not fixed here. Each stays a visible TODO until fixed. */
/** Invariants that a known renderer bug breaks, with the reason; empty while there is none. */
const KNOWN_BUGS: Readonly<Record<string, string>> = {};

describe('invariants', () => {
  it(`the generator yields ${GENERATED} valid, varied specs`, () => {
    assert.equal(generatedCases.length, GENERATED);
    const specs = generatedCases.map((c) => c.agent.spec);
    const kinds = (o: KubeObject) => o.kind;
    const seen = {
      backendTypes: new Set(specs.flatMap((s) => s.backends.map((b) => b.type))),
      egress: new Set(specs.flatMap((s) => (s.toolchains ?? []).map((t) => posture(t.network?.egress)))),
      backendEgress: new Set(specs.flatMap((s) => s.backends.map((b) => posture(b.network?.egress)))),
      broker: new Set(specs.map((s) => s.broker?.enabled ?? true)),
      modes: new Set(specs.flatMap((s) => (s.toolchains ?? []).map((t) => t.tools?.mode))),
      gateways: new Set(
        specs.flatMap((s) => (s.gateways ?? []).map((g) => ('url' in g ? 'external' : 'deployed'))),
      ),
      toolchainCounts: new Set(specs.map((s) => s.toolchains?.length ?? 0)),
      rbac: new Set(specs.map((s) => s.rbac?.preset ?? 'none')),
      networkPolicy: new Set(specs.map((s) => s.networkPolicy?.enabled ?? true)),
      placements: new Set(specs.flatMap((s) => (s.toolchains ?? []).map((t) => t.placement ?? 'sidecar'))),
      podEgress: new Set(
        specs.flatMap((s) =>
          (s.toolchains ?? []).filter((t) => t.placement === 'pod').map((t) => posture(t.network?.egress)),
        ),
      ),
      podAccess: new Set(
        specs.flatMap((s) =>
          (s.toolchains ?? []).filter((t) => t.placement === 'pod').map((t) => (t.auth ? 'token' : 'waived')),
        ),
      ),
      podWorkspaces: new Set(
        specs
          .filter((s) => (s.toolchains ?? []).some((t) => t.placement === 'pod'))
          .map((s) => {
            const volume = s.workspace?.volume;
            return volume && 'persistentVolumeClaim' in volume && 'claimName' in volume.persistentVolumeClaim
              ? 'existing'
              : 'new';
          }),
      ),
      kinds: new Set(generatedCases.flatMap((c) => c.objects.map(kinds))),
    };
    assert.deepEqual([...seen.backendTypes].sort(), ['claude', 'custom', 'gemini', 'openai']);
    assert.deepEqual([...seen.egress].sort(), ['named', 'none', 'open', 'registries']);
    assert.deepEqual([...seen.backendEgress].sort(), ['named', 'none', 'open']);
    assert.deepEqual([...seen.broker].sort(), [false, true]);
    assert.deepEqual([...seen.modes].sort(), ['exec', 'structured']);
    assert.deepEqual([...seen.gateways].sort(), ['deployed', 'external']);
    assert.deepEqual([...seen.toolchainCounts].sort(), [0, 1, 2, 3, 4]);
    assert.deepEqual([...seen.rbac].sort(), ['namespace-write', 'none', 'read-only']);
    assert.deepEqual([...seen.networkPolicy].sort(), [false, true]);
    assert.deepEqual([...seen.placements].sort(), ['pod', 'sidecar']);
    assert.deepEqual([...seen.podEgress].sort(), ['named', 'none', 'open', 'registries']);
    assert.deepEqual([...seen.podAccess].sort(), ['token', 'waived']);
    assert.deepEqual([...seen.podWorkspaces].sort(), ['existing', 'new']);
    assert.deepEqual([...seen.kinds].sort(), [
      'ConfigMap',
      'Deployment',
      'NetworkPolicy',
      'PersistentVolumeClaim',
      'Role',
      'RoleBinding',
      'Service',
      'ServiceAccount',
      'StatefulSet',
    ]);
  });

  for (const [name, check] of Object.entries(INVARIANTS)) {
    const todo = KNOWN_BUGS[name];
    it(`${name} holds for every example and generated spec`, todo ? { todo } : {}, () => {
      const violations = allCases.flatMap((c) => check(c.objects, c.agent).map((v) => `${c.label}: ${v}`));
      assert.deepEqual(violations.slice(0, 20), [], `${violations.length} violation(s)`);
    });
  }

  it('rendering is deterministic and leaves the spec untouched', () => {
    for (const c of [...exampleCases, ...generatedCases.slice(0, 50)]) {
      const before = structuredClone(c.agent);
      const first = toYamlDocuments(renderAgent(c.agent).objects);
      const second = toYamlDocuments(renderAgent(c.agent).objects);
      assert.equal(first, second, c.label);
      assert.equal(first, toYamlDocuments(c.objects), c.label);
      assert.deepEqual(c.agent, before, `${c.label}: renderAgent mutated its input`);
    }
  });

  it('placement: pod is refused without a ReadWriteMany workspace or a token, naming the field', () => {
    const withPods = generatedCases.filter((c) =>
      (c.agent.spec.toolchains ?? []).some((t) => t.placement === 'pod'),
    );
    assert.ok(withPods.length >= 20, `only ${withPods.length} generated specs with toolchain pods`);
    const errorsOf = (agent: ToolyardAgent) => {
      const result = checkSpecText(stringify(agent), 'tampered.yaml');
      return result.ok ? [] : result.errors.map((e) => e.path);
    };
    const withWorkspace = (agent: ToolyardAgent, volume: unknown): ToolyardAgent => ({
      ...agent,
      spec: { ...agent.spec, workspace: { ...agent.spec.workspace, volume } as never },
    });
    for (const { label, agent } of withPods.slice(0, 30)) {
      assert.deepEqual(
        errorsOf(withWorkspace(agent, { emptyDir: { sizeLimit: '1Gi' } })),
        ['/spec/workspace/volume'],
        label,
      );
      assert.deepEqual(
        errorsOf(
          withWorkspace(agent, { persistentVolumeClaim: { storage: '1Gi', accessModes: ['ReadWriteOnce'] } }),
        ),
        ['/spec/workspace/volume/persistentVolumeClaim/accessModes'],
        label,
      );
      assert.deepEqual(
        errorsOf(withWorkspace(agent, { persistentVolumeClaim: { claimName: 'src' } })),
        ['/spec/workspace/volume/persistentVolumeClaim/readWriteMany'],
        label,
      );
      const toolchains = agent.spec.toolchains ?? [];
      const index = toolchains.findIndex((t) => t.placement === 'pod');
      const { auth: _auth, insecureAllowUnauthenticated: _waiver, ...bare } = toolchains[index]!;
      const tokenless = toolchains.map((t, i) => (i === index ? bare : t));
      assert.deepEqual(
        errorsOf({ ...agent, spec: { ...agent.spec, toolchains: tokenless } }),
        [`/spec/toolchains/${index}/auth`],
        label,
      );
    }
  });

  it('the generated YAML round-trips through checkSpecText to the same agent', () => {
    for (const { label, text } of generatedTexts.slice(0, 20)) {
      const result = checkSpecText(text, label);
      assert.ok(result.ok);
      assert.equal(stringify(result.specs[0]!.agent), text, label);
    }
  });
});

// biome-ignore lint/suspicious/noExplicitAny: tampering reaches deep into untyped rendered JSON
type Loose = any;

/** Each invariant must be able to fail: tamper with a real rendering and watch it object. */
describe('invariants fail on tampered renderings', () => {
  const operator = exampleCases.find((c) => c.agent.metadata.name === 'operator')!;
  const tampered = (edit: (objects: Record<string, unknown>[]) => void) => {
    const objects = structuredClone(operator.objects) as unknown as Record<string, unknown>[];
    edit(objects);
    return objects as unknown as KubeObject[];
  };
  const find = (objects: Record<string, unknown>[], kind: string, name?: string) =>
    objects.find(
      (o) => o['kind'] === kind && (name === undefined || (o['metadata'] as { name: string }).name === name),
    ) as Record<string, Loose> & { metadata: Record<string, Loose> };
  const agentPod = (objects: Record<string, unknown>[]) =>
    find(objects, 'Deployment', 'operator')['spec'].template.spec;
  const expectViolation = (check: string, objects: KubeObject[], pattern: RegExp) => {
    const violations = INVARIANTS[check]!(objects, operator.agent);
    assert.ok(
      violations.some((v) => pattern.test(v)),
      `${check} should report ${pattern}, got:\n${violations.join('\n')}`,
    );
  };

  it('the untampered example passes them all', () => {
    for (const [name, check] of Object.entries(INVARIANTS))
      if (!KNOWN_BUGS[name]) assert.deepEqual(check(operator.objects, operator.agent), [], name);
  });

  it('kubernetesSchema: a wrong type', () => {
    const objects = tampered((o) => {
      find(o, 'Deployment', 'operator')['spec'].replicas = '1';
    });
    expectViolation('kubernetesSchema', objects, /\/spec\/replicas: must be integer/);
  });

  it('apiServerAccepts: a CIDR with host bits, a Service name with a leading digit, a label value too long', () => {
    const objects = tampered((o) => {
      const policy = find(o, 'NetworkPolicy', 'operator-broker');
      policy['spec'].egress.find((rule: Loose) => rule.to?.[0]?.ipBlock).to[0].ipBlock.cidr = '10.0.0.1/8';
      find(o, 'Service', 'operator')['metadata'].name = '1operator';
      find(o, 'ConfigMap')['metadata'].labels['toolyard.dev/agent'] = 'x'.repeat(64);
    });
    expectViolation('apiServerAccepts', objects, /ipBlock\/cidr: 10\.0\.0\.1\/8: must not have bits set/);
    expectViolation('apiServerAccepts', objects, /Service\/1operator: \/metadata\/name: .* DNS-1035/);
    expectViolation('apiServerAccepts', objects, /invalid label value/);
  });

  it('podSecurityRestricted: a privileged toolchain', () => {
    const objects = tampered((o) => {
      agentPod(o).containers[1].securityContext.privileged = true;
    });
    expectViolation('podSecurityRestricted', objects, /toolchain-helm.*privileged/);
  });

  it('noSecretData: a Secret object, a secret volume, an undeclared secretKeyRef', () => {
    const objects = tampered((o) => {
      o.push({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's', namespace: 'agents' },
        data: { a: 'YQ==' },
      });
      agentPod(o).volumes.push({ name: 'creds', secret: { secretName: 'creds' } });
      agentPod(o).containers[0].env.push({
        name: 'X',
        valueFrom: { secretKeyRef: { name: 'other', key: 'k' } },
      });
    });
    expectViolation('noSecretData', objects, /Secret objects are never emitted/);
    expectViolation(
      'noSecretData',
      objects,
      /volume creds mounts a Secret that is not a declared token file/,
    );
    expectViolation('noSecretData', objects, /reads Secret other\/k, which the spec never declared/);
  });

  it('toolchainsHoldNoCredentials: token automount, a secret env or a token mount in a toolchain', () => {
    const objects = tampered((o) => {
      const pod = agentPod(o);
      pod.automountServiceAccountToken = true;
      pod.containers[1].env.push({
        name: 'T',
        valueFrom: { secretKeyRef: { name: 'mcp-helm-token', key: 'token' } },
      });
      pod.containers[1].volumeMounts.push({
        name: 'x',
        mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
      });
    });
    expectViolation('toolchainsHoldNoCredentials', objects, /automountServiceAccountToken must be false/);
    expectViolation('toolchainsHoldNoCredentials', objects, /toolchain-helm: env T comes from a Secret/);
    expectViolation('toolchainsHoldNoCredentials', objects, /toolchain-helm: mounts \/var\/run\/secrets/);
  });

  it('clientConfigsKeepContract: a client timeout under the toolchain maximum, a withheld gateway approved', () => {
    const objects = tampered((o) => {
      const data = find(o, 'ConfigMap', 'operator-mcp-clients')['data'];
      data['codex.config.toml'] = data['codex.config.toml']
        .replace('tool_timeout_sec = 1860', 'tool_timeout_sec = 300')
        .replace('default_tools_approval_mode = "prompt"', 'default_tools_approval_mode = "approve"');
    });
    expectViolation(
      'clientConfigsKeepContract',
      objects,
      /toolchain-helm times out after 300 s, under 1801 s/,
    );
    expectViolation('clientConfigsKeepContract', objects, /helm pre-approved true, the spec says false/);
  });

  it("toolchainsHoldNoCredentials: a gateway's token mounted into a toolchain, a token mounted writable", () => {
    const objects = tampered((o) => {
      const pod = agentPod(o);
      pod.volumes.push({
        name: 'stolen',
        secret: {
          secretName: 'mcp-helm-token',
          items: [{ key: 'token', path: 'token', mode: 0o440 }],
          defaultMode: 0o440,
        },
      });
      pod.containers[1].volumeMounts.push({ name: 'stolen', mountPath: '/etc/toolyard/auth' });
    });
    expectViolation(
      'toolchainsHoldNoCredentials',
      objects,
      /toolchain-helm: mounts Secret volume stolen, which is not its own/,
    );
    expectViolation('noSecretData', objects, /toolchain-helm: mounts Secret volume stolen writable/);
  });

  it('everyPodHasNetworkPolicy: a pod without policy, a policy without Egress', () => {
    const withoutPolicy = tampered((o) => {
      o.splice(o.indexOf(find(o, 'NetworkPolicy', 'operator-helm')), 1);
      find(o, 'NetworkPolicy', 'operator')['spec'].policyTypes = ['Ingress'];
    });
    expectViolation('everyPodHasNetworkPolicy', withoutPolicy, /Deployment\/operator-helm: no NetworkPolicy/);
    expectViolation('everyPodHasNetworkPolicy', withoutPolicy, /Deployment\/operator: no NetworkPolicy/);
  });

  it('rolesAreLeastPrivilege: wildcards, secrets, escalate, a dangling binding', () => {
    const objects = tampered((o) => {
      const role = find(o, 'Role', 'operator-kubernetes');
      role['rules'].push({ apiGroups: ['*'], resources: ['secrets'], verbs: ['escalate'] });
      find(o, 'RoleBinding', 'operator-kubernetes')['roleRef'].name = 'cluster-admin';
    });
    expectViolation('rolesAreLeastPrivilege', objects, /apiGroups has wildcard "\*"/);
    expectViolation('rolesAreLeastPrivilege', objects, /forbidden resource secrets/);
    expectViolation('rolesAreLeastPrivilege', objects, /forbidden verb escalate/);
    expectViolation('rolesAreLeastPrivilege', objects, /roleRef Role\/cluster-admin is not a generated Role/);
  });

  it('clientConfigUrlsResolve: a toolchain port and a gateway Service that do not exist', () => {
    const objects = tampered((o) => {
      const configMap = find(o, 'ConfigMap', 'operator-mcp-clients');
      configMap['data']['codex.config.toml'] = configMap['data']['codex.config.toml']
        .replace('127.0.0.1:8705', '127.0.0.1:8799')
        .replace(
          'operator-broker.agents.svc:8480/gateway-helm',
          'operator-broker.agents.svc:9000/gateway-helm',
        )
        .replace(
          'gateway-github"\nbearer_token_env_var = "TOOLYARD_BROKER_TOKEN"',
          'gateway-github"\nbearer_token_env_var = "GITHUB_TOKEN"',
        );
    });
    expectViolation(
      'clientConfigUrlsResolve',
      objects,
      /toolchain-helm: http:\/\/127.0.0.1:8799\/mcp: no toolchain MCP endpoint/,
    );
    expectViolation(
      'clientConfigUrlsResolve',
      objects,
      /helm: .*:9000\/gateway-helm: Service operator-broker has no port 9000/,
    );
    expectViolation('clientConfigUrlsResolve', objects, /github: token env GITHUB_TOKEN is not set/);
  });

  it('onlyBrokerHasInternetEgress: an ipBlock on the agent pod, open egress on a gateway', () => {
    const objects = tampered((o) => {
      find(o, 'NetworkPolicy', 'operator')['spec'].egress.push({ to: [{ ipBlock: { cidr: '0.0.0.0/0' } }] });
      find(o, 'NetworkPolicy', 'operator-helm')['spec'].egress.push({});
    });
    expectViolation(
      'onlyBrokerHasInternetEgress',
      objects,
      /NetworkPolicy operator: ipBlock 0\.0\.0\.0\/0 egress/,
    );
    expectViolation(
      'onlyBrokerHasInternetEgress',
      objects,
      /NetworkPolicy operator-helm: an egress rule to anywhere/,
    );
  });

  it("credentialsOnlyInBroker: a model key in a backend, another caller's broker token", () => {
    const objects = tampered((o) => {
      const codex = agentPod(o).containers.find((c: Loose) => c.name === 'codex');
      codex.env.push(
        {
          name: 'OPENAI_API_KEY',
          valueFrom: { secretKeyRef: { name: 'openai-credentials', key: 'api-key' } },
        },
        { name: 'X', valueFrom: { secretKeyRef: { name: 'operator-broker-tokens', key: 'toolchain-helm' } } },
      );
    });
    expectViolation(
      'credentialsOnlyInBroker',
      objects,
      /codex: env OPENAI_API_KEY reads openai-credentials\/api-key/,
    );
    expectViolation('credentialsOnlyInBroker', objects, /codex: env X reads another caller's broker token/);
  });

  it('brokerUrlsResolve: a base URL to the provider, a route to another host', () => {
    const objects = tampered((o) => {
      const configMap = find(o, 'ConfigMap', 'operator-mcp-clients');
      configMap['data']['codex.config.toml'] = configMap['data']['codex.config.toml'].replace(
        'base_url = "http://operator-broker.agents.svc:8480/model-codex"',
        'base_url = "https://api.openai.com/v1"',
      );
      const codex = agentPod(o).containers.find((c: Loose) => c.name === 'codex');
      codex.env.find((e: Loose) => e.name === 'TOOLYARD_BROKER_URL').value =
        'http://evil.example:8480/model-codex';
    });
    expectViolation(
      'brokerUrlsResolve',
      objects,
      /model_providers\.toolyard\.base_url: https:\/\/api\.openai\.com\/v1 is not the broker Service/,
    );
    expectViolation(
      'brokerUrlsResolve',
      objects,
      /TOOLYARD_BROKER_URL: http:\/\/evil\.example:8480\/model-codex is not the broker Service/,
    );
  });

  it('egressByNameMatchesSpec: a host added to a caller, a caller that is no container', () => {
    const objects = tampered((o) => {
      const configMap = find(o, 'ConfigMap', 'operator-broker');
      const config = JSON.parse(configMap['data']['config.json']);
      config.callers[0].egress.push({ host: 'pastebin.com', ports: [443] });
      config.callers.push({ name: 'intruder', tokenFile: '/x', routes: [], egress: [], openPorts: [443] });
      configMap['data']['config.json'] = JSON.stringify(config);
    });
    expectViolation(
      'egressByNameMatchesSpec',
      objects,
      /codex: egress pastebin\.com:443 but the spec declares $/,
    );
    expectViolation(
      'egressByNameMatchesSpec',
      objects,
      /caller intruder is not a backend or a toolchain with egress/,
    );
  });

  it('namesAreValid: a long container name and an invalid port name', () => {
    const objects = tampered((o) => {
      agentPod(o).containers[0].name = 'x'.repeat(64);
      agentPod(o).containers[0].ports[0].name = 'a-port-name-that-is-too-long';
    });
    expectViolation('namesAreValid', objects, /invalid container name x{64}/);
    expectViolation('namesAreValid', objects, /invalid port name a-port-name-that-is-too-long/);
  });

  it('portNamesAreUnique: a duplicate Service port name', () => {
    const objects = tampered((o) => {
      const ports = find(o, 'Service', 'operator')['spec'].ports;
      ports.push({ ...ports[0], port: 9090 });
    });
    expectViolation('portNamesAreUnique', objects, /Service\/operator: duplicate port names codex,codex/);
  });

  describe('on a toolchain pod (the reviewer example)', () => {
    const reviewer = exampleCases.find((c) => c.agent.metadata.name === 'reviewer')!;
    const tamper = (edit: (objects: Record<string, Loose>[]) => void) => {
      const objects = structuredClone(reviewer.objects) as unknown as Record<string, Loose>[];
      edit(objects);
      return objects as unknown as KubeObject[];
    };
    const get = (objects: Record<string, Loose>[], kind: string, name: string) =>
      objects.find((o) => o['kind'] === kind && o['metadata'].name === name)!;
    const violations = (check: string, objects: KubeObject[]) => INVARIANTS[check]!(objects, reviewer.agent);

    it('the untampered example passes them all', () => {
      for (const [name, check] of Object.entries(INVARIANTS))
        assert.deepEqual(check(reviewer.objects, reviewer.agent), [], name);
    });

    it('toolchainsHoldNoCredentials: a token automounted, the agent ServiceAccount, a backend in the pod', () => {
      const objects = tamper((o) => {
        get(o, 'ServiceAccount', 'reviewer-toolchain-rust')['automountServiceAccountToken'] = true;
        const pod = get(o, 'Deployment', 'reviewer-toolchain-go-python')['spec'].template.spec;
        pod.serviceAccountName = 'reviewer';
        pod.containers.push({ ...get(o, 'Deployment', 'reviewer')['spec'].template.spec.containers[0] });
      });
      const found = violations('toolchainsHoldNoCredentials', objects).join('\n');
      assert.match(found, /reviewer-toolchain-rust: its ServiceAccount .* does not disable token automount/);
      assert.match(
        found,
        /reviewer-toolchain-go-python: runs as ServiceAccount reviewer, not one of its own/,
      );
      assert.match(found, /reviewer-toolchain-go-python: runs claude, which is not its toolchain/);
    });

    it('toolchainPodsAreIsolated: ingress from anything, an extra port, a second policy, one type', () => {
      const wide = tamper((o) => {
        get(o, 'NetworkPolicy', 'reviewer-toolchain-rust')['spec'].ingress[0].from = [{ podSelector: {} }];
        get(o, 'NetworkPolicy', 'reviewer-toolchain-go-python')['spec'].ingress[0].ports.push({
          port: 9701,
          protocol: 'TCP',
        });
      });
      const found = violations('toolchainPodsAreIsolated', wide).join('\n');
      assert.match(found, /reviewer-toolchain-rust: ingress is not exactly "from the agent pod"/);
      // The example's observability.metrics.scrapeFrom rule: the scrapers on the metrics port, never the MCP port.
      const scrapeWide = tamper((o) => {
        get(o, 'NetworkPolicy', 'reviewer-toolchain-rust')['spec'].ingress[1].ports.push({
          port: 8702,
          protocol: 'TCP',
        });
      });
      assert.match(
        violations('toolchainPodsAreIsolated', scrapeWide).join('\n'),
        /reviewer-toolchain-rust: the scrape rule is not exactly scrapeFrom on the metrics port/,
      );
      assert.match(
        found,
        /reviewer-toolchain-go-python: ingress ports .*9701.*, expected only the MCP port 8701/,
      );
      const shared = tamper((o) => {
        get(o, 'NetworkPolicy', 'reviewer')['spec'].podSelector = {
          matchLabels: { 'app.kubernetes.io/instance': 'reviewer' },
        };
        get(o, 'NetworkPolicy', 'reviewer-toolchain-rust')['spec'].policyTypes = ['Ingress'];
      });
      assert.match(
        violations('toolchainPodsAreIsolated', shared).join('\n'),
        /reviewer-toolchain-rust: selected by NetworkPolicy\/reviewer, NetworkPolicy\/reviewer-toolchain-rust, expected its own alone/,
      );
    });

    it('toolchainPodEndpointsServe: a loopback listener, no token, a foreign Host, a Service on the wrong port', () => {
      const objects = tamper((o) => {
        const config = get(o, 'ConfigMap', 'reviewer-toolchain-rust');
        const json = JSON.parse(config['data']['config.json']);
        json.listen.host = '127.0.0.1';
        json.listen.allowedHosts = [];
        delete json.auth;
        config['data']['config.json'] = JSON.stringify(json);
        get(o, 'Service', 'reviewer-toolchain-go-python')['spec'].ports[0].targetPort = 'health-9701';
      });
      const found = violations('toolchainPodEndpointsServe', objects).join('\n');
      assert.match(found, /toolchain rust: MCP listens on loopback 127.0.0.1/);
      assert.match(found, /toolchain rust: its server requires no bearer token/);
      assert.match(found, /toolchain rust: its server refuses Host reviewer-toolchain-rust.agents.svc/);
      assert.match(found, /toolchain go-python: .*Service port 8701 does not reach the MCP listener/);
    });

    it('sharedWorkspaceIsReadWriteMany: another claim, another path, another fsGroup, a ReadWriteOnce claim', () => {
      const objects = tamper((o) => {
        const rust = get(o, 'Deployment', 'reviewer-toolchain-rust')['spec'].template.spec;
        rust.volumes[0].persistentVolumeClaim.claimName = 'elsewhere';
        rust.securityContext.fsGroup = 1000;
        get(o, 'Deployment', 'reviewer-toolchain-go-python')[
          'spec'
        ].template.spec.containers[0].volumeMounts[0].mountPath = '/src';
        get(o, 'PersistentVolumeClaim', 'reviewer-workspace')['spec'].accessModes = ['ReadWriteOnce'];
      });
      const found = violations('sharedWorkspaceIsReadWriteMany', objects).join('\n');
      assert.match(found, /pods mount different claims: reviewer-workspace, elsewhere/);
      assert.match(found, /pods run with different fsGroups: 65532, 1000/);
      assert.match(found, /reviewer-toolchain-go-python: toolchain-go-python mounts the workspace elsewhere/);
      assert.match(found, /claim reviewer-workspace is not a generated ReadWriteMany claim/);
    });
  });

  it('labelsAndNamespace: a missing recommended label and a foreign namespace', () => {
    const objects = tampered((o) => {
      const sa = find(o, 'ServiceAccount', 'operator');
      delete sa['metadata'].labels['app.kubernetes.io/part-of'];
      sa['metadata'].namespace = 'default';
    });
    expectViolation(
      'labelsAndNamespace',
      objects,
      /ServiceAccount\/operator: missing label app.kubernetes.io\/part-of/,
    );
    expectViolation(
      'labelsAndNamespace',
      objects,
      /ServiceAccount\/operator: namespace default, expected agents/,
    );
  });
});
