/**
 * Proof 1 (parity): for every example, the generated chart rendered by the `helm template` stand-in with
 * default values, release name = agent name and namespace = spec namespace, equals `toolyard synth`'s objects
 * byte for byte (each object as YAML), once Helm-only labels are removed — and equals them too as Kubernetes
 * reads the YAML (its YAML 1.1 library, via the stand-in's --json). The chart's test hooks
 * (templates/tests/) are left out, as `helm template --skip-tests` does; they have no synth counterpart.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toYamlDocuments } from '../../constructs/src/render.ts';
import {
  examples,
  identity,
  renderChart,
  renderChartText,
  withoutHelmLabels,
  writeChart,
} from './support.ts';

describe('chart parity with toolyard synth', () => {
  for (const example of examples()) {
    it(`${example.file}: default values render exactly the synth objects`, () => {
      const dir = writeChart(example.chart);
      const options = {
        release: example.chart.name,
        namespace: example.rendered.plan.namespace,
        skipTests: true,
      };
      const rendered = renderChartText(dir, options);
      const helm = new Map(rendered.map((o) => [identity(o), withoutHelmLabels(o)]));
      const synth = new Map(example.rendered.objects.map((o) => [identity(o), o]));
      assert.deepEqual([...helm.keys()].sort(), [...synth.keys()].sort(), 'the same objects');
      for (const [id, object] of synth) {
        assert.equal(toYamlDocuments([helm.get(id)!]), toYamlDocuments([object]), `${id} differs`);
      }
      // And read as the API server reads it (Kubernetes' YAML library, YAML 1.1): the same objects.
      const asKubernetesReadsIt = new Map(
        renderChart(dir, options).map((o) => [identity(o), withoutHelmLabels(o)]),
      );
      for (const [id, object] of synth)
        assert.deepEqual(asKubernetesReadsIt.get(id), object, `${id} as JSON`);
      // And the Helm labels are there: chart, version, managed-by Helm.
      for (const object of rendered) {
        const labels = object.metadata['labels'] as Record<string, string>;
        assert.equal(labels['app.kubernetes.io/managed-by'], 'Helm', identity(object));
        assert.equal(
          labels['helm.sh/chart'],
          `${example.chart.name}-${example.chart.version}`,
          identity(object),
        );
      }
    });
  }
});
