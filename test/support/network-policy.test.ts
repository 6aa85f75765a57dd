/** The NetworkPolicy evaluator behaves as Kubernetes on the points the chart proofs rely on. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allowed, selects } from './network-policy.ts';

const policy = (name: string, namespace: string, spec: Record<string, unknown>) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name, namespace },
  spec,
});
const a = { namespace: 'ns', labels: { app: 'a' } };
const b = { namespace: 'ns', labels: { app: 'b' } };
const c = { namespace: 'other', labels: { app: 'a' } };
const denyB = policy('deny-b', 'ns', {
  podSelector: { matchLabels: { app: 'b' } },
  policyTypes: ['Ingress'],
  ingress: [],
});

describe('NetworkPolicy evaluator', () => {
  it('allows everything without policies, and where no policy selects a pod', () => {
    assert.ok(allowed([], a, b, 80));
    assert.ok(allowed([denyB], b, a, 80), 'b is selected for Ingress only: its egress is open');
  });

  it('a selecting policy without matching rules denies; rules allow by peer and port; policies add up', () => {
    assert.ok(!allowed([denyB], a, b, 80));
    const fromA = policy('from-a', 'ns', {
      podSelector: { matchLabels: { app: 'b' } },
      policyTypes: ['Ingress'],
      ingress: [{ from: [{ podSelector: { matchLabels: { app: 'a' } } }], ports: [{ port: 80 }] }],
    });
    assert.ok(allowed([denyB, fromA], a, b, 80));
    assert.ok(!allowed([denyB, fromA], a, b, 81), 'other port');
    assert.ok(!allowed([denyB, fromA], a, b, 80, 'UDP'), 'other protocol');
    assert.ok(!allowed([denyB, fromA], c, b, 80), 'a podSelector alone means the policy namespace');
  });

  it('egress rules, namespaceSelector, endPort and ipBlock', () => {
    const egress = policy('egress', 'other', {
      podSelector: {},
      policyTypes: ['Egress'],
      egress: [
        {
          to: [
            {
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ns' } },
              podSelector: { matchLabels: { app: 'b' } },
            },
          ],
          ports: [{ port: 8000, endPort: 8010, protocol: 'TCP' }],
        },
      ],
    });
    assert.ok(allowed([egress], c, b, 8005));
    assert.ok(!allowed([egress], c, b, 8011));
    assert.ok(!allowed([egress], c, a, 8005));
    const open = policy('open', 'other', {
      podSelector: {},
      policyTypes: ['Egress'],
      egress: [{ to: [{ ipBlock: { cidr: '0.0.0.0/0' } }] }],
    });
    assert.ok(allowed([open], c, a, 1));
    const narrow = policy('narrow', 'other', {
      podSelector: {},
      policyTypes: ['Egress'],
      egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8' } }] }],
    });
    assert.ok(!allowed([narrow], c, a, 1));
  });

  it('label selectors: matchLabels and matchExpressions', () => {
    assert.ok(
      selects({ matchExpressions: [{ key: 'app', operator: 'In', values: ['a', 'b'] }] }, { app: 'a' }),
    );
    assert.ok(
      !selects({ matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['a'] }] }, { app: 'a' }),
    );
    assert.ok(selects({ matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] }, { app: 'a' }));
    assert.ok(!selects({ matchExpressions: [{ key: 'x', operator: 'Exists' }] }, { app: 'a' }));
    assert.ok(selects({}, { app: 'a' }));
  });
});
