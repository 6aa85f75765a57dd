/**
 * The observability values of a chart (docs/observability.md): the collector's URL is a value, and a parent
 * chart's `global.observability.endpoint` sets it for a fleet at once (it wins over the chart's own); the
 * broker's config follows (and its hash, so the broker rolls); `observability.metrics.scrape: serviceMonitor`
 * adds the ServiceMonitor, which the defaults (the spec's annotations) leave out.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../constructs/src/render.ts';
import { renderChart } from './support.ts';

const CHART = join(import.meta.dirname, '..', '..', 'charts', 'reviewer');
const base = { release: 'reviewer', namespace: 'agents', skipTests: true } as const;

function otlpRoute(objects: readonly KubeObject[]): { upstream: string; insecureHttp: boolean } {
  const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'reviewer-broker') as
    | (KubeObject & { data: Record<string, string> })
    | undefined;
  const config = JSON.parse(configMap?.data['config.json'] ?? '{}') as {
    routes: { name: string; upstream: string; insecureHttp: boolean }[];
  };
  const route = config.routes.find((r) => r.name === 'otlp');
  assert.ok(route);
  return { upstream: route.upstream, insecureHttp: route.insecureHttp };
}

function brokerHash(objects: readonly KubeObject[]): string {
  const deployment = objects.find(
    (o) => o.kind === 'Deployment' && o.metadata.name === 'reviewer-broker',
  ) as KubeObject & {
    spec: { template: { metadata: { annotations: Record<string, string> } } };
  };
  return deployment.spec.template.metadata.annotations['toolyard.dev/config-hash'] as string;
}

describe('observability values', () => {
  it("takes the spec's collector by default, the chart's value over it, and a fleet-wide global over both", () => {
    const defaults = renderChart(CHART, base);
    assert.deepEqual(otlpRoute(defaults), {
      upstream: 'http://otel-collector.observability.svc:4318',
      insecureHttp: true,
    });
    const own = renderChart(CHART, {
      ...base,
      values: [{ observability: { endpoint: 'https://otlp.example.com/' } }],
    });
    assert.deepEqual(otlpRoute(own), { upstream: 'https://otlp.example.com', insecureHttp: false });
    assert.notEqual(brokerHash(own), brokerHash(defaults), 'the broker rolls');
    const fleet = renderChart(CHART, {
      ...base,
      values: [
        {
          observability: { endpoint: 'https://otlp.example.com' },
          global: { observability: { endpoint: 'https://otlp.fleet.example' } },
        },
      ],
    });
    assert.deepEqual(otlpRoute(fleet), { upstream: 'https://otlp.fleet.example', insecureHttp: false });
  });

  it('adds the ServiceMonitor only with observability.metrics.scrape: serviceMonitor', () => {
    assert.ok(!renderChart(CHART, base).some((o) => o.kind === 'ServiceMonitor'));
    const monitored = renderChart(CHART, {
      ...base,
      values: [{ observability: { metrics: { scrape: 'serviceMonitor' } } }],
    });
    const monitor = monitored.find((o) => o.kind === 'ServiceMonitor') as KubeObject & {
      spec: { endpoints: { port: string }[] };
    };
    assert.ok(monitor);
    assert.deepEqual(
      monitor.spec.endpoints.map((e) => e.port),
      ['health-9701', 'health-9702', 'broker-health'],
    );
  });
});
