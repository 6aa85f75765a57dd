/**
 * `networkPolicy.apiServerEgress` (issue 32): no default — a pod with Kubernetes authority and no API server
 * addresses is an error that says how to find them; a block wider than a control plane (/24, IPv6 /64) on a pod
 * other than the broker warns (`wide-api-server-egress`, `wide-gateway-egress`), acknowledgeably, so
 * `validate --strict` fails on it unless the spec accepts it with a reason.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { widerThanControlPlane } from '../../constructs/src/api-server-egress.ts';
import { checkAgentDocument } from '../../constructs/src/check-agent.ts';
import { planAgent } from '../../constructs/src/plan.ts';
import { agentWarnings } from '../../constructs/src/warnings.ts';
import type { EgressRule2, ToolyardAgent } from '../../schema/src/types.generated.ts';
import { minimalAgent } from './fixtures.ts';

const K8S_GATEWAY = {
  name: 'k8s',
  image: { repository: 'ghcr.io/example/mcp-kubernetes', tag: '1' },
  port: 8000,
  authority: { kubernetes: { preset: 'read-only' as const } },
};
const rule = (cidrs: string[], ports: number[]) => ({ cidrs, ports }) as EgressRule2;
const CONTROL_PLANE = rule(['10.96.0.1/32', '172.18.0.2/32'], [443, 6443]);

const problems = (agent: ToolyardAgent) => {
  const checked = checkAgentDocument(agent);
  return checked.ok ? [] : checked.problems;
};
const codes = (agent: ToolyardAgent) => {
  const { warnings, acknowledged } = agentWarnings(planAgent(agent));
  return { warnings: warnings.map((w) => w.code), acknowledged: acknowledged.map((w) => w.code) };
};

describe('networkPolicy.apiServerEgress', () => {
  it('is required where a pod holds Kubernetes authority, with what to run to find the addresses', () => {
    for (const agent of [
      minimalAgent({ rbac: { preset: 'read-only' } }),
      minimalAgent({ gateways: [K8S_GATEWAY] }),
    ]) {
      const [problem, ...rest] = problems(agent);
      assert.deepEqual(rest, []);
      assert.equal(problem?.path, '/spec/networkPolicy/apiServerEgress');
      assert.match(
        problem?.message ?? '',
        /must reach the Kubernetes API server.*no default: 0\.0\.0\.0\/0 would open every host/,
      );
      assert.match(
        problem?.hint ?? '',
        /kubectl get endpointslices -n default -l kubernetes\.io\/service-name=kubernetes/,
      );
      assert.match(problem?.hint ?? '', /acknowledge wide-api-server-egress/);
    }
    // No authority, or no NetworkPolicies: nothing to say where.
    assert.deepEqual(problems(minimalAgent()), []);
    assert.deepEqual(problems(minimalAgent({ rbac: { preset: 'none' } })), []);
    assert.deepEqual(
      problems(minimalAgent({ gateways: [K8S_GATEWAY], networkPolicy: { enabled: false } })),
      [],
    );
    assert.deepEqual(
      problems(minimalAgent({ gateways: [K8S_GATEWAY], networkPolicy: { apiServerEgress: CONTROL_PLANE } })),
      [],
    );
  });

  it('tells a control plane from a wider block: /24 and narrower (IPv6 /64) is one', () => {
    for (const cidr of ['10.96.0.1/32', '10.96.0.0/24', '34.118.224.5/32', 'fd00::1/128', '2001:db8::/64'])
      assert.equal(widerThanControlPlane(cidr), false, cidr);
    for (const cidr of ['0.0.0.0/0', '0.0.0.0/1', '10.0.0.0/8', '10.96.0.0/23', '::/0', 'fd00::/48'])
      assert.equal(widerThanControlPlane(cidr), true, cidr);
  });

  it('warns on a wide block, moves it to acknowledged with a reason, and a stale acknowledgement warns', () => {
    const wide = rule(['10.96.0.1/32', '0.0.0.0/0'], [443, 6443]);
    const agent = minimalAgent({ gateways: [K8S_GATEWAY], networkPolicy: { apiServerEgress: wide } });
    assert.deepEqual(problems(agent), [], 'a wide block is the spec author’s call: a warning, not an error');
    const { warnings } = agentWarnings(planAgent(agent));
    const warning = warnings.find((w) => w.code === 'wide-api-server-egress');
    assert.equal(warning?.path, '/spec/networkPolicy/apiServerEgress/cidrs');
    assert.match(warning?.message ?? '', /allows 0\.0\.0\.0\/0 on 443, 6443: wider than a control plane/);
    const ack = {
      warning: 'wide-api-server-egress' as const,
      reason: 'a CNI that sees the API server only before DNAT',
    };
    assert.deepEqual(codes({ ...agent, spec: { ...agent.spec, acknowledgedWarnings: [ack] } }), {
      warnings: [],
      acknowledged: ['wide-api-server-egress'],
    });
    const narrow = minimalAgent({
      gateways: [K8S_GATEWAY],
      networkPolicy: { apiServerEgress: CONTROL_PLANE },
      acknowledgedWarnings: [ack],
    });
    assert.deepEqual(codes(narrow), { warnings: ['stale-acknowledgement'], acknowledged: [] });
    // A wide block no pod uses (no authority) is no warning.
    assert.deepEqual(codes(minimalAgent({ networkPolicy: { apiServerEgress: wide } })).warnings, []);
  });

  it("warns when a deployed gateway's own egress is that wide; its acknowledgement names the gateway", () => {
    const gateway = { ...K8S_GATEWAY, egress: rule(['140.82.112.0/20'], [443]) };
    const agent = minimalAgent({ gateways: [gateway], networkPolicy: { apiServerEgress: CONTROL_PLANE } });
    const { warnings } = agentWarnings(planAgent(agent));
    assert.deepEqual(
      warnings.map((w) => [w.code, w.subject, w.path]),
      [['wide-gateway-egress', 'k8s', '/spec/gateways/0/egress/cidrs']],
    );
    const acked = {
      ...agent,
      spec: {
        ...agent.spec,
        acknowledgedWarnings: [
          { warning: 'wide-gateway-egress' as const, gateway: 'k8s', reason: 'GitHub API ranges' },
        ],
      },
    };
    assert.deepEqual(codes(acked), { warnings: [], acknowledged: ['wide-gateway-egress'] });
    const wrong = {
      ...agent,
      spec: {
        ...agent.spec,
        acknowledgedWarnings: [{ warning: 'wide-gateway-egress' as const, gateway: 'k9s', reason: 'x' }],
      },
    };
    assert.match(JSON.stringify(problems(wrong)), /no gateway \\"k9s\\" in this spec/);
  });
});
