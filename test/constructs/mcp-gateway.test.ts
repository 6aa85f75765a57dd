import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FORBIDDEN_RESOURCES, FORBIDDEN_VERBS, RBAC_PRESETS } from '../../constructs/src/rbac-presets.ts';
import { brokerOff, find, type Json, labelsFor, minimalAgent, objectsOf } from './fixtures.ts';

const k8sGateway = {
  name: 'kubernetes',
  image: { repository: 'ghcr.io/example/mcp-kubernetes', tag: '0.4.0' },
  port: 8000,
  authority: { kubernetes: { preset: 'read-only' as const, namespaces: ['agents', 'apps'] } },
  auth: { bearerTokenSecret: { name: 'k8s-token', key: 'token' } },
};

/** Where the API server is: a pod with Kubernetes authority needs it (no default since issue 32). */
const apiServer = {
  networkPolicy: { apiServerEgress: { cidrs: ['10.96.0.1/32'] as [string], ports: [443] as [number] } },
};

describe('McpGateway', () => {
  const objects = objectsOf(minimalAgent({ gateways: [k8sGateway], ...apiServer }));

  it('deploys Deployment, Service and ServiceAccount named <agent>-<gateway>', () => {
    const names = objects
      .filter((o) => o.metadata.name === 'tiny-kubernetes')
      .map((o) => `${o.kind}/${o.metadata.namespace}`);
    assert.deepEqual(names.sort(), [
      'Deployment/agents',
      'NetworkPolicy/agents',
      'Role/agents',
      'Role/apps',
      'RoleBinding/agents',
      'RoleBinding/apps',
      'Service/agents',
      'ServiceAccount/agents',
    ]);
  });

  it('mounts a token only into gateways with Kubernetes authority', () => {
    const sa = find(objects, 'ServiceAccount', 'tiny-kubernetes') as Json;
    assert.equal(sa.automountServiceAccountToken, true);
    const other = objectsOf(
      minimalAgent({ gateways: [{ name: 'prom', image: { repository: 'p', tag: '1' }, port: 9000 }] }),
    );
    assert.equal((find(other, 'ServiceAccount', 'tiny-prom') as Json).automountServiceAccountToken, false);
    assert.equal(
      (find(other, 'Deployment', 'tiny-prom') as Json).spec.template.spec.automountServiceAccountToken,
      false,
    );
    assert.equal(other.filter((o) => o.kind === 'Role').length, 0);
  });

  it('grants the exact read-only preset in each namespace, bound to its own ServiceAccount', () => {
    const role = objects.find((o) => o.kind === 'Role' && o.metadata.namespace === 'apps') as Json;
    assert.deepEqual(role.rules, RBAC_PRESETS['read-only']);
    const binding = objects.find((o) => o.kind === 'RoleBinding' && o.metadata.namespace === 'apps') as Json;
    assert.deepEqual(binding.roleRef, {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: 'tiny-kubernetes',
    });
    assert.deepEqual(binding.subjects, [
      { kind: 'ServiceAccount', name: 'tiny-kubernetes', namespace: 'agents' },
    ]);
  });

  it('mounts the bearer token into the gateway as a read-only file and names it; the broker holds it for backends', () => {
    const pod = (find(objects, 'Deployment', 'tiny-kubernetes') as Json).spec.template.spec;
    const container = pod.containers[0];
    // A file, never the gateway's environment (its children could read that): the env only names the path.
    assert.deepEqual(
      container.env.filter((e: { name: string; valueFrom?: unknown }) => e.valueFrom !== undefined),
      [],
    );
    assert.deepEqual(
      container.env.find((e: { name: string }) => e.name === 'TOOLYARD_BEARER_TOKEN_FILE'),
      { name: 'TOOLYARD_BEARER_TOKEN_FILE', value: '/etc/toolyard/auth/token' },
    );
    assert.deepEqual(
      container.volumeMounts.find((m: { mountPath: string }) => m.mountPath === '/etc/toolyard/auth'),
      { name: 'bearer-token', mountPath: '/etc/toolyard/auth', readOnly: true },
    );
    assert.deepEqual(
      pod.volumes.find((v: { name: string }) => v.name === 'bearer-token'),
      {
        name: 'bearer-token',
        secret: {
          secretName: 'k8s-token',
          items: [{ key: 'token', path: 'token', mode: 0o440 }],
          defaultMode: 0o440,
        },
      },
    );
    assert.equal(pod.securityContext.fsGroup, 65532, 'the group that may read the 0440 token file');
    // With the broker on, backends call the gateway through its route: the broker mounts the token, they do not.
    const backend = (find(objects, 'Deployment', 'tiny') as Json).spec.template.spec.containers[0];
    assert.equal(
      backend.env.find((e: { name: string }) => e.name === 'TOOLYARD_GATEWAY_KUBERNETES_TOKEN'),
      undefined,
    );
    const broker = (find(objects, 'Deployment', 'tiny-broker') as Json).spec.template.spec;
    assert.deepEqual(
      broker.volumes.find((v: { name: string }) => v.name === 'key-gateway-kubernetes').secret.secretName,
      'k8s-token',
    );
    // With the broker off, backends get it by reference, as before the broker.
    const off = objectsOf(minimalAgent(brokerOff({ gateways: [k8sGateway], ...apiServer })));
    const legacy = (find(off, 'Deployment', 'tiny') as Json).spec.template.spec.containers[0];
    assert.deepEqual(
      legacy.env.find((e: { name: string }) => e.name === 'TOOLYARD_GATEWAY_KUBERNETES_TOKEN'),
      {
        name: 'TOOLYARD_GATEWAY_KUBERNETES_TOKEN',
        valueFrom: { secretKeyRef: { key: 'token', name: 'k8s-token' } },
      },
    );
  });

  it('also sets tokenEnv from the Secret when the spec asks for it, for images that read only the environment', () => {
    const withEnv = objectsOf(
      minimalAgent({
        gateways: [{ ...k8sGateway, auth: { ...k8sGateway.auth, tokenEnv: 'MCP_BEARER_TOKEN' } }],
        ...apiServer,
      }),
    );
    const container = (find(withEnv, 'Deployment', 'tiny-kubernetes') as Json).spec.template.spec
      .containers[0];
    assert.deepEqual(
      container.env.find((e: { name: string }) => e.name === 'MCP_BEARER_TOKEN'),
      { name: 'MCP_BEARER_TOKEN', valueFrom: { secretKeyRef: { key: 'token', name: 'k8s-token' } } },
    );
  });

  it('selects its pods by component, and its Service targets the named MCP port', () => {
    const service = find(objects, 'Service', 'tiny-kubernetes') as Json;
    assert.deepEqual(service.spec, {
      ports: [{ name: 'mcp', port: 8000, protocol: 'TCP', targetPort: 'mcp' }],
      selector: {
        'app.kubernetes.io/component': 'gateway-kubernetes',
        'app.kubernetes.io/instance': 'tiny',
        'app.kubernetes.io/name': 'tiny',
      },
      type: 'ClusterIP',
    });
    const deployment = find(objects, 'Deployment', 'tiny-kubernetes') as Json;
    assert.deepEqual(deployment.spec.selector.matchLabels, service.spec.selector);
    assert.deepEqual(deployment.spec.template.metadata.labels, labelsFor('tiny', 'gateway-kubernetes'));
  });

  it('presets never grant wildcards, Secrets, RBAC objects, exec or escalation', () => {
    for (const [preset, rules] of Object.entries(RBAC_PRESETS)) {
      for (const rule of rules) {
        for (const resource of rule.resources) {
          assert.ok(!(FORBIDDEN_RESOURCES as readonly string[]).includes(resource), `${preset}: ${resource}`);
          assert.ok(!resource.includes('*'), `${preset}: ${resource}`);
        }
        for (const verb of rule.verbs)
          assert.ok(!(FORBIDDEN_VERBS as readonly string[]).includes(verb), `${preset}: ${verb}`);
        assert.ok(
          !rule.apiGroups.includes('*') && !rule.apiGroups.includes('rbac.authorization.k8s.io'),
          preset,
        );
      }
    }
    const readOnlyVerbs = new Set(RBAC_PRESETS['read-only'].flatMap((r) => r.verbs));
    assert.deepEqual([...readOnlyVerbs].sort(), ['get', 'list', 'watch']);
  });
});
