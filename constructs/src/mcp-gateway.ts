import * as plus from 'cdk8s-plus-28';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { plainEnv, probes, resourceRequirements, secretEnv, tokenFile } from './container-parts.ts';
import { BEARER_TOKEN_FILE_ENV, PATHS, TOKEN_FILE_NAME } from './defaults.ts';
import { KubernetesAccess } from './kubernetes-access.ts';
import type { AgentPlan, PlannedDeployedGateway } from './plan.ts';
import { pullSecrets, restrictedContainerSecurityContext, restrictedPodSecurityContext } from './security.ts';

export interface McpGatewayProps {
  /** The agent the gateway serves. */
  readonly plan: AgentPlan;
  /** The gateway, defaults applied. */
  readonly gateway: PlannedDeployedGateway;
}

/**
 * An MCP gateway that holds external authority: its own ServiceAccount (a token only when it has Kubernetes
 * authority), a preset Role per granted namespace, a Deployment and a Service. Secrets are referenced only.
 */
export class McpGateway extends Construct {
  readonly serviceAccount: plus.ServiceAccount;
  readonly deployment: k8s.KubeDeployment;
  readonly service: k8s.KubeService;
  readonly access?: KubernetesAccess;

  constructor(scope: Construct, id: string, props: McpGatewayProps) {
    super(scope, id);
    const { plan, gateway } = props;
    const component = `gateway-${gateway.name}`;
    const labels = plan.names.labels(component, plan.labels);
    const annotations = Object.keys(plan.annotations).length > 0 ? { annotations: plan.annotations } : {};
    const metadata = { name: gateway.objectName, namespace: plan.namespace, labels, ...annotations };
    const hasKubernetes = gateway.kubernetes !== undefined;

    this.serviceAccount = new plus.ServiceAccount(this, 'service-account', {
      metadata: {
        ...metadata,
        ...(Object.keys(gateway.serviceAccountAnnotations).length > 0 || annotations.annotations
          ? { annotations: { ...plan.annotations, ...gateway.serviceAccountAnnotations } }
          : {}),
      },
      automountToken: hasKubernetes,
    });
    if (gateway.kubernetes) {
      this.access = new KubernetesAccess(this, 'access', {
        name: gateway.objectName,
        serviceAccount: { name: gateway.objectName, namespace: plan.namespace },
        preset: gateway.kubernetes.preset,
        namespaces: gateway.kubernetes.namespaces,
        labels,
        ...annotations,
      });
    }

    // The token is a file; the environment only names its path, unless the spec asks for `tokenEnv` too.
    const token = gateway.auth ? tokenFile('bearer-token', gateway.auth.secret) : undefined;
    const tokenEnv = gateway.auth
      ? [
          ...plainEnv({ [BEARER_TOKEN_FILE_ENV]: `${PATHS.authDir}/${TOKEN_FILE_NAME}` }),
          ...(gateway.auth.gatewayEnv
            ? secretEnv([
                {
                  env: gateway.auth.gatewayEnv,
                  secretName: gateway.auth.secret.name,
                  key: gateway.auth.secret.key,
                },
              ])
            : []),
        ]
      : [];
    this.deployment = new k8s.KubeDeployment(this, 'deployment', {
      metadata,
      spec: {
        replicas: gateway.replicas,
        selector: { matchLabels: { ...gateway.selector } },
        template: {
          metadata: { labels, ...annotations },
          spec: {
            serviceAccountName: gateway.objectName,
            automountServiceAccountToken: hasKubernetes,
            enableServiceLinks: false,
            securityContext: restrictedPodSecurityContext(),
            ...pullSecrets(plan.imagePullSecrets),
            containers: [
              {
                name: gateway.name,
                image: gateway.image.reference,
                imagePullPolicy: gateway.image.pullPolicy,
                ports: [{ name: 'mcp', containerPort: gateway.port, protocol: 'TCP' }],
                env: [
                  ...plainEnv({ HOME: PATHS.home, TMPDIR: PATHS.tmp, ...gateway.env }),
                  ...tokenEnv,
                  ...secretEnv(gateway.secretEnv),
                ],
                resources: resourceRequirements(gateway.resources),
                securityContext: restrictedContainerSecurityContext(),
                volumeMounts: [
                  { name: 'tmp', mountPath: PATHS.tmp },
                  { name: 'home', mountPath: PATHS.home },
                  ...(token ? [token.mount] : []),
                ],
                ...probes(gateway.port, gateway.healthPath),
              },
            ],
            volumes: [
              { name: 'tmp', emptyDir: { sizeLimit: k8s.Quantity.fromString('1Gi') } },
              { name: 'home', emptyDir: { sizeLimit: k8s.Quantity.fromString('1Gi') } },
              ...(token ? [token.volume] : []),
            ],
          },
        },
      },
    });
    this.service = new k8s.KubeService(this, 'service', {
      metadata,
      spec: {
        type: 'ClusterIP',
        selector: { ...gateway.selector },
        ports: [
          { name: 'mcp', port: gateway.port, targetPort: k8s.IntOrString.fromString('mcp'), protocol: 'TCP' },
        ],
      },
    });
  }
}
