/**
 * Proof 1 (parity): for every example (and the generated specs with toolchains in their own pods), the
 * generated chart rendered by the real `helm template` (Helm 3 and Helm 4) with default values, release name = agent name
 * and namespace = spec namespace, equals `toolyard synth`'s objects
 * byte for byte (each object as YAML), once Helm-only labels are removed — and equals them too as Kubernetes
 * reads the YAML (YAML 1.1, as its library reads it). The chart's test hooks
 * (templates/tests/) are left out, as `helm template --skip-tests` does; they have no synth counterpart.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GeneratedChart } from '../../chart-generator/src/generate.ts';
import { generateChart } from '../../chart-generator/src/generate.ts';
import { type RenderResult, renderAgent, toYamlDocuments } from '../../constructs/src/render.ts';
import { generateSpec } from '../support/spec-generator.ts';
import {
  examples,
  HELM_MAJORS,
  identity,
  renderChart,
  renderChartText,
  withoutHelmLabels,
  writeChart,
} from './support.ts';

/** Generated specs (seeds below 200) whose toolchains run in their own pods, one per workspace kind at least. */
const POD_SEEDS = Array.from({ length: 200 }, (_, i) => i + 1).filter((seed) =>
  (generateSpec(seed).spec.toolchains ?? []).some((t) => t.placement === 'pod'),
);

describe('chart parity with toolyard synth', () => {
  const cases: { label: string; chart: GeneratedChart; rendered: RenderResult }[] = [
    ...examples().map((e) => ({ label: e.file, chart: e.chart, rendered: e.rendered })),
    ...POD_SEEDS.slice(0, 6).map((seed) => {
      const rendered = renderAgent(generateSpec(seed));
      return { label: `generated spec ${seed} (toolchain pods)`, chart: generateChart(rendered), rendered };
    }),
  ];

  it('covers toolchains in their own pods: on a new shared claim, on an existing claim, mixed with sidecars', () => {
    const kinds = new Set(
      cases
        .filter((c) => c.rendered.plan.toolchains.some((t) => t.pod))
        .map((c) => c.rendered.plan.workspace.volume.kind),
    );
    assert.deepEqual([...kinds].sort(), ['existingClaim', 'sharedClaim']);
    assert.ok(
      cases.some(
        (c) =>
          c.rendered.plan.toolchains.some((t) => t.pod) &&
          c.rendered.plan.toolchains.some((t) => !t.pod) &&
          c.rendered.plan.network.enabled,
      ),
      'a spec with both sidecars and toolchain pods',
    );
  });

  for (const example of cases)
    for (const helmMajor of HELM_MAJORS) {
      it(`${example.label}: Helm ${helmMajor}, default values render exactly the synth objects`, () => {
        const dir = writeChart(example.chart);
        const options = {
          helm: helmMajor,
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
