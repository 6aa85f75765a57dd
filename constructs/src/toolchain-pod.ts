import * as plus from 'cdk8s-plus-28';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import {
  CONFIG_HASH_ANNOTATION,
  serverBundleVolume,
  serverInstaller,
  workspaceVolume,
} from './agent-workload.ts';
import { cacheVolumes } from './cache-volumes.ts';
import { contentHash } from './container-parts.ts';
import type { AgentPlan, PodToolchain } from './plan.ts';
import { pullSecrets, restrictedPodSecurityContext } from './security.ts';
import { TOOLCHAIN_MCP_PORT_NAME, type ToolchainSidecar } from './toolchain-sidecar.ts';

export interface ToolchainPodProps {
  /** The agent the toolchain serves. */
  readonly plan: AgentPlan;
  /** The toolchain, `placement: pod`, defaults applied. */
  readonly toolchain: PodToolchain;
  /** Its container, scratch volumes and server config. */
  readonly sidecar: ToolchainSidecar;
}

/**
 * A toolchain in its own pod (`placement: pod`): a Deployment running the toolchain's container (and the
 * server installer, for bring-your-own images) on the agent's shared workspace claim, a Service exposing only
 * its MCP port, and a ServiceAccount of its own that mounts no token. Its NetworkPolicy, which admits only the
 * agent pod and allows exactly the toolchain's declared egress, is built by `AgentNetworkPolicies`.
 */
export class ToolchainPod extends Construct {
  readonly serviceAccount: plus.ServiceAccount;
  readonly deployment: k8s.KubeDeployment;
  readonly service: k8s.KubeService;
  readonly podSpec: k8s.PodSpec;

  constructor(scope: Construct, id: string, props: ToolchainPodProps) {
    super(scope, id);
    const { plan, toolchain, sidecar } = props;
    const pod = toolchain.pod;
    const labels = plan.names.labels(pod.component, plan.labels);
    const annotations = Object.keys(plan.annotations).length > 0 ? { annotations: plan.annotations } : {};
    const metadata = { name: pod.objectName, namespace: plan.namespace, labels, ...annotations };

    this.serviceAccount = new plus.ServiceAccount(this, 'service-account', {
      metadata,
      automountToken: false,
    });
    const workspace = workspaceVolume(plan);
    if (!workspace)
      throw new Error(
        `internal error: toolchain "${toolchain.name}" has placement: pod, but the workspace is no shared claim`,
      );
    this.podSpec = {
      serviceAccountName: pod.objectName,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      securityContext: restrictedPodSecurityContext(),
      ...pullSecrets(plan.imagePullSecrets),
      ...(sidecar.injectsServer ? { initContainers: [serverInstaller(plan)] } : {}),
      containers: [sidecar.container],
      volumes: [
        workspace,
        ...cacheVolumes(plan, [toolchain]),
        ...(sidecar.injectsServer ? [serverBundleVolume()] : []),
        ...sidecar.volumes,
      ],
    };
    this.deployment = new k8s.KubeDeployment(this, 'deployment', {
      metadata,
      spec: {
        replicas: pod.replicas,
        selector: { matchLabels: { ...pod.selector } },
        strategy: { type: 'RollingUpdate' },
        template: {
          metadata: {
            labels,
            annotations: { ...plan.annotations, [CONFIG_HASH_ANNOTATION]: contentHash([sidecar.configJson]) },
          },
          spec: this.podSpec,
        },
      },
    });
    this.service = new k8s.KubeService(this, 'service', {
      metadata,
      spec: {
        type: 'ClusterIP',
        selector: { ...pod.selector },
        ports: [
          {
            name: TOOLCHAIN_MCP_PORT_NAME,
            port: toolchain.port,
            targetPort: k8s.IntOrString.fromString(TOOLCHAIN_MCP_PORT_NAME),
            protocol: 'TCP',
          },
        ],
      },
    });
  }
}
