import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import {
  agentPodEgress,
  brokerPodEgress,
  type EgressGrant,
  gatewayPodEgress,
  type PodEgress,
  sandboxManagerPodEgress,
  sandboxPodEgress,
  toolchainPodEgress,
} from './effective-egress.ts';
import type { Labels } from './names.ts';
import { type AgentPlan, deployedGateways, podToolchains, sidecarToolchains } from './plan.ts';

export interface AgentNetworkPoliciesProps {
  /** The agent whose pods are covered. */
  readonly plan: AgentPlan;
}

/**
 * One NetworkPolicy per generated pod, covering Ingress and Egress: everything not listed is denied.
 * Egress is the pod's union computed by `effective-egress.ts`; ingress to a gateway, and to a toolchain's own
 * pod, only from its agent pod on the MCP port.
 */
export class AgentNetworkPolicies extends Construct {
  readonly policies: readonly k8s.KubeNetworkPolicy[];

  constructor(scope: Construct, id: string, props: AgentNetworkPoliciesProps) {
    super(scope, id);
    const { plan } = props;
    const names = plan.names;
    const annotations = Object.keys(plan.annotations).length > 0 ? { annotations: plan.annotations } : {};
    const policies: k8s.KubeNetworkPolicy[] = [];

    // spec.observability.metrics.scrapeFrom: the scrapers reach each pod's metrics ports, nothing else.
    const scrape = (ports: readonly number[]): k8s.NetworkPolicyIngressRule[] => {
      const from = plan.observability.enabled ? plan.observability.metrics.scrapeFrom : [];
      if (from.length === 0 || ports.length === 0) return [];
      return [
        {
          from: from.map((peer) => ({
            podSelector: { matchLabels: { ...peer.podLabels } },
            namespaceSelector: {
              matchLabels: { 'kubernetes.io/metadata.name': peer.namespace ?? plan.namespace },
            },
          })),
          ports: ports.map((port) => ({ port: k8s.IntOrString.fromNumber(port), protocol: 'TCP' })),
        },
      ];
    };
    const agentIngress: k8s.NetworkPolicyIngressRule[] = [
      ...scrape(sidecarToolchains(plan).map((t) => t.healthPort)),
    ];
    agentIngress.unshift(
      ...(plan.network.agentIngressFrom.length > 0
        ? [
            {
              from: plan.network.agentIngressFrom.map((peer) => ({
                podSelector: { matchLabels: { ...peer.podLabels } },
                namespaceSelector: {
                  matchLabels: { 'kubernetes.io/metadata.name': peer.namespace ?? plan.namespace },
                },
              })),
              ports: plan.backends.map((b) => ({
                port: k8s.IntOrString.fromNumber(b.port),
                protocol: 'TCP',
              })),
            },
          ]
        : []),
    );
    policies.push(
      new k8s.KubeNetworkPolicy(this, 'agent', {
        metadata: {
          name: names.workload,
          namespace: plan.namespace,
          labels: names.labels('agent', plan.labels),
          ...annotations,
        },
        spec: policySpec(names.agentSelector(), agentIngress, agentPodEgress(plan)),
      }),
    );

    const fromAgentPod = (port: number): k8s.NetworkPolicyIngressRule[] => [
      {
        from: [{ podSelector: { matchLabels: { ...names.agentSelector() } } }],
        ports: [{ port: k8s.IntOrString.fromNumber(port), protocol: 'TCP' }],
      },
    ];
    for (const toolchain of podToolchains(plan)) {
      policies.push(
        new k8s.KubeNetworkPolicy(this, `toolchain-${toolchain.name}`, {
          metadata: {
            name: toolchain.pod.objectName,
            namespace: plan.namespace,
            labels: names.labels(toolchain.pod.component, plan.labels),
            ...annotations,
          },
          spec: policySpec(
            toolchain.pod.selector,
            [...fromAgentPod(toolchain.port), ...scrape([toolchain.healthPort])],
            toolchainPodEgress(plan, toolchain),
          ),
        }),
      );
    }

    for (const gateway of deployedGateways(plan)) {
      // A gateway behind a broker route is called by the broker (which adds its token), not the agent pod.
      const ingress: k8s.NetworkPolicyIngressRule[] = gateway.route
        ? [
            {
              from: [{ podSelector: { matchLabels: { ...plan.broker.selector } } }],
              ports: [{ port: k8s.IntOrString.fromNumber(gateway.port), protocol: 'TCP' }],
            },
          ]
        : fromAgentPod(gateway.port);
      policies.push(
        new k8s.KubeNetworkPolicy(this, `gateway-${gateway.name}`, {
          metadata: {
            name: gateway.objectName,
            namespace: plan.namespace,
            labels: names.labels(`gateway-${gateway.name}`, plan.labels),
            ...annotations,
          },
          spec: policySpec(gateway.selector, ingress, gatewayPodEgress(plan, gateway)),
        }),
      );
    }
    if (plan.broker.enabled) {
      // Only this agent's pods that call the broker reach it, on the proxy port (probes come from the kubelet).
      const callerPods = [...new Set(plan.broker.callers.map((c) => c.pod))].map((pod) => ({
        podSelector: {
          matchLabels: {
            ...(pod === names.workload
              ? names.agentSelector()
              : (podToolchains(plan).find((t) => t.pod.objectName === pod)?.pod.selector ??
                plan.sandboxes?.templates.find((t) => t.objectName === pod)?.selector ??
                (pod === plan.sandboxes?.objectName ? plan.sandboxes.selector : undefined))),
          },
        },
      }));
      policies.push(
        new k8s.KubeNetworkPolicy(this, 'broker', {
          metadata: {
            name: plan.broker.objectName,
            namespace: plan.namespace,
            labels: names.labels(plan.broker.component, plan.labels),
            ...annotations,
          },
          spec: policySpec(
            plan.broker.selector,
            [
              ...(callerPods.length > 0
                ? [
                    {
                      from: callerPods,
                      ports: [{ port: k8s.IntOrString.fromNumber(plan.broker.port), protocol: 'TCP' }],
                    },
                  ]
                : []),
              ...scrape([plan.broker.healthPort]),
            ],
            brokerPodEgress(plan),
          ),
        }),
      );
    }
    if (plan.sandboxes) {
      const sandboxes = plan.sandboxes;
      policies.push(
        new k8s.KubeNetworkPolicy(this, 'sandbox-manager', {
          metadata: {
            name: sandboxes.objectName,
            namespace: plan.namespace,
            labels: names.labels(sandboxes.component, plan.labels),
            ...annotations,
          },
          spec: policySpec(
            sandboxes.selector,
            [...fromAgentPod(sandboxes.port), ...scrape([sandboxes.healthPort])],
            sandboxManagerPodEgress(plan, sandboxes),
          ),
        }),
      );
      // A sandbox admits its manager alone, on its server's port (probes come from the kubelet).
      for (const template of sandboxes.templates)
        policies.push(
          new k8s.KubeNetworkPolicy(this, `sandbox-${template.name}`, {
            metadata: {
              name: template.objectName,
              namespace: plan.namespace,
              labels: names.labels(template.component, plan.labels),
              ...annotations,
            },
            spec: policySpec(
              template.selector,
              [
                {
                  from: [{ podSelector: { matchLabels: { ...sandboxes.selector } } }],
                  ports: [{ port: k8s.IntOrString.fromNumber(template.toolchain.port), protocol: 'TCP' }],
                },
              ],
              sandboxPodEgress(plan, template),
            ),
          }),
        );
    }
    this.policies = policies;
  }
}

