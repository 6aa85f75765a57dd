/** The values tree of a generated chart: chart-wide values, then the components' values the walk collected. */
import type { ChartBuilder } from './chart-builder.ts';
import type { SecretSummary } from './secret-refs.ts';
import { group, leaf, type ValueNode } from './values-model.ts';
import { ANNOTATIONS, EXTRA_OBJECTS, LABELS, OBJECT_NAME, PULL_SECRETS } from './values-schemas.ts';

export interface ChartValuesInput {
  readonly builder: ChartBuilder;
  readonly hasNetworkPolicies: boolean;
  readonly secrets: readonly SecretSummary[];
  /** The `tests` group, when the chart has a helm test. */
  readonly tests?: ValueNode;
}

export function chartValueNodes(input: ChartValuesInput): ValueNode[] {
  const { builder } = input;
  const plan = builder.plan;
  const nodes: ValueNode[] = [
    group(
      'global',
      'Values shared with every chart of a release (a parent chart may set more keys here).',
      [
        leaf(
          'imageRegistry',
          "Registry that replaces the registry of every image (e.g. a mirror); empty keeps each image's own.",
          { type: 'string' },
          '',
        ),
        leaf(
          'imagePullSecrets',
          'Secrets for pulling images, added to every pod before imagePullSecrets: names or {name: …}.',
          PULL_SECRETS,
          [],
        ),
        group('compatibility', 'Adaptations to particular platforms.', [
          group('openshift', 'OpenShift.', [
            leaf(
              'adaptSecurityContext',
              'Leave runAsUser, runAsGroup and fsGroup out of every security context so that OpenShift\'s restricted SCC assigns them: "auto" on clusters serving security.openshift.io/v1, "force" always, "disabled" never.',
              { type: 'string', enum: ['auto', 'force', 'disabled'] },
              'auto',
            ),
          ]),
        ]),
      ],
      { open: true },
    ),
    leaf(
      'nameOverride',
      'Replaces the chart name in names and the app.kubernetes.io/name label.',
      { type: 'string' },
      '',
    ),
    leaf(
      'fullnameOverride',
      'Replaces the full name (release name + chart name) that every object name starts with.',
      { type: 'string' },
      '',
    ),
    leaf('commonLabels', "Labels added to every object and pod (the spec's metadata.labels).", LABELS, {
      ...plan.labels,
    }),
    leaf(
      'commonAnnotations',
      "Annotations added to every object and pod (the spec's metadata.annotations).",
      ANNOTATIONS,
      { ...plan.annotations },
    ),
    leaf(
      'imagePullSecrets',
      "Secrets for pulling images, added to every pod: names or {name: …} (the spec's imagePullSecrets).",
      PULL_SECRETS,
      plan.imagePullSecrets.map((name) => ({ name })),
    ),
  ];
  if (input.secrets.length > 0) {
    nodes.push(
      group(
        'secretNames',
        'The Secrets the pods read, by the name the spec gives them: map one to the Secret of another name to use instead (e.g. one External Secrets or Vault creates). The chart never creates Secrets; README.md lists the keys each must hold.',
        input.secrets.map((secret) =>
          leaf(
            secret.name,
            `Secret "${secret.name}"${secret.keys.length > 0 ? ` (keys ${secret.keys.join(', ')})` : ''}.`,
            OBJECT_NAME,
            secret.name,
          ),
        ),
      ),
    );
  }
  if (input.hasNetworkPolicies) {
    nodes.push(
      group('networkPolicy', 'NetworkPolicies (deny by default, then exactly what each pod needs).', [
        leaf(
          'enabled',
          'Render the NetworkPolicies. false removes every NetworkPolicy: pods then have unrestricted network access.',
          { type: 'boolean' },
          true,
        ),
      ]),
    );
  }
  const observability = builder.plan.observability;
  if (observability.enabled)
    nodes.push(
      group('observability', 'Telemetry (spec.observability, docs/observability.md).', [
        leaf(
          'endpoint',
          "The collector's OTLP/HTTP base URL the broker's otlp route forwards to (default: the spec's). A parent chart's global.observability.endpoint, when set, wins: one value for a fleet of agent charts. An in-cluster collector elsewhere also needs the broker's NetworkPolicy to reach it (spec.observability.endpoint.collectorPodLabels).",
          { type: 'string', pattern: '^https?://[^?#]+$' },
          observability.endpointUrl,
        ),
        group('metrics', 'Prometheus scraping.', [
          leaf(
            'scrape',
            'serviceMonitor renders a prometheus-operator ServiceMonitor for the metrics Service; annotations and none render none (the Service keeps the annotations the spec gives it).',
            { type: 'string', enum: ['annotations', 'serviceMonitor', 'none'] },
            observability.metrics.scrape,
          ),
        ]),
      ]),
    );
  const { agent, broker, toolchains, gateways, sandboxes } = builder.componentGroups();
  if (agent) nodes.push(agent);
  if (broker) nodes.push(broker);
  if (toolchains) nodes.push(toolchains);
  if (gateways) nodes.push(gateways);
  if (sandboxes) nodes.push(sandboxes);
  if (input.tests) nodes.push(input.tests);
  nodes.push(
    leaf(
      'extraObjects',
      'Extra manifests to install with the release (YAML maps or strings), each rendered through tpl, so they may use template expressions such as {{ .Release.Namespace }}.',
      EXTRA_OBJECTS,
      [],
    ),
  );
  return nodes;
}
