/** Scenario values under `ci/`, each rendered and validated by the chart tests. */
import { stringify } from 'yaml';
import type { ChartBuilder } from './chart-builder.ts';
import { escapeLiteral } from './template-yaml.ts';

/** Scenario values under ci/, each rendered and validated in tests. */
export function ciValues(
  builder: ChartBuilder,
  values: Readonly<Record<string, unknown>>,
  hasNetworkPolicies: boolean,
): [string, string][] {
  const out: [string, string][] = [];
  const header = (text: string): string => `# ${text}\n`;
  out.push([
    'ci/default-values.yaml',
    `${header('The defaults: renders exactly what toolyard synth renders.')}{}\n`,
  ]);
  const agent = values['agent'] as Record<string, Record<string, unknown>> | undefined;
  const containerKeys = Object.keys((agent?.['containers'] as Record<string, unknown>) ?? {});
  const firstContainer = containerKeys[0];
  const overrides: Record<string, unknown> = {
    global: { imageRegistry: 'registry.internal.example' },
    imagePullSecrets: [{ name: 'registry-credentials' }],
    commonLabels: { 'cost-center': 'platform' },
    agent: {
      serviceAccount: {
        annotations: { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::111122223333:role/agent' },
      },
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
                extraEnv: [{ name: 'EXTRA', value: 'yes' }],
              },
            },
          }
        : {}),
    },
  };
  const gateways = Object.keys((values['gateways'] as Record<string, unknown>) ?? {});
  if (gateways.length > 0) overrides['gateways'] = { [gateways[0]!]: { replicas: 3 } };
  out.push([
    'ci/overrides-values.yaml',
    header(
      'Every kind of lifted value set at once: registry mirror, pull secrets, labels, scheduling, an image tag, resources and env.',
    ) + stringify(overrides, { version: '1.1', lineWidth: 0 }),
  ]);
  if (hasNetworkPolicies) {
    out.push([
      'ci/no-networkpolicy-values.yaml',
      `${header('Without NetworkPolicies (e.g. a cluster whose CNI does not enforce them).')}networkPolicy:\n  enabled: false\n`,
    ]);
  }
  out.push([
    'ci/renamed-values.yaml',
    `${header('A different full name: every object, reference and in-config URL follows it.')}fullnameOverride: ${escapeLiteral(`${builder.agent}-renamed`)}\n`,
  ]);
  return out;
}
