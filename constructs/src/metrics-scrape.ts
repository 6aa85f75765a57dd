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

/**
 * Every metrics endpoint of the agent: toolchain servers' and the sandbox manager's probe ports, then the broker's
 * health port. Toolchains
 * in different pods may share a probe port: its named port is the same in each, so one Service port serves them
 * all. Service ports are unique by number too; the Service's number is only a label here (endpoints resolve the
 * named target port), so the broker's moves up when a toolchain already has its number.
 */
export function metricsPorts(plan: AgentPlan): MetricsPort[] {
  const numbers = [
    ...new Set([
      ...[...sidecarToolchains(plan), ...podToolchains(plan)].map((t) => t.healthPort),
      // The sandbox manager's health listener serves its /metrics too, on a port named the same way.
      ...(plan.sandboxes ? [plan.sandboxes.healthPort] : []),
    ]),
  ];
  const toolchains = numbers.map((port) => ({
    name: `health-${port}`,
    port,
    targetPort: `health-${port}`,
  }));
  if (!plan.broker.enabled) return toolchains;
  let brokerPort = plan.broker.healthPort;
  while (numbers.includes(brokerPort)) brokerPort = brokerPort >= 65535 ? 1 : brokerPort + 1;
  return [...toolchains, { name: 'broker-health', port: brokerPort, targetPort: 'health' }];
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
