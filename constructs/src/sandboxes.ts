/**
 * `spec.sandboxes` rendered (docs/sandboxes.md): the sandbox manager — a ServiceAccount whose token it mounts, a
 * Role over exactly the objects its provider needs in its own namespace, a ConfigMap, a one-replica Deployment
 * and a Service exposing only its MCP port — and, per template, the sandbox server's ConfigMap and, for the
 * `agent-sandbox` provider, a SandboxTemplate (`v1beta1`, NetworkPolicy management off, claim env and claim
 * volume templates disallowed) and a SandboxWarmPool. Sandbox pods share one ServiceAccount that mounts no token
 * and holds no Role. The NetworkPolicies of the manager and the sandbox pods are with the agent's others.
 */

import { ApiObject } from 'cdk8s';
import * as plus from 'cdk8s-plus-28';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import {
  AGENT_SANDBOX_EXTENSIONS_GROUP,
  AGENT_SANDBOX_GROUP,
  AGENT_SANDBOX_VERSION,
} from '../../toolchain-server/sandbox-manager/api-versions.ts';
import {
  SANDBOX_MANAGER_CONFIG_FILE,
  SANDBOX_MANAGER_PATHS,
  SANDBOX_WORKSPACE_VOLUME,
} from '../../toolchain-server/sandbox-manager/constants.ts';
import { sandboxManagerCommand } from '../../toolchain-server/src/launch.ts';
import { CONFIG_HASH_ANNOTATION } from './agent-workload.ts';
import { contentHash, resourceRequirements, serverProbes, tokenFile } from './container-parts.ts';
import { BROKER_TOKEN_DIR, PATHS } from './defaults.ts';
import type { AgentPlan } from './plan.ts';
import type { PolicyRule } from './rbac-presets.ts';
import { sandboxManagerConfigHash, sandboxManagerConfigJson } from './sandbox-manager-config.ts';
import {
  DEFAULT_SANDBOX_MANAGER_RESOURCES,
  type PlannedSandboxes,
  SANDBOX_MANAGER_CALLER,
} from './sandbox-plan.ts';
import { sandboxPodSpec, sandboxServerConfigJson, sandboxWorkspaceClaimSpec } from './sandbox-pod.ts';
import { pullSecrets, restrictedContainerSecurityContext, restrictedPodSecurityContext } from './security.ts';
import { TOOLCHAIN_CONFIG_FILE } from './toolchain-config.ts';
import { TOOLCHAIN_MCP_PORT_NAME as MCP } from './toolchain-sidecar.ts';

export interface SandboxesProps {
  readonly plan: AgentPlan;
  readonly sandboxes: PlannedSandboxes;
}

/** The Role rules of the manager: only what its provider creates, changes and reads, in its namespace. */
export function sandboxManagerRules(provider: PlannedSandboxes['provider']): PolicyRule[] {
  if (provider === 'agent-sandbox')
    return [
      {
        apiGroups: [AGENT_SANDBOX_EXTENSIONS_GROUP],
        resources: ['sandboxclaims'],
        verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
      },
      { apiGroups: [AGENT_SANDBOX_GROUP], resources: ['sandboxes'], verbs: ['get', 'patch'] },
    ];
  return [
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'create', 'delete'] },
    {
      apiGroups: [''],
      resources: ['persistentvolumeclaims'],
      verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
    },
  ];
}

export const SANDBOX_MANAGER_CONTAINER = 'sandbox-manager';

export class Sandboxes extends Construct {
  readonly configJson: string;
  readonly deployment: k8s.KubeDeployment;

