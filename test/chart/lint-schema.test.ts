/**
 * Proofs 3 and 4: values.yaml and every ci/*-values.yaml validate against values.schema.json (ajv, draft-07),
 * typos and wrong types are rejected with their path; and every chart passes the `helm lint --strict` rules,
 * which in turn are shown to catch broken charts.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { helmLintStrict, lintChartYaml, lintRendered, lintTemplateFiles } from './helm-lint.ts';
import { examples, renderChart, writeChart } from './support.ts';

type Json = Record<string, unknown>;

function validator(schema: Json) {
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
  return ajv.compile(schema);
}

/**
 * Every object schema closes its properties and every property has a description — except `global`, which
 * is open so the chart works as a subchart (a parent's globals reach it).
 */
function assertClosed(schema: Json, path: string): void {
  const types = [schema['type']].flat();
  if (types.includes('object') && schema['properties']) {
    assert.equal(schema['additionalProperties'], path === '.global', `${path}: additionalProperties`);
    for (const [key, sub] of Object.entries(schema['properties'] as Json)) {
      assert.ok(typeof (sub as Json)['description'] === 'string', `${path}.${key}: description`);
      assertClosed(sub as Json, `${path}.${key}`);
    }
  }
}

for (const example of examples()) {
  describe(`${example.file}: values schema`, () => {
    const schema = JSON.parse(example.chart.files.get('values.schema.json')!) as Json;
    const validate = validator(schema);

    it('is draft-07, self-contained, closed and described', () => {
      assert.equal(schema['$schema'], 'http://json-schema.org/draft-07/schema#');
      assert.ok(!JSON.stringify(schema).includes('"$ref"'));
      assertClosed(schema, '');
      assert.ok(
        example.chart.files
          .get('values.yaml')!
          .startsWith('# yaml-language-server: $schema=values.schema.json\n'),
      );
    });

    it('accepts values.yaml and every ci/*-values.yaml', () => {
      const ciFiles = [...example.chart.files.keys()].filter((f) => /^ci\/.*-values\.yaml$/.test(f));
      assert.ok(ciFiles.length >= 3);
      for (const file of ['values.yaml', ...ciFiles]) {
        const values = parse(example.chart.files.get(file)!, { version: '1.1' }) ?? {};
        assert.ok(validate(values), `${file}: ${JSON.stringify(validate.errors)}`);
      }
      // The defaults are exactly what values.yaml says.
      assert.deepEqual(parse(example.chart.files.get('values.yaml')!), example.chart.values);
    });

    it('rejects a typo and a wrong type, naming the path', () => {
      const container = Object.keys((example.chart.values['agent'] as Json)['containers'] as Json)[0]!;
      assert.equal(validate({ agent: { containers: { [container]: { imgae: { tag: '1' } } } } }), false);
      assert.ok(
        validate.errors!.some(
          (e) =>
            e.instancePath === `/agent/containers/${container}` &&
            e.keyword === 'additionalProperties' &&
            e.params['additionalProperty'] === 'imgae',
        ),
        JSON.stringify(validate.errors),
      );
      assert.equal(validate({ networkPolicyy: {} }), false);
      assert.equal(validate({ agent: { containers: { [container]: { image: { tag: 1.8 } } } } }), false);
      assert.ok(
        validate.errors!.some(
          (e) => e.instancePath === `/agent/containers/${container}/image/tag` && e.keyword === 'type',
        ),
      );
      assert.equal(
        validate({ agent: { containers: { [container]: { image: { pullPolicy: 'Sometimes' } } } } }),
        false,
      );
      assert.equal(validate({ commonLabels: { a: 1 } }), false);
      assert.ok(validate.errors!.some((e) => e.instancePath === '/commonLabels/a'));
      const gateways = Object.keys((example.chart.values['gateways'] as Json | undefined) ?? {});
      if (gateways[0]) {
        assert.equal(validate({ gateways: { [gateways[0]]: { replicas: 'two' } } }), false);
        assert.ok(validate.errors!.some((e) => e.instancePath === `/gateways/${gateways[0]}/replicas`));
      }
    });
  });

  describe(`${example.file}: values follow the spec's Kubernetes rules (issue 31)`, () => {
    const schema = JSON.parse(example.chart.files.get('values.schema.json')!) as Json;
    const validate = validator(schema);
    const container = Object.keys((example.chart.values['agent'] as Json)['containers'] as Json)[0]!;
    const agent = (values: Json) => ({ agent: values });
    const cases: [string, Json, boolean][] = [
      ['a label key with two slashes', { commonLabels: { 'a/b/c': 'x' } }, false],
      ['a label value starting with "-"', { commonLabels: { team: '-x' } }, false],
      ['a label value of 64 characters', agent({ podLabels: { team: 'x'.repeat(64) } }), false],
      ['an annotation key with a space', { commonAnnotations: { 'a b': 'x' } }, false],
      [
        'a nodeSelector key with an upper-case prefix',
        agent({ nodeSelector: { 'Example.com/x': 'y' } }),
        false,
      ],
      [
        'a negative CPU request',
        agent({ containers: { [container]: { resources: { requests: { cpu: '-1' } } } } }),
        false,
      ],
      [
        'a quantity with a "B"',
        agent({ containers: { [container]: { resources: { limits: { memory: '1GiB' } } } } }),
        false,
      ],
      ['a PriorityClass with "_"', agent({ priorityClassName: 'high_prio' }), false],
      [
        'good labels and annotations',
        {
          commonLabels: { 'example.com/team': 'platform', tier: '' },
          commonAnnotations: { 'example.com/note': 'any text: {}' },
        },
        true,
      ],
      [
        'good quantities',
        agent({
          containers: {
            [container]: {
              resources: { requests: { cpu: '500m', memory: 1073741824 }, limits: { memory: '2Gi' } },
            },
          },
        }),
        true,
      ],
      ['a PriorityClass', agent({ priorityClassName: 'high-priority' }), true],
    ];
    for (const [what, values, accepted] of cases)
      it(`${accepted ? 'accepts' : 'refuses'} ${what}`, () => {
        assert.equal(validate(values), accepted, JSON.stringify(validate.errors));
      });
    const persistence = (example.chart.values['agent'] as Json)['persistence'] as Json | undefined;
    if (persistence && 'storageClass' in persistence)
      it('a storage class: a name, "" or "-", nothing else', () => {
        for (const storageClass of ['fast-ssd', '', '-'])
          assert.ok(validate(agent({ persistence: { storageClass } })), storageClass);
        assert.equal(validate(agent({ persistence: { storageClass: 'Fast_SSD' } })), false);
      });
  });

  describe(`${example.file}: helm lint --strict (Helm 3 and 4) and toolyard's chart rules`, () => {
    const dir = writeChart(example.chart);
    it('passes with the default values and with each ci/*-values.yaml', () => {
      assert.deepEqual(helmLintStrict(dir), []);
      for (const file of readdirSync(join(dir, 'ci'))) {
        assert.deepEqual(helmLintStrict(dir, [join(dir, 'ci', file)]), [], file);
      }
    });
    it('Chart.yaml carries the required fields', () => {
      const chart = parse(example.chart.files.get('Chart.yaml')!) as Json;
      for (const key of [
        'apiVersion',
        'name',
        'version',
        'appVersion',
        'kubeVersion',
        'description',
        'home',
        'icon',
        'sources',
        'keywords',
        'type',
      ]) {
        assert.ok(chart[key] !== undefined, key);
      }
      assert.equal(chart['type'], 'application');
    });
    it('Chart.yaml lists every image the chart runs (artifacthub.io/images), the test pod included', () => {
      const chart = parse(example.chart.files.get('Chart.yaml')!) as Json;
      const images = parse(String((chart['annotations'] as Json)['artifacthub.io/images'])) as Json[];
      const rendered = renderChart(dir, { release: example.chart.name, namespace: 'agents' });
      const used = new Set<string>();
      for (const o of rendered) {
        const spec =
          o.kind === 'Pod'
            ? (o['spec'] as Json)
            : (((o['spec'] as Json | undefined)?.['template'] as Json | undefined)?.['spec'] as
                | Json
                | undefined);
        for (const c of [
          ...((spec?.['initContainers'] ?? []) as Json[]),
          ...((spec?.['containers'] ?? []) as Json[]),
        ])
          used.add(String(c['image']));
      }
      assert.deepEqual(new Set(images.map((i) => i['image'])), used);
      assert.ok(images.every((i) => typeof i['name'] === 'string' && i['name'] !== ''));
      assert.equal(new Set(images.map((i) => i['name'])).size, images.length, 'names are unique');
    });
  });
}

