import { ApiObject } from 'cdk8s';
import * as plus from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import type { AgentMetadata, AgentSpec, ToolyardAgent } from '../../schema/src/types.generated.ts';
import { AgentSpecError } from './agent-spec-error.ts';
import { AgentWorkload, SERVER_BUNDLE_VOLUME } from './agent-workload.ts';
import { Broker } from './broker.ts';
import { CacheClaims } from './cache-volumes.ts';
import { checkAgentDocument } from './check-agent.ts';
import type { RenderWarning } from './effective-egress.ts';
import { KubernetesAccess } from './kubernetes-access.ts';
import { McpClientConfigMap } from './mcp-client-config-map.ts';
import { McpGateway } from './mcp-gateway.ts';
import { metricsScrapeObjects } from './metrics-scrape.ts';
import { AgentNetworkPolicies } from './network-policies.ts';
import { type AgentPlan, deployedGateways } from './plan.ts';
import { Sandboxes } from './sandboxes.ts';
import { ToolchainPod } from './toolchain-pod.ts';
import { ToolchainSidecar } from './toolchain-sidecar.ts';
import { type AcknowledgedWarning, agentWarnings } from './warnings.ts';

export interface AgentProps {
  /** The agent's identity: name, namespace, extra labels and annotations. */
  readonly metadata: AgentMetadata;
  /** Backends, toolchains, gateways, workspace and policy (the `spec` of a `toolyard.dev/v1alpha1` Agent). */
  readonly spec: AgentSpec;
  /**
   * The plan `checkAgentDocument` returned for exactly this metadata and spec (unchanged since): the check is
   * not repeated. Without it the props are checked and planned here.
   */
  readonly checkedPlan?: AgentPlan;
}

/**
 * A toolyard Agent inside any cdk8s chart: the agent pod (backends + toolchain sidecars + workspace), its
 * ServiceAccount and Service, the toolchain and MCP client ConfigMaps, one Deployment/Service/ServiceAccount
 * per toolchain with `placement: pod` and per deployed gateway (+ preset Roles), and deny-by-default
 * NetworkPolicies for every pod.
 *
 * The props are validated against the JSON Schema and the semantic checks first; an invalid spec throws an
 * `AgentSpecError` listing every problem, before any object is added to the chart.
 */
export class Agent extends Construct {
  readonly plan: AgentPlan;
  /** Things that render but deserve attention, e.g. a toolchain sharing more egress than it asked for. */
  readonly warnings: readonly RenderWarning[];
  /** Warnings the spec accepts on purpose (`spec.acknowledgedWarnings`), with their reasons. */
  readonly acknowledgedWarnings: readonly AcknowledgedWarning[];
  readonly serviceAccount: plus.ServiceAccount;
  readonly workload: AgentWorkload;
  /** Every toolchain's container and config, in spec order (sidecars and those in their own pods). */
  readonly toolchains: readonly ToolchainSidecar[];
  /** The pods of toolchains with `placement: pod`. */
  readonly toolchainPods: readonly ToolchainPod[];
  readonly mcpClientConfigs: McpClientConfigMap;
  readonly gateways: readonly McpGateway[];
  readonly access?: KubernetesAccess;
  readonly networkPolicies?: AgentNetworkPolicies;
  /** The PersistentVolumeClaims of caches declared with a new claim. */
  readonly cacheClaims: CacheClaims;
  /** The agent's broker (`spec.broker.enabled`, the default). */
  readonly broker?: Broker;
  /** The sandbox manager and templates (`spec.sandboxes`). */
  readonly sandboxes?: Sandboxes;

  constructor(scope: Construct, id: string, props: AgentProps) {
    const document: ToolyardAgent = {
      apiVersion: 'toolyard.dev/v1alpha1',
      kind: 'Agent',
      metadata: props.metadata,
      spec: props.spec,
    };
    let plan = props.checkedPlan;
    if (plan === undefined) {
      const checked = checkAgentDocument(document);
      if (!checked.ok) throw new AgentSpecError(String(props.metadata?.name), checked.problems);
      plan = checked.plan;
    }

    super(scope, id);
    this.plan = plan;
    const { warnings, acknowledged } = agentWarnings(plan);
    this.warnings = warnings;
    this.acknowledgedWarnings = acknowledged;
    const names = plan.names;
    const labels = names.labels('agent', plan.labels);
    const saAnnotations = { ...plan.annotations, ...plan.serviceAccountAnnotations };

    this.serviceAccount = new plus.ServiceAccount(this, 'service-account', {
      metadata: {
        name: names.serviceAccount,
        namespace: plan.namespace,
        labels,
        ...(Object.keys(saAnnotations).length > 0 ? { annotations: saAnnotations } : {}),
      },
      automountToken: false,
    });
    if (plan.rbacPreset !== 'none') {
      this.access = new KubernetesAccess(this, 'access', {
        name: names.workload,
        serviceAccount: { name: names.serviceAccount, namespace: plan.namespace },
        preset: plan.rbacPreset,
        namespaces: [plan.namespace],
        labels,
        annotations: plan.annotations,
      });
    }
    this.mcpClientConfigs = new McpClientConfigMap(this, 'mcp-clients', { plan });
    this.toolchains = plan.toolchains.map(
      (toolchain) =>
        new ToolchainSidecar(this, `toolchain-${toolchain.name}`, {
          plan,
          toolchain,
          serverBundleVolume: SERVER_BUNDLE_VOLUME,
        }),
    );
    this.cacheClaims = new CacheClaims(this, 'cache-claims', { plan });
    this.workload = new AgentWorkload(this, 'workload', {
      plan,
      toolchains: this.toolchains.filter((_, i) => plan.toolchains[i]!.placement === 'sidecar'),
      mcpClientConfigs: this.mcpClientConfigs,
    });
    this.toolchainPods = plan.toolchains.flatMap((toolchain, i) =>
      toolchain.pod
        ? [
            new ToolchainPod(this, `toolchain-pod-${toolchain.name}`, {
              plan,
              toolchain: { ...toolchain, pod: toolchain.pod },
              sidecar: this.toolchains[i]!,
            }),
          ]
        : [],
    );
    this.gateways = deployedGateways(plan).map(
      (gateway) => new McpGateway(this, `gateway-${gateway.name}`, { plan, gateway }),
    );
    if (plan.broker.enabled) this.broker = new Broker(this, 'broker', { plan });
    if (plan.sandboxes)
      this.sandboxes = new Sandboxes(this, 'sandboxes', { plan, sandboxes: plan.sandboxes });
    // spec.observability.metrics: the metrics Service (annotated) or a ServiceMonitor beside it.
    for (const object of metricsScrapeObjects(plan))
      new ApiObject(this, `metrics-${String(object.kind).toLowerCase()}`, object as never);
    if (plan.network.enabled)
      this.networkPolicies = new AgentNetworkPolicies(this, 'network-policies', { plan });
  }
}