function policySpec(
  podLabels: Labels,
  ingress: k8s.NetworkPolicyIngressRule[],
  egress: PodEgress,
): k8s.NetworkPolicySpec {
  // An empty rule list is left out, not written as `[]`: both deny everything of their policy type, but the API
  // server stores no empty list, so `[]` in the applied output makes every server-side re-apply a change (a new
  // generation each time, found by applying to a real API server) and GitOps tools see drift forever.
  const egressRules = egress.grants.map(egressRule);
  return {
    podSelector: { matchLabels: { ...podLabels } },
    policyTypes: ['Ingress', 'Egress'],
    ...(ingress.length > 0 ? { ingress } : {}),
    ...(egressRules.length > 0 ? { egress: egressRules } : {}),
  };
}

function egressRule(grant: EgressGrant): k8s.NetworkPolicyEgressRule {
  const ports = grant.ports.map((p) => ({ port: k8s.IntOrString.fromNumber(p.port), protocol: p.protocol }));
  const withPorts = ports.length > 0 ? { ports } : {};
  switch (grant.to.kind) {
    case 'dns':
    case 'collector':
      return {
        to: [
          {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': grant.to.namespace } },
            podSelector: { matchLabels: { ...grant.to.podLabels } },
          },
        ],
        ...withPorts,
      };
    case 'gateway':
    case 'toolchain':
    case 'broker':
    case 'sandbox':
      return { to: [{ podSelector: { matchLabels: { ...grant.to.podLabels } } }], ...withPorts };
    case 'internet':
      return {
        to: grant.to.blocks.map((b) => ({
          ipBlock: { cidr: b.cidr, ...(b.except.length > 0 ? { except: [...b.except] } : {}) },
        })),
        ...withPorts,
      };
    case 'cidrs':
      return { to: grant.to.cidrs.map((cidr) => ({ ipBlock: { cidr } })), ...withPorts };
    case 'anywhere':
      return {};
  }
}