describe('the lint rules catch broken charts', () => {
  const example = examples()[0]!;
  const copy = (): string => {
    const dir = join(mkdtempSync(join(tmpdir(), 'toolyard-lint-')), example.chart.name);
    cpSync(writeChart(example.chart), dir, { recursive: true });
    return dir;
  };
  it('Chart.yaml: bad version, numeric appVersion, wrong name, bad type', () => {
    const dir = copy();
    const chart = readFileSync(join(dir, 'Chart.yaml'), 'utf8')
      .replace(/^version: .*$/m, 'version: 1.0')
      .replace(/^appVersion: .*$/m, 'appVersion: 1.5')
      .replace(/^type: .*$/m, 'type: plugin');
    writeFileSync(join(dir, 'Chart.yaml'), chart);
    const problems = lintChartYaml(dir);
    assert.ok(problems.some((p) => p.includes('version should be of type string')));
    assert.ok(problems.some((p) => p.includes('appVersion should be of type string')));
    assert.ok(problems.some((p) => p.includes('type must be')));
    writeFileSync(join(dir, 'Chart.yaml'), chart.replace(/^name: .*$/m, 'name: other'));
    assert.ok(lintChartYaml(dir).some((p) => p.includes('match the directory')));
    writeFileSync(join(dir, 'Chart.yaml'), chart.replace(/^icon: .*$/m, 'icon: not a url'));
    assert.ok(lintChartYaml(dir).some((p) => p.includes('invalid icon URL')));
    writeFileSync(join(dir, 'Chart.yaml'), chart.replace(/^icon: .*\n/m, ''));
    assert.ok(lintChartYaml(dir).some((p) => p.includes('icon is recommended')));
  });
  it('template extensions', () => {
    const dir = copy();
    writeFileSync(join(dir, 'templates', 'extra.json'), '{}');
    assert.ok(lintTemplateFiles(dir).some((p) => p.includes('extra.json')));
  });
  it('indented document starts, invalid YAML, bad names, workloads without selectors, missing values', () => {
    assert.ok(lintRendered('a: 1\n  ---\nb: 2\n').some((p) => p.includes('indented document start')));
    assert.ok(lintRendered('a: [1\n').some((p) => p.includes('invalid YAML')));
    assert.ok(
      lintRendered('apiVersion: v1\nkind: Service\nmetadata:\n  name: 1-Bad_name\n').some((p) =>
        p.includes('DNS-1035'),
      ),
    );
    assert.ok(
      lintRendered('apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec: {}\n').some((p) =>
        p.includes('spec.selector'),
      ),
    );
    const dir = copy();
    writeFileSync(
      join(dir, 'templates', 'extra.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.nothing.here }}\n',
    );
    const problems = helmLintStrict(dir);
    for (const major of [3, 4]) {
      assert.ok(
        problems.some((p) => p.startsWith(`helm ${major} lint --strict:`) && p.includes('nil pointer')),
        `helm ${major} lint fails the chart: ${problems.join('\n')}`,
      );
    }
  });
});
