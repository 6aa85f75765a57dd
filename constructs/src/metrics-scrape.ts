/**
 * How Prometheus finds the agent's metrics (`spec.observability.metrics`, docs/observability.md): one headless
 * Service `<agent>-metrics` selecting every pod of the agent, with a named port per metrics endpoint (each
 * toolchain server's probe port, the broker's health port) — a pod without a port's name simply has no endpoint
 * for it. `annotations`: `prometheus.io/scrape: "true"` on that Service, for Prometheus' endpoints discovery.
 * `serviceMonitor`: a prometheus-operator ServiceMonitor naming the ports. Pure objects: the chart generator
 * builds the ServiceMonitor from `serviceMonitorObject` whatever the spec chose, behind a value.
 */
import { type AgentPlan, podToolchains, sidecarToolchains } from './plan.ts';

export const METRICS_COMPONENT = 'metrics';
export const AGENT_LABEL = 'toolyard.dev/agent';

export interface MetricsPort {
  /** The Service port's name (also the container port's name it targets). */
  readonly name: string;
  readonly port: number;
  /** The container port name. */
  readonly targetPort: string;
}

/** Every metrics endpoint of the agent: toolchain servers' probe ports, then the broker's health port. */
export function metricsPorts(plan: AgentPlan): MetricsPort[] {
  const toolchains = [...sidecarToolchains(plan), ...podToolchains(plan)].map((t) => ({
    name: `health-${t.healthPort}`,
    port: t.healthPort,
    targetPort: `health-${t.healthPort}`,
  }));
  return plan.broker.enabled
    ? [...toolchains, { name: 'broker-health', port: plan.broker.healthPort, targetPort: 'health' }]
    : toolchains;
}

export function metricsServiceName(plan: AgentPlan): string {
  return `${plan.name}-metrics`;
}

function metadata(plan: AgentPlan, name: string, annotations: Record<string, string> = {}) {
  const all = { ...plan.annotations, ...annotations };
  return {
    name,
    namespace: plan.namespace,
    labels: plan.names.labels(METRICS_COMPONENT, plan.labels),
    ...(Object.keys(all).length > 0 ? { annotations: all } : {}),
  };
}

export function metricsServiceObject(plan: AgentPlan): Record<string, unknown> {
  const scrape = plan.observability.metrics.scrape === 'annotations';
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metadata(
      plan,
      metricsServiceName(plan),
      scrape ? { 'prometheus.io/scrape': 'true', 'prometheus.io/path': '/metrics' } : {},
    ),
    spec: {
      clusterIP: 'None',
      selector: { [AGENT_LABEL]: plan.name },
      ports: metricsPorts(plan).map((p) => ({
        name: p.name,
        port: p.port,
        targetPort: p.targetPort,
        protocol: 'TCP',
      })),
    },
  };
}

export function serviceMonitorObject(plan: AgentPlan): Record<string, unknown> {
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'ServiceMonitor',
    metadata: metadata(plan, metricsServiceName(plan)),
    spec: {
      selector: { matchLabels: plan.names.selector(METRICS_COMPONENT) },
      endpoints: metricsPorts(plan).map((p) => ({ port: p.name, path: '/metrics', interval: '30s' })),
    },
  };
}

/** The scrape objects the spec asks for (none when observability is off). */
export function metricsScrapeObjects(plan: AgentPlan): Record<string, unknown>[] {
  if (!plan.observability.enabled || plan.observability.metrics.scrape === 'none') return [];
  const service = metricsServiceObject(plan);
  return plan.observability.metrics.scrape === 'serviceMonitor'
    ? [service, serviceMonitorObject(plan)]
    : [service];
}
