/**
 * What `spec.observability` needs beyond its schema (docs/observability.md): an endpoint, the broker (every
 * signal leaves through its otlp route), an external endpoint over HTTPS on a port the broker may open, an
 * in-cluster one with its collector's pod labels, pricing for backends that exist, team labels the agent has.
 */
import { closestMatch } from '../../schema/src/suggest.ts';
import type { SpecProblem } from '../../schema/src/validator.ts';
import { inClusterCollector } from './observability-plan.ts';
import type { AgentPlan } from './plan.ts';

const BASE = '/spec/observability';

export function checkObservability(plan: AgentPlan): SpecProblem[] {
  const o = plan.observability;
  const problems: SpecProblem[] = [];
  if (!o.requested) return problems;
  if (o.endpointUrl === undefined)
    problems.push({
      path: `${BASE}/endpoint`,
      message: 'observability is enabled but has no endpoint',
      hint: 'set endpoint.url: an in-cluster collector (http://otel-collector.observability.svc:4318) or an external OTLP/HTTP service (https://…)',
    });
  if (!plan.broker.enabled)
    problems.push({
      path: `${BASE}/enabled`,
      message:
        'observability needs the broker: every span, metric and log leaves the agent through its otlp route',
      hint: 'remove broker.enabled: false, or observability.enabled',
    });
  const url = o.endpointUrl;
  if (url !== undefined && URL.canParse(url)) {
    const parsed = new URL(url);
    const collector = inClusterCollector(url);
    if (!collector && parsed.protocol !== 'https:')
      problems.push({
        path: `${BASE}/endpoint/url`,
        message: `${url} is outside the cluster and not https: telemetry would cross the internet in clear text`,
        hint: 'use https://, or an in-cluster collector by its Service name (<service>.<namespace>.svc)',
      });
    const port = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
    if (!collector && !plan.broker.egressPorts.includes(port))
      problems.push({
        path: `${BASE}/endpoint/url`,
        message: `the broker may not open port ${port} to public addresses (broker.egressPorts: ${plan.broker.egressPorts.join(', ')})`,
        hint: `add ${port} to broker.egressPorts, or use the collector's port 443`,
      });
    if (collector && !o.collector && plan.network.enabled)
      problems.push({
        path: `${BASE}/endpoint/collectorPodLabels`,
        message: `${parsed.hostname} is a collector in the cluster, and the broker's NetworkPolicy must name its pods to reach it`,
        hint: 'set collectorPodLabels to the labels of the collector pods (e.g. app.kubernetes.io/name: opentelemetry-collector)',
      });
    if (!collector && o.collectorPodLabelsGiven)
      problems.push({
        path: `${BASE}/endpoint/collectorPodLabels`,
        message: 'collectorPodLabels is for an in-cluster collector (a <service>.<namespace>.svc URL) only',
        hint: "remove it: an external endpoint is reached over the broker's internet egress",
      });
  }
  const backends = plan.backends.map((b) => b.name);
  for (const name of Object.keys(o.metrics.pricing))
    if (!backends.includes(name)) {
      const guess = closestMatch(name, backends);
      problems.push({
        path: `${BASE}/metrics/pricing/${name}`,
        message: `"${name}" is not a backend of agent "${plan.name}"${guess ? ` (did you mean "${guess}"?)` : ''}`,
        hint: `backends: ${backends.join(', ')}`,
      });
    }
  o.teamLabels.forEach((key, i) => {
    if (plan.labels[key] === undefined)
      problems.push({
        path: `${BASE}/teamLabels/${i}`,
        message: `metadata.labels has no "${key}" to copy into the resource attributes`,
        hint: `add ${key} to metadata.labels, or remove it here`,
      });
  });
  return problems;
}
