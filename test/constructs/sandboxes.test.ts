/**
 * `spec.sandboxes` rendered (docs/sandboxes.md#what-is-rendered): the manager's objects and exact Role, the
 * SandboxTemplate's warm-path settings, sandbox pods without a token or claim env, NetworkPolicies that admit only
 * the manager and let sandboxes out to nothing (or DNS + broker), the configs both servers parse, backends' client
 * configs and token; the `kubernetes` provider renders no agent-sandbox object.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkAgentDocument } from '../../constructs/src/check-agent.ts';
import { type KubeObject, renderAgent } from '../../constructs/src/render.ts';
import type { Sandboxes, ToolyardAgent } from '../../schema/src/types.generated.ts';
import { parseSandboxManagerConfig } from '../../toolchain-server/sandbox-manager/config.ts';
import { parseToolchainServerConfig } from '../../toolchain-server/src/config.ts';

type Json = Record<string, unknown>;

function agent(sandboxes: Partial<Sandboxes> = {}): ToolyardAgent {
  return {
    apiVersion: 'toolyard.dev/v1alpha1',
    kind: 'Agent',
    metadata: { name: 'analyst', namespace: 'agents' },
    spec: {
      backends: [
        {
          name: 'claude',
          type: 'claude',
          image: { repository: 'ghcr.io/example/claude', tag: '1' },
          port: 8080,
          model: { apiKeySecret: { name: 'claude-key', key: 'api-key' } },
        },
      ],
      networkPolicy: { apiServerEgress: { cidrs: ['10.96.0.1/32'], ports: [443] } },
      sandboxes: {
        auth: { bearerTokenSecret: { name: 'analyst-sandboxes-token', key: 'token' } },
        bootstrapTokenSecret: { name: 'analyst-sandbox-bootstrap', key: 'token' },
        templates: [
          {
            name: 'python',
            image: { repository: 'ghcr.io/toolyard/toolchain-go-python', tag: '0.1.0' },
            tools: { allowedCommands: ['python3'] },
            network: { egress: { ecosystems: ['pypi'] } },
            warmPool: { replicas: 3 },
          },
          {
            name: 'offline',
            image: { repository: 'docker.io/library/debian', tag: '13' },
            tools: { allowedCommands: ['sh'] },
          },
        ],
        ...sandboxes,
      } as Sandboxes,
    },
  };
}

function find(objects: readonly KubeObject[], kind: string, name: string): Json {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  assert.ok(found, `no ${kind}/${name}`);
  return found as unknown as Json;
}

const at = (value: unknown, ...path: (string | number)[]): unknown =>
  path.reduce<unknown>((v, key) => (v as Record<string | number, unknown> | undefined)?.[key], value);

describe('spec.sandboxes rendered (agent-sandbox)', () => {
  const objects = renderAgent(agent()).objects;

  it('gives the manager a Role over claims and sandboxes alone, bound to its own ServiceAccount', () => {
    const role = find(objects, 'Role', 'analyst-sandboxes');
    assert.deepEqual(role.rules, [
      {
        apiGroups: ['extensions.agents.x-k8s.io'],
        resources: ['sandboxclaims'],
        verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
      },
      { apiGroups: ['agents.x-k8s.io'], resources: ['sandboxes'], verbs: ['get', 'patch'] },
    ]);
    const binding = find(objects, 'RoleBinding', 'analyst-sandboxes');
    assert.deepEqual(binding.subjects, [
      { kind: 'ServiceAccount', name: 'analyst-sandboxes', namespace: 'agents' },
    ]);
    const pod = at(find(objects, 'Deployment', 'analyst-sandboxes'), 'spec', 'template', 'spec') as Json;
    assert.equal(pod.automountServiceAccountToken, true);
    assert.equal(at(find(objects, 'Deployment', 'analyst-sandboxes'), 'spec', 'replicas'), 1);
  });

  it('renders SandboxTemplates on the warm path: no claim env, no claim volumes, its own NetworkPolicy, no Service', () => {
    const template = find(objects, 'SandboxTemplate', 'analyst-sandbox-python');
    assert.equal(template.apiVersion, 'extensions.agents.x-k8s.io/v1beta1');
    const spec = template.spec as Json;
    assert.equal(spec.networkPolicyManagement, 'Unmanaged');
    assert.equal(spec.envVarsInjectionPolicy, 'Disallowed');
    assert.equal(spec.volumeClaimTemplatesPolicy, 'Disallowed');
    assert.equal(spec.service, false);
    assert.deepEqual(at(spec, 'volumeClaimTemplates', 0, 'metadata'), { name: 'workspace' });
    const pod = at(spec, 'podTemplate', 'spec') as Json;
    assert.equal(pod.automountServiceAccountToken, false);
    assert.equal(pod.serviceAccountName, 'analyst-sandbox');
    assert.equal(find(objects, 'ServiceAccount', 'analyst-sandbox').automountServiceAccountToken, false);
    const container = at(pod, 'containers', 0) as Json;
    assert.ok(!JSON.stringify(container.env).includes('TOKEN'), 'no token in the environment');
    assert.deepEqual(at(container, 'securityContext', 'capabilities'), { drop: ['ALL'] });
    const pool = find(objects, 'SandboxWarmPool', 'analyst-sandbox-python');
    assert.deepEqual(pool.spec, {
      replicas: 3,
      sandboxTemplateRef: { name: 'analyst-sandbox-python' },
      updateStrategy: { type: 'Recreate' },
    });
  });

  it('lets a sandbox be reached by its manager alone, and out to DNS and the broker, or nothing', () => {
    const python = find(objects, 'NetworkPolicy', 'analyst-sandbox-python').spec as Json;
    assert.deepEqual(python.ingress, [
      {
        from: [
          {
            podSelector: {
              matchLabels: {
                'app.kubernetes.io/name': 'analyst',
                'app.kubernetes.io/instance': 'analyst',
                'app.kubernetes.io/component': 'sandboxes',
              },
            },
          },
        ],
        ports: [{ port: 8800, protocol: 'TCP' }],
      },
    ]);
    const peers = (python.egress as Json[]).map((rule) => JSON.stringify(rule.to));
    assert.equal(peers.length, 2);
    assert.match(peers[0]!, /kube-dns/);
    assert.match(peers[1]!, /"broker"/);
    const offline = find(objects, 'NetworkPolicy', 'analyst-sandbox-offline').spec as Json;
    assert.deepEqual(offline.policyTypes, ['Ingress', 'Egress']);
    assert.equal(offline.egress, undefined, 'no egress rule at all, not even DNS');
    const manager = find(objects, 'NetworkPolicy', 'analyst-sandboxes').spec as Json;
    assert.match(JSON.stringify(manager.ingress), /"app.kubernetes.io\/component":"agent"/);
    assert.deepEqual((manager.egress as Json[])[0], {
      ports: [{ port: 443, protocol: 'TCP' }],
      to: [{ ipBlock: { cidr: '10.96.0.1/32' } }],
    });
    assert.doesNotMatch(JSON.stringify(manager.egress), /kube-dns/, 'the manager resolves no names');
  });

  it('emits configs the manager and the sandbox servers parse', () => {
    const managerConfig = JSON.parse(
      String(at(find(objects, 'ConfigMap', 'analyst-sandboxes'), 'data', 'config.json')),
    );
    const parsed = parseSandboxManagerConfig(managerConfig);
    assert.ok(parsed.ok);
    assert.equal(parsed.config.templates[0]?.warmPool, 'analyst-sandbox-python');
    const server = parseToolchainServerConfig(
      JSON.parse(String(at(find(objects, 'ConfigMap', 'analyst-sandbox-python'), 'data', 'config.json'))),
    );
    assert.ok(server.ok);
    assert.equal(server.config.auth, undefined, 'no token of its own: the manager binds it');
    assert.equal(server.config.sandbox?.bootstrapTokenFile, '/etc/toolyard/sandbox/bootstrap/token');
    assert.equal(server.config.egressProxy?.user, 'sandbox-python');
  });

  it('lists the manager in the backends’ client config with its token, and lets the agent pod reach it', () => {
    const configs = at(find(objects, 'ConfigMap', 'analyst-mcp-clients'), 'data') as Record<string, string>;
    const claude = JSON.parse(configs['claude.managed-mcp.json'] as string) as Json;
    assert.deepEqual(
      at(claude, 'mcpServers', 'sandboxes', 'url'),
      'http://analyst-sandboxes.agents.svc:8790/mcp',
    );
    assert.match(JSON.stringify(at(claude, 'mcpServers', 'sandboxes')), /TOOLYARD_SANDBOXES_TOKEN/);
    const backend = at(
      find(objects, 'Deployment', 'analyst'),
      'spec',
      'template',
      'spec',
      'containers',
      0,
    ) as Json;
    assert.ok(
      (backend.env as Json[]).some(
        (e) =>
          e.name === 'TOOLYARD_SANDBOXES_TOKEN' &&
          at(e, 'valueFrom', 'secretKeyRef', 'name') === 'analyst-sandboxes-token',
      ),
    );
    assert.match(
      JSON.stringify(find(objects, 'NetworkPolicy', 'analyst').spec),
      /"app.kubernetes.io\/component":"sandboxes"/,
    );
  });
});

describe('spec.sandboxes rendered (kubernetes)', () => {
  const objects = renderAgent(
    agent({ provider: 'kubernetes', templates: [agent().spec.sandboxes!.templates[1]!] }),
  ).objects;

  it('renders no agent-sandbox object; the manager creates pods and claims from its config', () => {
    assert.ok(!objects.some((o) => o.apiVersion.includes('agents.x-k8s.io')));
    assert.deepEqual(
      (find(objects, 'Role', 'analyst-sandboxes').rules as Json[]).map((r) => r.resources),
      [['pods'], ['persistentvolumeclaims']],
    );
    const parsed = parseSandboxManagerConfig(
      JSON.parse(String(at(find(objects, 'ConfigMap', 'analyst-sandboxes'), 'data', 'config.json'))),
    );
    assert.ok(parsed.ok);
    const pod = parsed.config.templates[0]?.pod;
    assert.equal(at(pod, 'spec', 'automountServiceAccountToken'), false);
    assert.equal(
      at(pod, 'spec', 'containers', 0, 'resources', 'limits', 'memory'),
      '1Gi',
      'quantities as the API takes them',
    );
  });

  it('refuses a spec whose manager is not told where the API server is (no default)', () => {
    const spec = agent();
    const { networkPolicy: _unset, ...rest } = spec.spec;
    const result = checkAgentDocument({ ...spec, spec: rest });
    assert.equal(result.ok, false);
    assert.ok(
      !result.ok &&
        result.problems.some(
          (e) => e.path === '/spec/networkPolicy/apiServerEgress' && /sandbox manager/.test(e.message),
        ),
      JSON.stringify(result),
    );
  });

  it('refuses a warm pool on the kubernetes provider, at its field', () => {
    const spec = agent({ provider: 'kubernetes' });
    const checked = checkAgentDocument(spec);
    assert.equal(checked.ok, false);
    assert.ok(!checked.ok && checked.problems.some((p) => p.path === '/spec/sandboxes/templates/0/warmPool'));
  });
});
