/** The NetworkPolicy evaluator behaves as Kubernetes on the points the chart proofs rely on. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allowed, allowedOut, cidrContains, egressDestinations, selects } from './network-policy.ts';

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

describe('NetworkPolicy evaluator beyond the cluster', () => {
  const egress = (name: string, spec: Record<string, unknown>) =>
    policy(name, 'ns', { podSelector: { matchLabels: { app: 'a' } }, policyTypes: ['Egress'], ...spec });

  it('CIDR containment, IPv4 and IPv6, and never across families', () => {
    assert.ok(cidrContains('10.0.0.0/8', '10.255.1.2'));
    assert.ok(!cidrContains('10.0.0.0/8', '11.0.0.1'));
    assert.ok(cidrContains('0.0.0.0/0', '203.0.113.9'));
    assert.ok(cidrContains('192.0.2.10/32', '192.0.2.10'));
    assert.ok(!cidrContains('192.0.2.10/32', '192.0.2.11'));
    assert.ok(cidrContains('::/0', '2001:db8::1'));
    assert.ok(cidrContains('2001:db8::/32', '2001:db8:ffff::1'));
    assert.ok(!cidrContains('2001:db8::/32', '2001:db9::1'));
    assert.ok(!cidrContains('::/0', '10.0.0.1'));
    assert.ok(!cidrContains('0.0.0.0/0', '::1'));
  });

  it('allowedOut: only the egress side decides; ipBlock with except; ports; unselected pods go anywhere', () => {
    const registries = egress('r', {
      egress: [
        {
          to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }],
          ports: [{ port: 443, protocol: 'TCP' }],
        },
      ],
    });
    assert.ok(allowedOut([registries], a, { ip: '10.2.3.4' }, 443));
    assert.ok(!allowedOut([registries], a, { ip: '10.1.3.4' }, 443), 'except');
    assert.ok(!allowedOut([registries], a, { ip: '10.2.3.4' }, 80), 'port');
    assert.ok(!allowedOut([registries], a, { ip: '1.1.1.1' }, 443), 'outside the cidr');
    assert.ok(allowedOut([registries], b, { ip: '1.1.1.1' }, 443), 'b is not selected');
    const pods = egress('p', { egress: [{ to: [{ podSelector: {} }] }] });
    assert.ok(!allowedOut([pods], a, { ip: '1.1.1.1' }, 443), 'a pod selector reaches no outside address');
    assert.ok(!allowedOut([egress('none', { egress: [] })], a, { ip: '1.1.1.1' }, 53, 'UDP'));
    assert.ok(allowedOut([egress('open', { egress: [{}] })], a, { ip: '1.1.1.1' }, 53, 'UDP'));
  });

  it('egressDestinations: every (peer, port) of every selecting policy, normalized and sorted', () => {
    assert.deepEqual(egressDestinations([], a), { restricted: false, destinations: ['* *'] });
    assert.deepEqual(egressDestinations([egress('none', { egress: [] })], a), {
      restricted: true,
      destinations: [],
    });
    const two = [
      egress('one', {
        egress: [
          {
            to: [
              {
                namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
                podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
              },
            ],
            ports: [
              { port: 53, protocol: 'UDP' },
              { port: 53, protocol: 'TCP' },
            ],
          },
        ],
      }),
      egress('two', {
        egress: [
          { to: [{ podSelector: { matchLabels: { app: 'b' } } }], ports: [{ port: 8000, endPort: 8010 }] },
          { to: [{ ipBlock: { cidr: '10.0.0.0/8' } }] },
          {},
        ],
      }),
    ];
    assert.deepEqual(egressDestinations(two, a).destinations, [
      '* *',
      'ipBlock 10.0.0.0/8 *',
      'pods ns(kubernetes.io/metadata.name=kube-system) k8s-app=kube-dns 53/TCP',
      'pods ns(kubernetes.io/metadata.name=kube-system) k8s-app=kube-dns 53/UDP',
      'pods ns(kubernetes.io/metadata.name=ns) app=b 8000-8010/TCP',
    ]);
    assert.deepEqual(egressDestinations(two, b), { restricted: false, destinations: ['* *'] });
  });
});
