/**
 * Address blocks of pods other than the broker (issue 32): a pod that holds Kubernetes authority (a gateway with
 * `authority.kubernetes`, or the agent pod with `rbac.preset`) reaches the API server by `networkPolicy.
 * apiServerEgress`, which has no default: the renderer cannot know a cluster's control plane, and the old default
 * (`0.0.0.0/0` on 443 and 6443) gave those pods — the agent pod runs model-driven code — every HTTPS host on the
 * internet, the path the broker exists to close. So: unset where it is needed is an error that says how to find
 * the addresses; a block wider than a control plane needs (shorter than /24, or /64 for IPv6) is a warning to
 * acknowledge (`wide-api-server-egress`), as is a deployed gateway's declared egress that wide
 * (`wide-gateway-egress`). The decision is in docs/decisions.md (issue 32).
 */
import type { SpecProblem } from '../../schema/src/validator.ts';
import type { RenderWarning } from './effective-egress.ts';
import { type AgentPlan, deployedGateways } from './plan.ts';

/** Where a control plane's addresses are, for the messages: the Service's ClusterIP and its endpoints. */
export const CONTROL_PLANE_ADDRESSES_HINT =
  "the kubernetes Service's ClusterIP on 443 (kubectl get service kubernetes -n default -o jsonpath='{.spec.clusterIP}') and its endpoints on their port, often 6443 (kubectl get endpointslices -n default -l kubernetes.io/service-name=kubernetes -o jsonpath='{.items[*].endpoints[*].addresses[*]}'), each as a /32 (or /128); NetworkPolicies see one or the other depending on the CNI";

/** The prefix lengths below which a block is wider than a control plane needs (its few addresses). */
export const CONTROL_PLANE_PREFIX = { ipv4: 24, ipv6: 64 } as const;

/** Whether `cidr` (a.b.c.d/n or an IPv6 prefix) covers more than a control plane's addresses need. */
export function widerThanControlPlane(cidr: string): boolean {
  const slash = cidr.lastIndexOf('/');
  const bits = slash < 0 ? Number.NaN : Number(cidr.slice(slash + 1));
  if (!Number.isInteger(bits)) return false;
  return bits < (cidr.includes(':') ? CONTROL_PLANE_PREFIX.ipv6 : CONTROL_PLANE_PREFIX.ipv4);
}

/** Whether some rendered pod reaches the API server: the agent pod with `rbac.preset`, a gateway with authority. */
export function needsApiServer(plan: AgentPlan): boolean {
  return plan.rbacPreset !== 'none' || deployedGateways(plan).some((g) => g.kubernetes);
}

/** An error when a pod needs the API server and `networkPolicy.apiServerEgress` does not say where it is. */
export function checkApiServerEgress(plan: AgentPlan): SpecProblem[] {
  if (!plan.network.enabled || plan.network.apiServerEgress || !needsApiServer(plan)) return [];
  const who = [
    ...(plan.rbacPreset !== 'none' ? [`the agent pod (rbac.preset: ${plan.rbacPreset})`] : []),
    ...deployedGateways(plan)
      .filter((g) => g.kubernetes)
      .map((g) => `gateway "${g.name}" (Kubernetes authority)`),
  ];
  return [
    {
      path: '/spec/networkPolicy/apiServerEgress',
      message: `${who.join(' and ')} must reach the Kubernetes API server, and networkPolicy.apiServerEgress does not say where it is (it has no default: 0.0.0.0/0 would open every host on those ports)`,
      hint: `set { cidrs, ports } to your control plane's addresses: ${CONTROL_PLANE_ADDRESSES_HINT}; to allow every address anyway, set cidrs: [0.0.0.0/0] and acknowledge wide-api-server-egress`,
    },
  ];
}

/** Warnings for address blocks wider than a control plane on pods other than the broker. */
export function wideEgressWarnings(plan: AgentPlan): RenderWarning[] {
  if (!plan.network.enabled) return [];
  const warnings: RenderWarning[] = [];
  const api = plan.network.apiServerEgress;
  const wideApi = api?.cidrs.filter(widerThanControlPlane) ?? [];
  if (api && wideApi.length > 0 && needsApiServer(plan))
    warnings.push({
      code: 'wide-api-server-egress',
      path: '/spec/networkPolicy/apiServerEgress/cidrs',
      message: `networkPolicy.apiServerEgress allows ${wideApi.join(', ')} on ${api.ports.join(', ')}: wider than a control plane (/${CONTROL_PLANE_PREFIX.ipv4}, /${CONTROL_PLANE_PREFIX.ipv6} for IPv6), so pods that hold Kubernetes authority reach those hosts beside the broker; give the control plane's addresses (${CONTROL_PLANE_ADDRESSES_HINT}), or acknowledge wide-api-server-egress`,
    });
  plan.gateways.forEach((gateway, index) => {
    if (gateway.kind === 'external' || !gateway.egress) return;
    const wide = gateway.egress.cidrs.filter(widerThanControlPlane);
    if (wide.length === 0) return;
    warnings.push({
      code: 'wide-gateway-egress',
      subject: gateway.name,
      path: `/spec/gateways/${index}/egress/cidrs`,
      message: `gateway "${gateway.name}" declares egress to ${wide.join(', ')} on ${gateway.egress.ports.join(', ')}: a pod that holds credentials reaches those hosts beside the broker; narrow it to the addresses it needs (or reach external hosts through the broker: an external gateway by url), or acknowledge wide-gateway-egress`,
    });
  });
  return warnings;
}
