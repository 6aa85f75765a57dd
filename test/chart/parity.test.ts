/**
 * Proof 1 (parity): for every example, the generated chart rendered by the `helm template` stand-in with
 * default values, release name = agent name and namespace = spec namespace, equals `toolyard synth`'s objects
 * byte for byte (each object as YAML), once Helm-only labels are removed. The chart's test hooks
 * (templates/tests/) are left out, as `helm template --skip-tests` does; they have no synth counterpart.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toYamlDocuments } from '../../constructs/src/render.ts';
import { examples, identity, renderChart, withoutHelmLabels, writeChart } from './support.ts';

describe('chart parity with toolyard synth', () => {
  for (const example of examples()) {
    it(`${example.file}: default values render exactly the synth objects`, () => {
      const dir = writeChart(example.chart);
      const rendered = renderChart(dir, {
        release: example.chart.name,
        namespace: example.rendered.plan.namespace,
        skipTests: true,
      });
      const helm = new Map(rendered.map((o) => [identity(o), withoutHelmLabels(o)]));
      const synth = new Map(example.rendered.objects.map((o) => [identity(o), o]));
      assert.deepEqual([...helm.keys()].sort(), [...synth.keys()].sort(), 'the same objects');
      for (const [id, object] of synth) {
        assert.equal(toYamlDocuments([helm.get(id)!]), toYamlDocuments([object]), `${id} differs`);
      }
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
