import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { backendContainer, portName, serviceAccountTokenVolume } from './backend-container.ts';
import { cacheVolumes, mountsSingleNodeCacheClaim } from './cache-volumes.ts';
import { contentHash, resourceRequirements } from './container-parts.ts';
import { INSTALLER_RESOURCES, PATHS } from './defaults.ts';
import type { McpClientConfigMap } from './mcp-client-config-map.ts';
import type { AgentPlan } from './plan.ts';
import { pullSecrets, restrictedContainerSecurityContext, restrictedPodSecurityContext } from './security.ts';
import type { ToolchainSidecar } from './toolchain-sidecar.ts';

export const SERVER_BUNDLE_VOLUME = 'toolyard-server';
export const WORKSPACE_VOLUME = 'workspace';
export const CONFIG_HASH_ANNOTATION = 'toolyard.dev/config-hash';

export interface AgentWorkloadProps {
  /** The agent to run. */
  readonly plan: AgentPlan;
  /** Its toolchain sidecars (toolchains with `placement: sidecar`), in spec order. */
  readonly toolchains: readonly ToolchainSidecar[];
  /** The backends' MCP client configs. */
  readonly mcpClientConfigs: McpClientConfigMap;
}

/**
 * The agent pod: backend containers and toolchain sidecars on one shared workspace, as a Deployment, or as a
 * StatefulSet when the workspace is a claim template. Also the agent's Service, which exposes the backends,
 * and the workspace's PersistentVolumeClaim when toolchain pods share a new claim with the agent pod.
 */
export class AgentWorkload extends Construct {
  readonly workload: k8s.KubeDeployment | k8s.KubeStatefulSet;
  readonly service: k8s.KubeService;
  readonly podSpec: k8s.PodSpec;
  /** The shared workspace claim (a new claim and toolchains with `placement: pod`). */
  readonly claim?: k8s.KubePersistentVolumeClaim;

  constructor(scope: Construct, id: string, props: AgentWorkloadProps) {
    super(scope, id);
    const { plan, toolchains, mcpClientConfigs } = props;
    const names = plan.names;
    const labels = names.labels('agent', plan.labels);
    const selector = names.agentSelector();
    const annotations = Object.keys(plan.annotations).length > 0 ? { annotations: plan.annotations } : {};
    const metadata = { name: names.workload, namespace: plan.namespace, labels, ...annotations };

    const backends = plan.backends.map((b) => backendContainer(plan, b, mcpClientConfigs.configFor(b.name)));
    const injects = toolchains.some((t) => t.injectsServer);
    const volume = plan.workspace.volume;
    const workspace = workspaceVolume(plan);
    const workspaceVolumes: k8s.Volume[] = workspace ? [workspace] : [];

    this.podSpec = {
      serviceAccountName: names.serviceAccount,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      securityContext: restrictedPodSecurityContext(),
      ...pullSecrets(plan.imagePullSecrets),
      ...(injects ? { initContainers: [serverInstaller(plan)] } : {}),
      containers: [...backends.map((b) => b.container), ...toolchains.map((t) => t.container)],
      volumes: [
        ...workspaceVolumes,
        ...cacheVolumes(
          plan,
          toolchains.map((t) => t.toolchain),
        ),
        ...(injects ? [serverBundleVolume()] : []),
        ...(plan.rbacPreset !== 'none' ? [serviceAccountTokenVolume()] : []),
        ...backends.flatMap((b) => b.volumes),
        ...toolchains.flatMap((t) => t.volumes),
      ],
    };
    const configHash = contentHash([
      ...mcpClientConfigs.files.map((f) => f.content),
      ...toolchains.map((t) => t.configJson),
    ]);
    const template: k8s.PodTemplateSpec = {
      metadata: { labels, annotations: { ...plan.annotations, [CONFIG_HASH_ANNOTATION]: configHash } },
      spec: this.podSpec,
    };

    const headless = volume.kind === 'claimTemplate';
    this.service = new k8s.KubeService(this, 'service', {
      metadata: { name: names.service, namespace: plan.namespace, labels, ...annotations },
      spec: {
        ...(headless ? { clusterIp: 'None' } : { type: 'ClusterIP' }),
        selector: { ...selector },
        ports: plan.backends.map((b) => ({
          name: portName(b),
          port: b.port,
          targetPort: k8s.IntOrString.fromString(portName(b)),
          protocol: 'TCP',
        })),
      },
    });

    if (volume.kind === 'sharedClaim') {
      this.claim = new k8s.KubePersistentVolumeClaim(this, 'workspace-claim', {
        metadata: { name: volume.claimName, namespace: plan.namespace, labels, ...annotations },
        spec: {
          accessModes: [...volume.accessModes],
          resources: { requests: { storage: k8s.Quantity.fromString(volume.storage) } },
          ...(volume.storageClassName ? { storageClassName: volume.storageClassName } : {}),
        },
      });
    }

    if (volume.kind === 'claimTemplate') {
      const statefulSet = new StatefulSetWithStoredClaims(this, 'stateful-set', {
        metadata,
        spec: {
          replicas: 1,
          serviceName: names.service,
          selector: { matchLabels: { ...selector } },
          template,
          volumeClaimTemplates: [
            {
              metadata: { name: 'workspace', labels },
              spec: {
                accessModes: [...volume.accessModes],
                resources: { requests: { storage: k8s.Quantity.fromString(volume.storage) } },
                ...(volume.storageClassName ? { storageClassName: volume.storageClassName } : {}),
                volumeMode: 'Filesystem',
              },
            },
          ],
        },
      });
      this.workload = statefulSet;
    } else {
      this.workload = new k8s.KubeDeployment(this, 'deployment', {
        metadata,
        spec: {
          replicas: 1,
          selector: { matchLabels: { ...selector } },
          // A claim that is not ReadWriteMany cannot be mounted by an old and a new pod at once; one agent
          // pod at a time on a shared claim, too. The same holds for a cache on such a claim.
          strategy: {
            type:
              volume.kind === 'emptyDir' &&
              !mountsSingleNodeCacheClaim(
                plan,
                toolchains.map((t) => t.toolchain),
              )
                ? 'RollingUpdate'
                : 'Recreate',
          },
          template,
        },
      });
    }
  }
}

