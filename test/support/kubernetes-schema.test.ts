import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateKubeObject } from './kubernetes-schema.ts';

const deployment = () => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'reviewer', namespace: 'agents' },
  spec: {
    selector: { matchLabels: { app: 'reviewer' } },
    template: {
      metadata: { labels: { app: 'reviewer' } },
      spec: { containers: [{ name: 'claude', image: 'ghcr.io/example/claude:1.2.3' }] },
    },
  },
});

describe('validateKubeObject', () => {
  it('accepts a well-formed Deployment', () => {
    assert.deepEqual(validateKubeObject(deployment()), []);
  });

  it('rejects a wrong type', () => {
    const bad = deployment();
    (bad.spec as Record<string, unknown>)['replicas'] = 'two';
    assert.deepEqual(validateKubeObject(bad), [
      'Deployment/reviewer: /spec/replicas: must be integer {"type":"integer"}',
    ]);
  });

  it('rejects a missing required field', () => {
    const bad = deployment();
    bad.spec.template.spec.containers = [{ image: 'x:1' } as never];
    const errors = validateKubeObject(bad);
    assert.equal(errors.length, 1);
    assert.match(
      errors[0]!,
      /^Deployment\/reviewer: \/spec\/template\/spec\/containers\/0: must have required property name/,
    );
  });

  it('rejects a wrong enum-ish value and a missing selector', () => {
    const errors = validateKubeObject({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's', namespace: 'n' },
      spec: { ports: [{ port: 'http' }] },
    });
    assert.ok(
      errors.some((e) => e.includes('/spec/ports/0/port')),
      errors.join('\n'),
    );
  });

  it('rejects an unknown kind and a kind toolyard does not emit', () => {
    assert.deepEqual(
      validateKubeObject({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'n' } }),
      ['Secret/s: unknown apiVersion/kind "v1/Secret"'],
    );
    assert.equal(
      validateKubeObject({ apiVersion: 'apps/v2', kind: 'Deployment', metadata: { name: 'd' } }).length,
      1,
    );
  });

  it('checks a ServiceMonitor as far as toolyard renders one', () => {
    const monitor = (endpoint: Record<string, unknown>) => ({
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'ServiceMonitor',
      metadata: { name: 'reviewer-metrics', namespace: 'agents' },
      spec: { selector: { matchLabels: { app: 'reviewer' } }, endpoints: [endpoint] },
    });
    assert.deepEqual(
      validateKubeObject(monitor({ port: 'health-9701', path: '/metrics', interval: '30s' })),
      [],
    );
    assert.deepEqual(
      validateKubeObject(monitor({ port: 'Health_9701', path: 'metrics', interval: '30 s' })),
      [
        'ServiceMonitor/reviewer-metrics: /spec/endpoints/0/port: must be a Service port name',
        'ServiceMonitor/reviewer-metrics: /spec/endpoints/0/path: must be an absolute path',
        'ServiceMonitor/reviewer-metrics: /spec/endpoints/0/interval: must be a Prometheus duration',
      ],
    );
  });

  it('rejects objects without name or namespace', () => {
    assert.deepEqual(validateKubeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }), [
      'ConfigMap/<unnamed>: /metadata/name: required',
      'ConfigMap/<unnamed>: /metadata/namespace: required (every kind toolyard emits is namespaced)',
    ]);
  });

  it('validates every kind toolyard emits', () => {
    const meta = { name: 'x', namespace: 'n' };
    for (const [apiVersion, kind, extra] of [
      ['v1', 'ServiceAccount', {}],
      ['v1', 'ConfigMap', { data: { a: 'b' } }],
      [
        'rbac.authorization.k8s.io/v1',
        'Role',
        { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] },
      ],
      [
        'rbac.authorization.k8s.io/v1',
        'RoleBinding',
        { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'x' }, subjects: [] },
      ],
      ['networking.k8s.io/v1', 'NetworkPolicy', { spec: { podSelector: {}, policyTypes: ['Ingress'] } }],
    ] as const) {
      assert.deepEqual(validateKubeObject({ apiVersion, kind, metadata: meta, ...extra }), [], kind);
    }
    // A RoleBinding without roleRef and a ConfigMap with non-string data fail.
    assert.ok(
      validateKubeObject({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: meta })
        .length > 0,
    );
    assert.ok(
      validateKubeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta, data: { a: 1 } }).length > 0,
    );
  });
});