  constructor(scope: Construct, id: string, props: SandboxesProps) {
    super(scope, id);
    const { plan, sandboxes } = props;
    const names = plan.names;
    const annotations = Object.keys(plan.annotations).length > 0 ? { annotations: plan.annotations } : {};
    const managerLabels = names.labels(sandboxes.component, plan.labels);
    const metadata = {
      name: sandboxes.objectName,
      namespace: plan.namespace,
      labels: managerLabels,
      ...annotations,
    };

    // Sandbox pods: one ServiceAccount, no token, no Role.
    new plus.ServiceAccount(this, 'pods-service-account', {
      metadata: {
        name: sandboxes.podServiceAccount,
        namespace: plan.namespace,
        labels: names.labels('sandbox', plan.labels),
        ...annotations,
      },
      automountToken: false,
    });
    for (const template of sandboxes.templates) {
      const templateMeta = {
        name: template.objectName,
        namespace: plan.namespace,
        labels: names.labels(template.component, plan.labels),
        ...annotations,
      };
      const serverConfig = sandboxServerConfigJson(plan, template);
      new plus.ConfigMap(this, `config-${template.name}`, {
        metadata: templateMeta,
        data: { [TOOLCHAIN_CONFIG_FILE]: serverConfig },
      });
      if (sandboxes.provider !== 'agent-sandbox') continue;
      const podSpec = sandboxPodSpec(plan, sandboxes, template);
      new ApiObject(this, `template-${template.name}`, {
        apiVersion: `${AGENT_SANDBOX_EXTENSIONS_GROUP}/${AGENT_SANDBOX_VERSION}`,
        kind: 'SandboxTemplate',
        metadata: templateMeta,
        spec: {
          podTemplate: {
            metadata: {
              labels: { ...names.labels(template.component, plan.labels) },
              annotations: { ...plan.annotations, [CONFIG_HASH_ANNOTATION]: contentHash([serverConfig]) },
            },
            spec: k8s.KubePod.manifest({ spec: podSpec }).spec,
          },
          volumeClaimTemplates: [
            { metadata: { name: SANDBOX_WORKSPACE_VOLUME }, spec: sandboxWorkspaceClaimSpec(template) },
          ],
          // toolyard renders the sandboxes' NetworkPolicy itself (ingress from the manager only, egress DNS +
          // broker or nothing); claims may set no env and no volume templates, which would force a cold start.
          networkPolicyManagement: 'Unmanaged',
          envVarsInjectionPolicy: 'Disallowed',
          volumeClaimTemplatesPolicy: 'Disallowed',
          // The manager reaches a sandbox at its pod IP; no Service per sandbox.
          service: false,
        },
      });
      new ApiObject(this, `warm-pool-${template.name}`, {
        apiVersion: `${AGENT_SANDBOX_EXTENSIONS_GROUP}/${AGENT_SANDBOX_VERSION}`,
        kind: 'SandboxWarmPool',
        metadata: templateMeta,
        spec: {
          replicas: template.warmPoolReplicas,
          sandboxTemplateRef: { name: template.objectName },
          // Unclaimed sandboxes of an older template are replaced at once; claimed ones are never touched.
          updateStrategy: { type: 'Recreate' },
        },
      });
    }

    // The manager.
    new plus.ServiceAccount(this, 'service-account', { metadata, automountToken: true });
    new k8s.KubeRole(this, 'role', {
      metadata,
      rules: sandboxManagerRules(sandboxes.provider).map((r) => ({
        apiGroups: [...r.apiGroups],
        resources: [...r.resources],
        verbs: [...r.verbs],
      })),
    });
    new k8s.KubeRoleBinding(this, 'role-binding', {
      metadata,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: sandboxes.objectName },
      subjects: [{ kind: 'ServiceAccount', name: sandboxes.objectName, namespace: plan.namespace }],
    });
    this.configJson = sandboxManagerConfigJson(plan, sandboxes);
    new plus.ConfigMap(this, 'config', {
      metadata,
      data: { [SANDBOX_MANAGER_CONFIG_FILE]: this.configJson },
    });
    const auth = tokenFile('auth', sandboxes.auth.secret);
    const bootstrap = tokenFile('bootstrap', sandboxes.bootstrapSecret);
    // spec.observability: its broker token, for the otlp route (its only route).
    const brokerToken = plan.broker.callers.some((c) => c.name === SANDBOX_MANAGER_CALLER)
      ? tokenFile('broker', { name: plan.broker.tokensSecret, key: SANDBOX_MANAGER_CALLER })
      : undefined;
    const container: k8s.Container = {
      name: SANDBOX_MANAGER_CONTAINER,
      image: sandboxes.image.reference,
      imagePullPolicy: sandboxes.image.pullPolicy,
      command: [
        ...sandboxManagerCommand(PATHS.serverBundle),
        '--config',
        `${SANDBOX_MANAGER_PATHS.configDir}/${SANDBOX_MANAGER_CONFIG_FILE}`,
      ],
      ports: [
        { name: MCP, containerPort: sandboxes.port, protocol: 'TCP' },
        { name: `health-${sandboxes.healthPort}`, containerPort: sandboxes.healthPort, protocol: 'TCP' },
      ],
      resources: resourceRequirements(structuredClone(DEFAULT_SANDBOX_MANAGER_RESOURCES)),
      securityContext: restrictedContainerSecurityContext(),
      volumeMounts: [
        { name: 'config', mountPath: SANDBOX_MANAGER_PATHS.configDir, readOnly: true },
        { ...auth.mount, mountPath: SANDBOX_MANAGER_PATHS.authDir },
        { ...bootstrap.mount, mountPath: SANDBOX_MANAGER_PATHS.bootstrapDir },
        ...(brokerToken ? [{ ...brokerToken.mount, mountPath: BROKER_TOKEN_DIR }] : []),
      ],
      ...serverProbes(sandboxes.healthPort),
    };
    this.deployment = new k8s.KubeDeployment(this, 'deployment', {
      metadata,
      spec: {
        // One manager: its lifecycle pass and quota checks are one process's; its state is in the API server.
        replicas: 1,
        selector: { matchLabels: { ...sandboxes.selector } },
        strategy: { type: 'Recreate' },
        template: {
          metadata: {
            labels: managerLabels,
            annotations: {
              ...plan.annotations,
              [CONFIG_HASH_ANNOTATION]: sandboxManagerConfigHash(plan, sandboxes),
            },
          },
          spec: {
            serviceAccountName: sandboxes.objectName,
            automountServiceAccountToken: true,
            enableServiceLinks: false,
            securityContext: restrictedPodSecurityContext(),
            ...pullSecrets(plan.imagePullSecrets),
            containers: [container],
            volumes: [
              { name: 'config', configMap: { name: sandboxes.objectName } },
              auth.volume,
              bootstrap.volume,
              ...(brokerToken ? [brokerToken.volume] : []),
            ],
          },
        },
      },
    });
    new k8s.KubeService(this, 'service', {
      metadata,
      spec: {
        type: 'ClusterIP',
        selector: { ...sandboxes.selector },
        ports: [
          { name: MCP, port: sandboxes.port, targetPort: k8s.IntOrString.fromString(MCP), protocol: 'TCP' },
        ],
      },
    });
  }
}
