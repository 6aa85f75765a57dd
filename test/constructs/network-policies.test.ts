import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { egressWarnings as allEgressWarnings } from '../../constructs/src/effective-egress.ts';
import { planAgent } from '../../constructs/src/plan.ts';
import type { AgentSpec } from '../../schema/src/types.generated.ts';
import {
  minimalAgent as brokered,
  brokerOff,
  find,
  type Json,
  objectsOf,
  rustToolchain,
} from './fixtures.ts';

// These tests cover the CIDR rules of `broker.enabled: false` (the pre-broker shape, byte for byte); the broker's
// own policies are in broker.test.ts.
const minimalAgent = (spec: Partial<AgentSpec> = {}) => brokered(brokerOff(spec));
const egressWarnings = (...args: Parameters<typeof allEgressWarnings>) =>
  allEgressWarnings(...args).filter((w) => w.code !== 'broker-disabled');

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
const agentSelector = {
  'app.kubernetes.io/component': 'agent',
  'app.kubernetes.io/instance': 'tiny',
  'app.kubernetes.io/name': 'tiny',
};

describe('AgentNetworkPolicies with the broker off', () => {
  it('denies everything but DNS and model egress for a minimal agent', () => {
    const policy = find(objectsOf(minimalAgent()), 'NetworkPolicy', 'tiny') as Json;
    assert.deepEqual(policy.spec, {
      egress: [
        dnsRule,
        { ports: [{ port: 443, protocol: 'TCP' }], to: [{ ipBlock: { cidr: '0.0.0.0/0' } }] },
      ],
      podSelector: { matchLabels: agentSelector },
      policyTypes: ['Ingress', 'Egress'],
    });
  });

  it('lets the agent reach its gateways, and a gateway accept only its agent', () => {
    const objects = objectsOf(
      minimalAgent({ gateways: [{ name: 'helm', image: { repository: 'h', tag: '1' }, port: 8000 }] }),
    );
    const agentPolicy = find(objects, 'NetworkPolicy', 'tiny') as Json;
    const gatewaySelector = { ...agentSelector, 'app.kubernetes.io/component': 'gateway-helm' };
    assert.deepEqual(agentPolicy.spec.egress[1], {
      ports: [{ port: 8000, protocol: 'TCP' }],
      to: [{ podSelector: { matchLabels: gatewaySelector } }],
    });
    const gatewayPolicy = find(objects, 'NetworkPolicy', 'tiny-helm') as Json;
    assert.deepEqual(gatewayPolicy.spec, {
      egress: [dnsRule],
      ingress: [
        { from: [{ podSelector: { matchLabels: agentSelector } }], ports: [{ port: 8000, protocol: 'TCP' }] },
      ],
      podSelector: { matchLabels: gatewaySelector },
      policyTypes: ['Ingress', 'Egress'],
    });
  });

  it('adds registry and open egress to the pod when a toolchain asks for it', () => {
    const objects = objectsOf(
      minimalAgent({
        toolchains: [
          { ...rustToolchain, network: { egress: 'registries' } },
          { ...rustToolchain, name: 'web', port: 8703, network: { egress: 'open' } },
        ],
        networkPolicy: { registryEgress: { cidrs: ['151.101.0.0/16'], ports: [443] } },
      }),
    );
    const egress = (find(objects, 'NetworkPolicy', 'tiny') as Json).spec.egress;
    assert.deepEqual(egress.slice(2), [
      { ports: [{ port: 443, protocol: 'TCP' }], to: [{ ipBlock: { cidr: '151.101.0.0/16' } }] },
      {},
    ]);
  });

  it('admits declared peers to the backend ports only', () => {
    const policy = find(
      objectsOf(minimalAgent({ networkPolicy: { agentIngressFrom: [{ podLabels: { app: 'harness' } }] } })),
      'NetworkPolicy',
      'tiny',
    ) as Json;
    assert.deepEqual(policy.spec.ingress, [
      {
        from: [
          {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'agents' } },
            podSelector: { matchLabels: { app: 'harness' } },
          },
        ],
        ports: [{ port: 8080, protocol: 'TCP' }],
      },
    ]);
  });

  it('emits no NetworkPolicy when disabled, and says so', () => {
    const agent = minimalAgent({ networkPolicy: { enabled: false } });
    assert.equal(objectsOf(agent).filter((o) => o.kind === 'NetworkPolicy').length, 0);
    assert.deepEqual(egressWarnings(planAgent(agent)), [
      {
        code: 'network-policies-disabled',
        path: '/spec/networkPolicy/enabled',
        message: 'NetworkPolicies are disabled: every generated pod has unrestricted ingress and egress',
      },
    ]);
  });
});

describe('effective egress warnings with the broker off', () => {
  it('warns when a toolchain gets more egress than it asked for', () => {
    const warnings = egressWarnings(planAgent(minimalAgent({ toolchains: [rustToolchain] })));
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]!.path, '/spec/toolchains/0/network/egress');
    assert.match(
      warnings[0]!.message,
      /asks for egress "none".*0\.0\.0\.0\/0 on 443\/TCP \(model providers, for claude\)/,
    );
  });

  it('does not warn when the toolchain already has what the pod has', () => {
    const warnings = egressWarnings(
      planAgent(minimalAgent({ toolchains: [{ ...rustToolchain, network: { egress: 'open' } }] })),
    );
    assert.deepEqual(warnings, []);
  });

  it('warns about an external gateway no egress rule reaches', () => {
    const warnings = egressWarnings(
      planAgent(minimalAgent({ gateways: [{ name: 'jira', url: 'http://jira.example:8080/mcp' }] })),
    );
    assert.deepEqual(
      warnings.map((w) => w.path),
      ['/spec/gateways/0/egress'],
    );
  });
});
