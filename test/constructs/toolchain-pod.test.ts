/** `placement: pod`: a toolchain in its own Deployment, Service, ServiceAccount and NetworkPolicy. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mcpClientConfigFiles } from '../../constructs/src/mcp-client-configs.ts';
import { planAgent } from '../../constructs/src/plan.ts';
import { agentWarnings } from '../../constructs/src/warnings.ts';
import type { AgentSpec, Toolchain } from '../../schema/src/types.generated.ts';
import { parseToolchainServerConfig } from '../../toolchain-server/src/config.ts';
import {
  brokerOff,
  find,
  type Json,
  labelsFor,
  minimalAgent,
  objectsOf,
  podSpecOf,
  rustToolchain,
} from './fixtures.ts';

const rwxWorkspace: AgentSpec['workspace'] = {
  volume: {
    persistentVolumeClaim: { storage: '20Gi', storageClassName: 'nfs-csi', accessModes: ['ReadWriteMany'] },
  },
};
const rustPod: Toolchain = {
  ...rustToolchain,
  placement: 'pod',
  auth: { bearerTokenSecret: { name: 'tiny-rust-token', key: 'token' } },
};
const selector = (component: string) => ({
  'app.kubernetes.io/component': component,
  'app.kubernetes.io/instance': 'tiny',
  'app.kubernetes.io/name': 'tiny',
});
const dnsRule = {
  ports: [
    { port: 53, protocol: 'UDP' },
    { port: 53, protocol: 'TCP' },
  ],
  to: [
    {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
      podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
    },
  ],
};
const fromAgentOnMcp = [
  { from: [{ podSelector: { matchLabels: selector('agent') } }], ports: [{ port: 8702, protocol: 'TCP' }] },
];

describe('ToolchainPod', () => {
  const objects = objectsOf(minimalAgent({ workspace: rwxWorkspace, toolchains: [rustPod] }));

  it('renders the toolchain as its own Deployment, Service, ServiceAccount, NetworkPolicy and ConfigMap', () => {
    assert.deepEqual(
      objects.filter((o) => o.metadata.name === 'tiny-toolchain-rust').map((o) => o.kind),
      ['ConfigMap', 'ServiceAccount', 'Deployment', 'Service', 'NetworkPolicy'],
    );
    for (const o of objects.filter((x) => x.metadata.name === 'tiny-toolchain-rust'))
      assert.deepEqual(o.metadata['labels'], labelsFor('tiny', 'toolchain-rust'), o.kind);
  });

  it('gives it a ServiceAccount of its own that mounts no token', () => {
    assert.deepEqual(find(objects, 'ServiceAccount', 'tiny-toolchain-rust') as Json, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: {
        labels: labelsFor('tiny', 'toolchain-rust'),
        name: 'tiny-toolchain-rust',
        namespace: 'agents',
      },
      automountServiceAccountToken: false,
    });
    const pod = podSpecOf(objects, 'tiny-toolchain-rust');
    assert.equal(pod.serviceAccountName, 'tiny-toolchain-rust');
    assert.equal(pod.automountServiceAccountToken, false);
  });

  it('exposes only the MCP port through its Service', () => {
    assert.deepEqual((find(objects, 'Service', 'tiny-toolchain-rust') as Json).spec, {
      ports: [{ name: 'mcp', port: 8702, protocol: 'TCP', targetPort: 'mcp' }],
      selector: selector('toolchain-rust'),
      type: 'ClusterIP',
    });
    const container = podSpecOf(objects, 'tiny-toolchain-rust').containers[0];
    assert.deepEqual(container.ports, [
      { containerPort: 8702, name: 'mcp', protocol: 'TCP' },
      { containerPort: 9702, name: 'health-9702', protocol: 'TCP' },
    ]);
    assert.deepEqual(container.readinessProbe.httpGet, { path: '/readyz', port: 9702 });
  });

  it('runs only the toolchain (and its server installer) in its pod; the agent pod no longer has it', () => {
    const pod = podSpecOf(objects, 'tiny-toolchain-rust');
    assert.deepEqual(
      pod.containers.map((c: Json) => c.name),
      ['toolchain-rust'],
    );
    assert.deepEqual(
      pod.initContainers.map((c: Json) => c.name),
      ['toolyard-install'],
    );
    const agent = podSpecOf(objects, 'tiny');
    assert.deepEqual(
      agent.containers.map((c: Json) => c.name),
      ['claude'],
    );
    assert.equal(agent.initContainers, undefined, 'no sidecar needs the installer');
    assert.ok(!agent.volumes.some((v: Json) => String(v.name).startsWith('toolchain-rust')));
  });

  it('mounts the same claim at the same path with the same fsGroup as the agent pod', () => {
    const claim = find(objects, 'PersistentVolumeClaim', 'tiny-workspace') as Json;
    assert.deepEqual(claim.spec, {
      accessModes: ['ReadWriteMany'],
      resources: { requests: { storage: '20Gi' } },
      storageClassName: 'nfs-csi',
    });
    assert.equal(
      objects.some((o) => o.kind === 'StatefulSet'),
      false,
      'a shared claim, not a claim template',
    );
    for (const name of ['tiny', 'tiny-toolchain-rust']) {
      const pod = podSpecOf(objects, name);
      assert.deepEqual(
        pod.volumes.find((v: Json) => v.name === 'workspace'),
        { name: 'workspace', persistentVolumeClaim: { claimName: 'tiny-workspace' } },
        name,
      );
      assert.equal(pod.securityContext.fsGroup, 65532, name);
      for (const container of pod.containers)
        assert.deepEqual(
          container.volumeMounts.find((m: Json) => m.name === 'workspace'),
          { name: 'workspace', mountPath: '/workspace' },
          `${name}/${container.name}`,
        );
    }
    assert.equal((find(objects, 'Deployment', 'tiny') as Json).spec.strategy.type, 'Recreate');
  });

  it('mounts an existing claim declared ReadWriteMany, and generates no claim', () => {
    const existing = objectsOf(
      minimalAgent({
        workspace: { volume: { persistentVolumeClaim: { claimName: 'shared-src', readWriteMany: true } } },
        toolchains: [rustPod],
      }),
    );
    assert.ok(!existing.some((o) => o.kind === 'PersistentVolumeClaim'));
    for (const name of ['tiny', 'tiny-toolchain-rust'])
      assert.deepEqual(
        podSpecOf(existing, name).volumes.find((v: Json) => v.name === 'workspace'),
        { name: 'workspace', persistentVolumeClaim: { claimName: 'shared-src' } },
      );
  });

  it('serves MCP on the pod IP for its Service name, with the token file', () => {
    const configMap = find(objects, 'ConfigMap', 'tiny-toolchain-rust') as Json;
    const parsed = parseToolchainServerConfig(JSON.parse(configMap.data['config.json']));
    assert.ok(parsed.ok, JSON.stringify(parsed));
    assert.deepEqual(parsed.config.listen, {
      host: '0.0.0.0',
      port: 8702,
      allowedHosts: ['tiny-toolchain-rust.agents.svc'],
      allowUnauthenticated: false,
    });
    assert.deepEqual(parsed.config.auth, { bearerTokenFile: '/etc/toolyard/auth/token' });
    const pod = podSpecOf(objects, 'tiny-toolchain-rust');
    assert.deepEqual(
      pod.volumes.find((v: Json) => v.name === 'toolchain-rust-token'),
      {
        name: 'toolchain-rust-token',
        secret: {
          defaultMode: 0o440,
          items: [{ key: 'token', mode: 0o440, path: 'token' }],
          secretName: 'tiny-rust-token',
        },
      },
    );
    const annotations = (find(objects, 'Deployment', 'tiny-toolchain-rust') as Json).spec.template.metadata
      .annotations;
    assert.match(annotations['toolyard.dev/config-hash'], /^[0-9a-f]{8}$/);
  });

  it('waives the token only when the spec says insecureAllowUnauthenticated', () => {
    const open = objectsOf(
      minimalAgent({
        workspace: rwxWorkspace,
        toolchains: [{ ...rustToolchain, placement: 'pod', insecureAllowUnauthenticated: true }],
      }),
    );
    const config = JSON.parse((find(open, 'ConfigMap', 'tiny-toolchain-rust') as Json).data['config.json']);
    assert.equal(config.listen.allowUnauthenticated, true);
    assert.equal(config.auth, undefined);
    assert.ok(!podSpecOf(open, 'tiny-toolchain-rust').volumes.some((v: Json) => 'secret' in v));
  });

  it('points every backend config at the Service URL with the token header', () => {
    const plan = planAgent(
      minimalAgent({
        workspace: rwxWorkspace,
        backends: [
          { name: 'claude', type: 'claude', image: { repository: 'c', tag: '1' }, port: 8080 },
          { name: 'codex', type: 'openai', image: { repository: 'o', tag: '1' }, port: 8081 },
          { name: 'gemini', type: 'gemini', image: { repository: 'g', tag: '1' }, port: 8082 },
        ],
        toolchains: [rustPod],
      }),
    );
    const url = 'http://tiny-toolchain-rust.agents.svc:8702/mcp';
    const files = Object.fromEntries(mcpClientConfigFiles(plan).map((f) => [f.configMapKey, f.content]));
    const header = { Authorization: `Bearer \${TOOLYARD_TOOLCHAIN_RUST_TOKEN}` };
    assert.deepEqual(JSON.parse(files['claude.managed-mcp.json']!).mcpServers['toolchain-rust'], {
      type: 'http',
      url,
      headers: header,
      alwaysLoad: true,
      timeout: 1_860_000,
    });
    assert.deepEqual(JSON.parse(files['gemini.settings.json']!).mcpServers['toolchain-rust'], {
      type: 'http',
      url,
      headers: header,
      trust: true,
      timeout: 1_860_000,
    });
    assert.match(
      files['codex.config.toml']!,
      /\[mcp_servers\.toolchain-rust\]\nurl = "http:\/\/tiny-toolchain-rust\.agents\.svc:8702\/mcp"\nbearer_token_env_var = "TOOLYARD_TOOLCHAIN_RUST_TOKEN"\n/,
    );
    // Codex's requirements pin the server's identity to the Service URL (no credentials there).
    assert.equal(files['codex.requirements.toml'], `[mcp_servers.toolchain-rust.identity]\nurl = "${url}"\n`);
  });
});

describe('toolchain pod NetworkPolicies with the broker off (CIDR rules)', () => {
  const policyOf = (egress: 'none' | 'registries' | 'open') =>
    (
      find(
        objectsOf(
          minimalAgent(
            brokerOff({ workspace: rwxWorkspace, toolchains: [{ ...rustPod, network: { egress } }] }),
          ),
        ),
        'NetworkPolicy',
        'tiny-toolchain-rust',
      ) as Json
    ).spec;

  it('egress none: nothing at all, not even DNS; ingress only from the agent pod on the MCP port', () => {
    assert.deepEqual(policyOf('none'), {
      ingress: fromAgentOnMcp,
      podSelector: { matchLabels: selector('toolchain-rust') },
      policyTypes: ['Ingress', 'Egress'],
    });
  });

  it('egress registries: DNS and the registries as configured', () => {
    assert.deepEqual(policyOf('registries').egress, [
      dnsRule,
      { ports: [{ port: 443, protocol: 'TCP' }], to: [{ ipBlock: { cidr: '0.0.0.0/0' } }] },
    ]);
    const narrowed = objectsOf(
      minimalAgent(
        brokerOff({
          workspace: rwxWorkspace,
          toolchains: [{ ...rustPod, network: { egress: 'registries' } }],
          networkPolicy: { registryEgress: { cidrs: ['10.20.0.0/16', '192.0.2.10/32'], ports: [443, 8443] } },
        }),
      ),
    );
    assert.deepEqual((find(narrowed, 'NetworkPolicy', 'tiny-toolchain-rust') as Json).spec.egress[1], {
      ports: [
        { port: 443, protocol: 'TCP' },
        { port: 8443, protocol: 'TCP' },
      ],
      to: [{ ipBlock: { cidr: '10.20.0.0/16' } }, { ipBlock: { cidr: '192.0.2.10/32' } }],
    });
  });

  it('egress open: everything', () => {
    assert.deepEqual(policyOf('open').egress, [{}]);
  });

  it("the agent pod reaches the toolchain pod's MCP port and no longer carries its egress", () => {
    const objects = objectsOf(
      minimalAgent(
        brokerOff({ workspace: rwxWorkspace, toolchains: [{ ...rustPod, network: { egress: 'open' } }] }),
      ),
    );
    assert.deepEqual((find(objects, 'NetworkPolicy', 'tiny') as Json).spec.egress, [
      dnsRule,
      {
        ports: [{ port: 8702, protocol: 'TCP' }],
        to: [{ podSelector: { matchLabels: selector('toolchain-rust') } }],
      },
      { ports: [{ port: 443, protocol: 'TCP' }], to: [{ ipBlock: { cidr: '0.0.0.0/0' } }] },
    ]);
  });

  it('renders no NetworkPolicy for it when NetworkPolicies are disabled', () => {
    const objects = objectsOf(
      minimalAgent({ workspace: rwxWorkspace, toolchains: [rustPod], networkPolicy: { enabled: false } }),
    );
    assert.ok(!objects.some((o) => o.kind === 'NetworkPolicy'));
  });
});

describe('egress warnings and placement', () => {
  const warningsOf = (spec: Partial<AgentSpec>) =>
    agentWarnings(planAgent(minimalAgent(spec))).warnings.map((w) => `${w.code} ${w.subject ?? ''}`);

  it('no warning when placement makes the posture exact', () => {
    assert.deepEqual(warningsOf({ workspace: rwxWorkspace, toolchains: [rustPod] }), []);
  });

  it('a sidecar that shares more than it asked for is told about placement: pod', () => {
    const { warnings } = agentWarnings(planAgent(minimalAgent(brokerOff({ toolchains: [rustToolchain] }))));
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]!.code, 'shared-egress');
    assert.match(warnings[0]!.message, /placement: pod gives it a pod and NetworkPolicy of its own/);
  });

  it('an acknowledgement of a warning that placement: pod removed is stale', () => {
    assert.deepEqual(
      warningsOf({
        workspace: rwxWorkspace,
        toolchains: [rustPod],
        acknowledgedWarnings: [
          { warning: 'shared-egress', toolchain: 'rust', reason: 'builds fetch nothing' },
        ],
      }),
      ['stale-acknowledgement '],
    );
  });
});
