/**
 * `spec.observability` planned (docs/observability.md): the broker's `otlp` route to the collector, what every
 * emitter exports to (that route), the resource attributes, sampling, which signals, and the metrics settings.
 * Planning never throws: what is wrong in the spec is reported by the checks (observability-checks.ts), and an
 * observability that cannot be rendered (no endpoint, broker off) stays disabled.
 */
import type { ObservabilitySettings } from '../../schema/src/types.generated.ts';
import type { PlannedBrokerSettings } from './broker-plan.ts';
import type { Labels } from './names.ts';
import type { PlannedObservability, PlannedPricing, PlannedRoute } from './plan-types.ts';

/** The broker route every emitter of the agent exports through. */
export const OTLP_ROUTE = 'otlp';

/** `<service>.<namespace>.svc[.cluster.local]`: a collector in the cluster. */
const SERVICE_HOST =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.svc(\.cluster\.local)?$/;

/** The collector of an in-cluster endpoint URL: its namespace and port; undefined for an external URL. */
export function inClusterCollector(url: string): { namespace: string; port: number } | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  const match = SERVICE_HOST.exec(parsed.hostname);
  if (!match) return undefined;
  return {
    namespace: match[3] as string,
    port: Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80)),
  };
}

export function planObservability(
  spec: ObservabilitySettings | undefined,
  agent: { readonly name: string; readonly namespace: string; readonly labels: Labels },
  broker: PlannedBrokerSettings,
): PlannedObservability {
  const requested = spec?.enabled === true;
  const url = spec?.endpoint?.url;
  const enabled = requested && url !== undefined && broker.enabled;
  const cluster = url ? inClusterCollector(url) : undefined;
  const collector =
    cluster && spec?.endpoint?.collectorPodLabels
      ? { ...cluster, podLabels: defined(spec.endpoint.collectorPodLabels) }
      : undefined;
  const credential = spec?.endpoint?.credential;
  const route: PlannedRoute | undefined =
    enabled && url
      ? {
          name: OTLP_ROUTE,
          kind: 'telemetry',
          owner: 'observability',
          upstream: url.replace(/\/+$/, ''),
          url: `${broker.url}/${OTLP_ROUTE}`,
          ...(credential
            ? {
                credential: {
                  secret: { name: credential.secretKeyRef.name, key: credential.secretKeyRef.key },
                  header: credential.header ?? 'authorization',
                  prefix: credential.prefix ?? 'Bearer ',
                },
              }
            : {}),
          insecureHttp: url.startsWith('http://'),
          ...(collector
            ? {
                inCluster: {
                  podLabels: collector.podLabels,
                  port: collector.port,
                  namespace: collector.namespace,
                },
              }
            : {}),
        }
      : undefined;
  const team = Object.fromEntries(
    (spec?.teamLabels ?? []).flatMap((key) => {
      const value = agent.labels[key];
      return value === undefined ? [] : [[key, value] as const];
    }),
  );
  const pricing: Record<string, PlannedPricing> = {};
  for (const [backend, p] of Object.entries(spec?.metrics?.pricing ?? {}))
    if (p)
      pricing[backend] = {
        input: p.input,
        output: p.output,
        cacheRead: p.cacheRead ?? p.input,
        cacheWrite: p.cacheWrite ?? p.input,
      };
  return {
    requested,
    enabled,
    endpointUrl: url,
    collectorPodLabelsGiven: spec?.endpoint?.collectorPodLabels !== undefined,
    teamLabels: spec?.teamLabels ?? [],
    ...(collector ? { collector } : {}),
    ...(route ? { route } : {}),
    emitterUrl: `${broker.url}/${OTLP_ROUTE}`,
    protocol: spec?.protocol ?? 'http/protobuf',
    sampleRatio: spec?.sampling?.ratio ?? 1,
    resource: {
      ...defined(spec?.resourceAttributes),
      ...team,
      'toolyard.agent': agent.name,
      'k8s.namespace.name': agent.namespace,
    },
    signals: {
      traces: spec?.export?.traces ?? true,
      metrics: spec?.export?.metrics ?? true,
      logs: spec?.export?.logs ?? false,
    },
    metrics: {
      scrape: spec?.metrics?.scrape ?? 'annotations',
      scrapeFrom: (spec?.metrics?.scrapeFrom ?? []).map((peer) => ({
        ...(peer.namespace ? { namespace: peer.namespace } : {}),
        podLabels: defined(peer.podLabels),
      })),
      pricing,
    },
  };
}

/** `OTEL_RESOURCE_ATTRIBUTES` text: `key=value` pairs, values percent-encoded as the OpenTelemetry spec says. */
export function resourceAttributesText(resource: Labels, extra: Labels = {}): string {
  return Object.entries({ ...resource, ...extra })
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join(',');
}

function defined(map: Readonly<Record<string, unknown>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map ?? {})) if (typeof v === 'string') out[k] = v;
  return out;
}
