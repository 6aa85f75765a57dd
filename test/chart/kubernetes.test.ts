/**
 * Proof 5: every object the chart renders — with the defaults, every ci/*-values.yaml and another release
 * name — passes the same Kubernetes schema and Pod Security (restricted) checks as `toolyard synth`.
 * Also parity for generated specs (varied names, digests, lengths) and for config text that looks like
 * template directives.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { generateChart } from '../../chart-generator/src/generate.ts';
import { type KubeObject, renderAgent, toYamlDocuments } from '../../constructs/src/render.ts';
import { validateKubeObject } from '../support/kubernetes-schema.ts';
import { checkRestricted, podSpecsOf } from '../support/pod-security.ts';
import { generateSpec } from '../support/spec-generator.ts';
import {
  examples,
  HELM_MAJORS,
  identity,
  isTestHook,
  loadSpec,
  renderChart,
  renderChartText,
  withoutHelmLabels,
  writeChart,
} from './support.ts';

function assertValid(objects: readonly KubeObject[], what: string): void {
  const problems: string[] = [];
  for (const object of objects) {
    problems.push(...validateKubeObject(object));
    for (const pod of podSpecsOf(object)) {
      problems.push(...checkRestricted(pod.podSpec, pod.podMetadata).map((p) => `${pod.where}: ${p}`));
    }
  }
  assert.deepEqual(problems, [], what);
}

function assertParity(objects: readonly KubeObject[], synth: readonly KubeObject[]): void {
  const helm = new Map(objects.map((o) => [identity(o), withoutHelmLabels(o)]));
  assert.deepEqual([...helm.keys()].sort(), synth.map(identity).sort());
  for (const object of synth) {
    assert.equal(toYamlDocuments([helm.get(identity(object))!]), toYamlDocuments([object]), identity(object));
  }
}

describe('rendered charts pass the Kubernetes schema and Pod Security restricted', () => {
  for (const example of examples()) {
    for (const helm of HELM_MAJORS)
      it(`${example.file}: Helm ${helm}, defaults, every ci values file and another release`, () => {
        const dir = writeChart(example.chart);
        const namespace = example.rendered.plan.namespace;
        assertValid(example.rendered.objects, 'synth itself');
        assertValid(renderChart(dir, { helm, release: example.chart.name, namespace }), 'defaults');
        assertValid(renderChart(dir, { helm, release: 'other', namespace: 'elsewhere' }), 'another release');
        for (const file of readdirSync(join(dir, 'ci'))) {
          assertValid(
            renderChart(dir, {
              helm,
              release: example.chart.name,
              namespace,
              values: [join(dir, 'ci', file)],
            }),
            file,
          );
        }
      });
  }
});

describe('parity beyond the examples', () => {
  it('generated specs (seeds 1–12): chart with defaults = synth, and valid', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const agent = generateSpec(seed);
      const rendered = renderAgent(agent);
      const chart = generateChart(rendered);
      const dir = writeChart(chart);
      const objects = renderChart(dir, { release: chart.name, namespace: rendered.plan.namespace });
      assertParity(
        renderChartText(dir, { release: chart.name, namespace: rendered.plan.namespace, skipTests: true }),
        rendered.objects,
      );
      assert.deepEqual(
        objects
          .filter((o) => !isTestHook(o))
          .map((o) => withoutHelmLabels(o))
          .sort((a, b) => identity(a).localeCompare(identity(b))),
        [...rendered.objects].sort((a, b) => identity(a).localeCompare(identity(b))),
      );
      assertValid(objects, `seed ${seed}`);
    }
  });

  it("the spec's imagePullSecrets: defaults of the chart's imagePullSecrets, rendered where synth has them", () => {
    for (const example of examples()) {
      const agent = structuredClone(example.agent);
      agent.spec.imagePullSecrets = ['regcred', 'mirror'];
      const rendered = renderAgent(agent);
      const chart = generateChart(rendered);
      const dir = writeChart(chart);
      const options = { release: chart.name, namespace: rendered.plan.namespace, skipTests: true };
      assertParity(renderChartText(dir, options), rendered.objects);
      assert.deepEqual(chart.values['imagePullSecrets'], [{ name: 'regcred' }, { name: 'mirror' }]);
    }
  });

  it('text that looks like template directives stays literal', () => {
    const agent = loadSpec(
      'tricky.yaml',
      `apiVersion: toolyard.dev/v1alpha1
kind: Agent
metadata:
  name: tricky
  namespace: agents
  labels: { team: platform }
  annotations: { note: "{{ .Release.Name }} and {{- fail \\"boom\\" }} {", other: "yes", team: "{{x}}" }
spec:
  backends:
    - name: claude
      type: claude
      image: { repository: ghcr.io/example/claude, tag: "1.0" }
      port: 8080
      model: { apiKeySecret: { name: claude-credentials, key: api-key } }
      env: { PROMPT: "{{ .Values.secret }}", BRACE: "{", ON: "on" }
  toolchains:
    - name: rust
      image: { repository: docker.io/library/rust, tag: "1.83" }
      port: 8702
      tools: { mode: exec, allowedCommands: [cargo] }
      handles: { commands: [cargo], files: ["{{*.rs}}"] }
  gateways:
    - name: kube
      image: { repository: ghcr.io/example/mcp-kubernetes, tag: "0.4.0" }
      port: 8000
      env: { TEMPLATE: "{{ include \\"x\\" . }}" }
`,
    );
    const rendered = renderAgent(agent);
    const chart = generateChart(rendered);
    const dir = writeChart(chart);
    assertParity(
      renderChartText(dir, { release: 'tricky', namespace: 'agents', skipTests: true }),
      rendered.objects,
    );
  });
});
