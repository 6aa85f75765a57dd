/**
 * The charts the "install anywhere" proofs run on — every example and the generated specs — with what those
 * proofs need: the chart on disk, its defaults, a schema validator of values as Helm merges them, renders
 * through the real Helm, and accessors for pods and containers in rendered objects.
 */
import assert from 'node:assert/strict';
import { Ajv, type ErrorObject } from 'ajv';
import { parse } from 'yaml';
import { type GeneratedChart, generateChart } from '../../chart-generator/src/generate.ts';
import { type KubeObject, type RenderResult, renderAgent } from '../../constructs/src/render.ts';

export { valuesKey } from '../../chart-generator/src/values-refs.ts';

import { generateSpec } from '../support/spec-generator.ts';
import { helmValues } from './helm-values.ts';
import { examples, type RenderOptions, renderChart, writeChart } from './support.ts';

export type Json = Record<string, unknown>;

export interface ChartTarget {
  readonly label: string;
  readonly rendered: RenderResult;
  readonly chart: GeneratedChart;
  readonly dir: string;
  readonly defaults: Json;
  /** Validates values the user gives (files in `-f` order) as Helm does: merged with the defaults first. */
  validate(...files: Json[]): readonly ErrorObject[];
  render(values?: Json, options?: Partial<RenderOptions>): KubeObject[];
}

export const GENERATED_SEEDS = Array.from({ length: 12 }, (_, i) => i + 1);

function target(label: string, rendered: RenderResult, chart: GeneratedChart): ChartTarget {
  const dir = writeChart(chart);
  const defaults = parse(chart.files.get('values.yaml')!, { version: '1.1' }) as Json;
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
  const schema = ajv.compile(JSON.parse(chart.files.get('values.schema.json')!) as Json);
  const release = chart.name;
  const namespace = rendered.plan.namespace;
  return {
    label,
    rendered,
    chart,
    dir,
    defaults,
    validate(...files) {
      return schema(helmValues(defaults, ...files)) ? [] : [...(schema.errors ?? [])];
    },
    render(values = {}, options = {}) {
      return renderChart(dir, { release, namespace, values: [values], ...options });
    },
  };
}

/** Every example's chart and the charts of generated specs 1–12. */
export function chartTargets(): ChartTarget[] {
  return [
    ...examples().map((e) => target(e.file, e.rendered, e.chart)),
    ...GENERATED_SEEDS.map((seed) => {
      const rendered = renderAgent(generateSpec(seed));
      return target(`generated spec ${seed} (${rendered.plan.name})`, rendered, generateChart(rendered));
    }),
  ];
}

export function assertValid(t: ChartTarget, ...files: Json[]): void {
  assert.deepEqual(
    t.validate(...files).map((e) => `${e.instancePath} ${e.message}`),
    [],
    'the merged values validate against values.schema.json',
  );
}

/** The schema errors of values Helm would refuse; fails when the schema accepts them. */
export function assertRejected(t: ChartTarget, files: Json[], path: string): void {
  const errors = t.validate(...files);
  assert.ok(errors.length > 0, `schema accepts ${JSON.stringify(files)}`);
  assert.ok(
    errors.some((e) => e.instancePath.startsWith(path)),
    `no error at ${path}: ${JSON.stringify(errors.map((e) => e.instancePath))}`,
  );
}

export interface PodOf {
  readonly object: KubeObject;
  readonly spec: Json;
  readonly containers: Json[];
  readonly initContainers: Json[];
}

/** The pod of a component's workload (agent, gateway-<name>) or of a test Pod. */
export function podOf(objects: readonly KubeObject[], component: string): PodOf {
  const object = objects.find(
    (o) =>
      ['Deployment', 'StatefulSet', 'Pod'].includes(o.kind) &&
      (o.metadata['labels'] as Json)['app.kubernetes.io/component'] === component,
  );
  assert.ok(object, `no workload of ${component}`);
  const spec =
    object.kind === 'Pod'
      ? (object['spec'] as Json)
      : (((object['spec'] as Json)['template'] as Json)['spec'] as Json);
  return {
    object,
    spec,
    containers: (spec['containers'] ?? []) as Json[],
    initContainers: (spec['initContainers'] ?? []) as Json[],
  };
}

export function byKind(objects: readonly KubeObject[], kind: string): KubeObject[] {
  return objects.filter((o) => o.kind === kind);
}
