import * as plus from 'cdk8s-plus-28';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { brokerCommand } from '../../toolchain-server/src/launch.ts';
import { CONFIG_HASH_ANNOTATION } from './agent-workload.ts';
import { brokerConfigHash, brokerConfigText } from './broker-config.ts';
import { resourceRequirements, serverProbes } from './container-parts.ts';
import { BROKER_POD_PATHS, PATHS, TOKEN_FILE_MODE } from './defaults.ts';
import type { AgentPlan } from './plan.ts';
import { pullSecrets, restrictedContainerSecurityContext, restrictedPodSecurityContext } from './security.ts';

export interface BrokerProps {
  /** The agent whose broker this is; `plan.broker.enabled` must be true. */
  readonly plan: AgentPlan;
}

/** The file name of the config in the broker's ConfigMap. */
export const BROKER_CONFIG_FILE = 'config.json';
/** The broker container's name: its audit lines and metrics say `broker`. */
export const BROKER_CONTAINER = 'broker';

/**
 * The agent's broker: the only pod of the agent with internet egress and the only holder of model keys and
 * external gateways' tokens. A ServiceAccount without a token (the broker needs no Kubernetes API), a ConfigMap
 * with its config, a Deployment running `toolyard-broker` with every caller's token and every route's
 * credential mounted as files (never in its environment), and a Service exposing only the proxy port. Its
 * NetworkPolicy is with the agent's others (network-policies.ts).
 */
export class Broker extends Construct {
  readonly serviceAccount: plus.ServiceAccount;
  readonly configMap: plus.ConfigMap;
  readonly deployment: k8s.KubeDeployment;
  readonly service: k8s.KubeService;
  readonly configJson: string;

  constructor(scope: Construct, id: string, props: BrokerProps) {
    super(scope, id);
    const { plan } = props;
    const broker = plan.broker;
    const labels = plan.names.labels(broker.component, plan.labels);
    const annotations = Object.keys(plan.annotations).length > 0 ? { annotations: plan.annotations } : {};
    const metadata = { name: broker.objectName, namespace: plan.namespace, labels, ...annotations };

    this.serviceAccount = new plus.ServiceAccount(this, 'service-account', {
      metadata,
      automountToken: false,
    });
    const configText = brokerConfigText(plan);
    this.configJson = `${configText}\n`;
    this.configMap = new plus.ConfigMap(this, 'config', {
      metadata,
      data: { [BROKER_CONFIG_FILE]: this.configJson },
    });

    const secretFiles = (
      secretName: string,
      items: { key: string; path: string }[],
    ): k8s.SecretVolumeSource => ({
      secretName,
      items: items.map((item) => ({ ...item, mode: TOKEN_FILE_MODE })),
      defaultMode: TOKEN_FILE_MODE,
    });
    const keyVolumes = broker.routes.flatMap((route) =>
      route.credential
        ? [
            {
              volume: {
                name: `key-${route.name}`,
                secret: secretFiles(route.credential.secret.name, [
                  { key: route.credential.secret.key, path: 'key' },
                ]),
              },
              mount: {
                name: `key-${route.name}`,
                mountPath: `${BROKER_POD_PATHS.keysDir}/${route.name}`,
                readOnly: true,
              },
            },
          ]
        : [],
    );
    this.deployment = new k8s.KubeDeployment(this, 'deployment', {
      metadata,
      spec: {
        replicas: broker.replicas,
        selector: { matchLabels: { ...broker.selector } },
        template: {
          metadata: {
            labels,
            annotations: { ...plan.annotations, [CONFIG_HASH_ANNOTATION]: brokerConfigHash(configText) },
          },
          spec: {
            serviceAccountName: broker.objectName,
            automountServiceAccountToken: false,
            enableServiceLinks: false,
            securityContext: restrictedPodSecurityContext(),
            ...pullSecrets(plan.imagePullSecrets),
            containers: [
              {
                name: BROKER_CONTAINER,
                image: broker.image.reference,
                imagePullPolicy: broker.image.pullPolicy,
                command: [...brokerCommand(PATHS.serverBundle), '--config', BROKER_POD_PATHS.configFile],
                ports: [
                  { name: 'proxy', containerPort: broker.port, protocol: 'TCP' },
                  { name: 'health', containerPort: broker.healthPort, protocol: 'TCP' },
                ],
                resources: resourceRequirements(broker.resources),
                securityContext: restrictedContainerSecurityContext(),
                volumeMounts: [
                  { name: 'tmp', mountPath: PATHS.tmp },
                  { name: 'config', mountPath: BROKER_POD_PATHS.configDir, readOnly: true },
                  { name: 'caller-tokens', mountPath: BROKER_POD_PATHS.callerTokensDir, readOnly: true },
                  ...keyVolumes.map((k) => k.mount),
                ],
                ...serverProbes(broker.healthPort),
              },
            ],
            volumes: [
              { name: 'tmp', emptyDir: { sizeLimit: k8s.Quantity.fromString('64Mi') } },
              { name: 'config', configMap: { name: broker.objectName } },
              {
                name: 'caller-tokens',
                secret: secretFiles(
                  broker.tokensSecret,
                  broker.callers.map((c) => ({ key: c.name, path: c.name })),
                ),
              },
              ...keyVolumes.map((k) => k.volume),
            ],
          },
        },
      },
    });
    this.service = new k8s.KubeService(this, 'service', {
      metadata,
      spec: {
        type: 'ClusterIP',
        selector: { ...broker.selector },
        ports: [
          {
            name: 'proxy',
            port: broker.port,
            targetPort: k8s.IntOrString.fromString('proxy'),
            protocol: 'TCP',
          },
        ],
      },
    });
  }
}
