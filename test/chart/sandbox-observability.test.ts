/**
 * The chart of an agent with `spec.sandboxes` and `spec.observability` (issue 33): default values render exactly
 * synth's objects — the manager's config.json with its `telemetry` block, its broker token, the broker's caller
 * and the NetworkPolicies included — and under another release and namespace the manager exports to that
 * release's broker and still parses with its own schema.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateChart } from '../../chart-generator/src/generate.ts';
import { renderAgent, toYamlDocuments } from '../../constructs/src/render.ts';
import type { ToolyardAgent } from '../../schema/src/types.generated.ts';
import { parseSandboxManagerConfig } from '../../toolchain-server/sandbox-manager/config.ts';
import { sandboxAgent } from './sandbox-specs.ts';
import { HELM_MAJORS, identity, renderChartText, withoutHelmLabels, writeChart } from './support.ts';

function observed(): ToolyardAgent {
  const agent = sandboxAgent();
  return {
    ...agent,
    spec: {
      ...agent.spec,
      observability: {
        enabled: true,
        endpoint: {
          url: 'http://otel-collector.observability.svc:4318',
          collectorPodLabels: { 'app.kubernetes.io/name': 'opentelemetry-collector' },
        },
      },
    },
  };
}

describe('the chart of an agent with sandboxes and observability', () => {
  const rendered = renderAgent(observed());
  const chart = generateChart(rendered);
  const dir = writeChart(chart);

  for (const major of HELM_MAJORS)
    it(`Helm ${major}: default values render exactly the synth objects, the manager's telemetry included`, () => {
      const options = { helm: major, release: chart.name, namespace: 'agents', skipTests: true };
      const helm = new Map(renderChartText(dir, options).map((o) => [identity(o), withoutHelmLabels(o)]));
      const synth = new Map(rendered.objects.map((o) => [identity(o), o]));
      assert.deepEqual([...helm.keys()].sort(), [...synth.keys()].sort(), 'the same objects');
      for (const [id, object] of synth)
        assert.equal(toYamlDocuments([helm.get(id)!]), toYamlDocuments([object]), `${id} differs`);
      const map = rendered.objects.find(
        (o) => o.kind === 'ConfigMap' && o.metadata.name === 'analyst-sandboxes',
      );
      assert.ok(map, 'the manager ConfigMap');
      const config = JSON.parse((map['data'] as Record<string, string>)['config.json']!);
      assert.equal(config.telemetry?.endpoint, 'http://analyst-broker.agents.svc:8480/otlp');
    });

  it("under another release and namespace, the manager exports to that release's broker", () => {
    const objects = renderChartText(dir, {
      helm: 4,
      release: 'team-a',
      namespace: 'elsewhere',
      skipTests: true,
    }).map(withoutHelmLabels);
    const map = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'team-a-analyst-sandboxes');
    assert.ok(map, objects.map((o) => o.metadata.name).join(', '));
    const config = JSON.parse((map['data'] as Record<string, string>)['config.json']!);
    const parsed = parseSandboxManagerConfig(config);
    assert.ok(parsed.ok, JSON.stringify(parsed));
    const brokers = objects.filter((o) => o.kind === 'Service' && o.metadata.name.endsWith('-broker'));
    assert.deepEqual(
      [config.telemetry?.endpoint],
      brokers.map((b) => `http://${b.metadata.name}.elsewhere.svc:8480/otlp`),
    );
  });
});