/**
 * The pod volume that holds the workspace: the emptyDir, the existing claim or the shared claim; none for a
 * claim template (the StatefulSet's volumeClaimTemplates provide it).
 */
export function workspaceVolume(plan: AgentPlan): k8s.Volume | undefined {
  const volume = plan.workspace.volume;
  switch (volume.kind) {
    case 'emptyDir':
      return {
        name: WORKSPACE_VOLUME,
        emptyDir: {
          sizeLimit: k8s.Quantity.fromString(volume.sizeLimit),
          ...(volume.medium ? { medium: volume.medium } : {}),
        },
      };
    case 'existingClaim':
    case 'sharedClaim':
      return { name: WORKSPACE_VOLUME, persistentVolumeClaim: { claimName: volume.claimName } };
    case 'claimTemplate':
      return undefined;
  }
}

/** The emptyDir the init container copies the toolchain server bundle into. */
export function serverBundleVolume(): k8s.Volume {
  return { name: SERVER_BUNDLE_VOLUME, emptyDir: { sizeLimit: k8s.Quantity.fromString('512Mi') } };
}

/** Copies the toolchain server bundle (Node runtime + one JS file) into the pod for bring-your-own images. */
export function serverInstaller(plan: AgentPlan): k8s.Container {
  return {
    name: 'toolyard-install',
    image: plan.toolchainServerImage.reference,
    imagePullPolicy: plan.toolchainServerImage.pullPolicy,
    command: ['cp', '-R', `${PATHS.serverBundle}/.`, '/toolyard/'],
    resources: resourceRequirements(INSTALLER_RESOURCES),
    securityContext: restrictedContainerSecurityContext(),
    volumeMounts: [{ name: SERVER_BUNDLE_VOLUME, mountPath: '/toolyard' }],
  };
}

/**
 * A StatefulSet whose claim templates are written as the API server stores them: it fills in `apiVersion`,
 * `kind` and `status.phase` (and `spec.volumeMode`, set above), and `volumeClaimTemplates` is an atomic list, so
 * a second field manager applying the bare template (cdk8s synth next to toolyard synth, a GitOps tool taking
 * over) "changed" it and conflicted with the first. Found by applying to a real API server (issue 28). The L1
 * class's own `toJson` keeps only the typed fields, so they are added after it.
 */
class StatefulSetWithStoredClaims extends k8s.KubeStatefulSet {
  override toJson(): ReturnType<k8s.KubeStatefulSet['toJson']> {
    const json = super.toJson() as { spec?: { volumeClaimTemplates?: Record<string, unknown>[] } };
    const templates = json.spec?.volumeClaimTemplates ?? [];
    json.spec = {
      ...json.spec,
      volumeClaimTemplates: templates.map((claim) => ({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        ...claim,
        status: { phase: 'Pending' },
      })),
    };
    return json;
  }
}
