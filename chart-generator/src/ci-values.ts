/** Scenario values under `ci/`, each rendered, linted and validated (as Helm merges it) by the chart tests. */
import { stringify } from 'yaml';
import type { ChartBuilder } from './chart-builder.ts';
import type { SecretSummary } from './secret-refs.ts';
import { escapeLiteral } from './template-yaml.ts';

type Json = Record<string, unknown>;

export function ciValues(
  builder: ChartBuilder,
  values: Readonly<Json>,
  hasNetworkPolicies: boolean,
  secrets: readonly SecretSummary[],
): [string, string][] {
  const out: [string, string][] = [];
  const header = (text: string): string => `# ${text}\n`;
  const yaml = (value: unknown): string => stringify(value, { version: '1.1', lineWidth: 0 });
  out.push([
    'ci/default-values.yaml',
    `${header('The defaults: renders exactly what toolyard synth renders.')}{}\n`,
  ]);
  const agent = (values['agent'] ?? {}) as Json;
  const containerKeys = Object.keys((agent['containers'] as Json) ?? {});
  const firstContainer = containerKeys[0];
  const persistence = agent['persistence'] as Json | undefined;
  const overrides: Json = {
    global: {
      imageRegistry: 'registry.internal.example',
      imagePullSecrets: ['mirror-credentials'],
      parentChartSetting: { shared: true },
    },
    imagePullSecrets: [{ name: 'registry-credentials' }],
    commonLabels: { 'cost-center': 'platform' },
    ...(secrets[0] ? { secretNames: { [secrets[0].name]: `${secrets[0].name}-from-vault` } } : {}),
    agent: {
      ...('replicas' in agent ? { replicas: 2 } : {}),
      ...(persistence && 'size' in persistence
        ? { persistence: { storageClass: 'fast-ssd', size: '50Gi' } }
        : {}),
      serviceAccount: {
        annotations: { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::111122223333:role/agent' },
      },
      podSecurityContext: { fsGroupChangePolicy: 'Always', supplementalGroups: [1000] },
      extraVolumes: [{ name: 'ca-bundle', configMap: { name: 'corporate-ca' } }],
      podLabels: { team: 'agents' },
      podAnnotations: { 'example.com/scrape': 'false' },
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'agents', effect: 'NoSchedule' }],
      priorityClassName: 'agents',
      ...(firstContainer
        ? {
            containers: {
              [firstContainer]: {
                image: { tag: '9.9.9' },
                resources: { requests: { cpu: '1', memory: '2Gi' }, limits: { memory: '4Gi' } },
                securityContext: { readOnlyRootFilesystem: false },
                extraEnv: [
                  { name: 'EXTRA', value: 'yes' },
                  { name: 'HOME', value: '/home/agent' },
                ],
                extraEnvFrom: [{ configMapRef: { name: 'agent-settings' } }],
                extraVolumeMounts: [{ name: 'ca-bundle', mountPath: '/etc/ssl/corporate', readOnly: true }],
              },
            },
          }
        : {}),
    },
    extraObjects: [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: '{{ .Release.Name }}-extra', namespace: '{{ .Release.Namespace }}' },
        data: { note: 'rendered through tpl' },
      },
    ],
  };
  const toolchains = Object.keys((values['toolchains'] as Json) ?? {});
  if (toolchains.length > 0) {
    const toolchain = (values['toolchains'] as Record<string, Json>)[toolchains[0]!]!;
    const container = Object.keys((toolchain['containers'] as Json) ?? {})[0];
    overrides['toolchains'] = {
      [toolchains[0]!]: {
        serviceAccount: { annotations: { 'example.com/identity': 'none' } },
        nodeSelector: { 'example.com/pool': 'builds' },
        podLabels: { team: 'builds' },
        ...(container
          ? {
              containers: {
                [container]: {
                  resources: { requests: { cpu: '2', memory: '4Gi' }, limits: { memory: '8Gi' } },
                  extraEnv: [{ name: 'CARGO_BUILD_JOBS', value: '2' }],
                },
              },
            }
          : {}),
      },
    };
  }
  const gateways = Object.keys((values['gateways'] as Json) ?? {});
  if (gateways.length > 0) {
    overrides['gateways'] = {
      [gateways[0]!]: {
        replicas: 3,
        serviceAccount: { create: false, name: 'existing-gateway-identity' },
        securityContext: { runAsUser: 10001 },
      },
    };
  }
  out.push([
    'ci/overrides-values.yaml',
    header(
      'Every kind of lifted value set at once: registry mirror, pull secrets, Secret names, labels, scheduling, security contexts, extension points, an existing ServiceAccount, an image tag, resources and env.',
    ) + yaml(overrides),
  ]);
  if (hasNetworkPolicies) {
    out.push([
      'ci/no-networkpolicy-values.yaml',
      `${header('Without NetworkPolicies (e.g. a cluster whose CNI does not enforce them).')}networkPolicy:\n  enabled: false\n`,
    ]);
  }
  const egress = ((values['broker'] as Json | undefined)?.['egress'] ?? {}) as Record<string, Json>;
  const [firstCaller, firstEgress] = Object.entries(egress)[0] ?? [];
  if (firstCaller && firstEgress) {
    out.push([
      'ci/egress-values.yaml',
      header(
        `One container's egress by name widened: a host added to "${firstCaller}" (the broker's config.json and config hash follow; nothing else changes).`,
      ) +
        yaml({
          broker: {
            egress: {
              [firstCaller]: { hosts: [...(firstEgress['hosts'] as string[]), 'artifacts.ci.example.com'] },
            },
          },
        }),
    ]);
  }
  out.push([
    'ci/openshift-values.yaml',
    `${header("OpenShift's restricted SCC: user, group and fsGroup ids come from the namespace, not the chart.")}${yaml({ global: { compatibility: { openshift: { adaptSecurityContext: 'force' } } } })}`,
  ]);
  out.push([
    'ci/renamed-values.yaml',
    `${header('A different full name: every object, reference and in-config URL follows it.')}fullnameOverride: ${escapeLiteral(`${builder.agent}-renamed`)}\n`,
  ]);
  return out;
}
