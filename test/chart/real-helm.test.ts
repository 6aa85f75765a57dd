/**
 * The committed charts against the real Helm 3 and Helm 4 binaries, for what only Helm itself can prove: `helm
 * lint --strict` on every chart with its defaults and every `ci/` values file, Helm's own values-schema
 * validation refusing bad values (and taking good ones), `toolyard chart --package` archives that `helm show`,
 * `helm template` and `helm repo index` read as Helm's own, and a deliberately broken chart copy that fails
 * lint, parity and a rejection — so none of these checks can pass vacuously.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { packageChart } from '../../chart-generator/src/package.ts';
import { toYamlDocuments } from '../../constructs/src/render.ts';
import { REPO_ROOT } from '../support/golden.ts';
import { realHelmLint } from './helm-lint.ts';
import {
  examples,
  HELM_MAJORS,
  type HelmMajor,
  helmTemplate,
  identity,
  parseManifests,
  runHelm,
  withoutHelmLabels,
  writeChart,
} from './support.ts';

type Json = Record<string, unknown>;

const COMMITTED = readdirSync(join(REPO_ROOT, 'charts')).sort();

function writeValues(values: Json): string {
  const file = join(mkdtempSync(join(tmpdir(), 'toolyard-values-')), 'values.yaml');
  writeFileSync(file, JSON.stringify(values));
  return file;
}

/** Whether synth's objects and a chart's default render agree, as parity.test.ts checks them. */
function parityProblems(
  major: HelmMajor,
  dir: string,
  example: ReturnType<typeof examples>[number],
): string[] {
  const out = helmTemplate(dir, {
    helm: major,
    release: example.chart.name,
    namespace: example.rendered.plan.namespace,
    skipTests: true,
  });
  if (!out.ok) return [`helm template failed: ${out.stderr}`];
  const helm = new Map(parseManifests(out.stdout).map((o) => [identity(o), withoutHelmLabels(o)]));
  return example.rendered.objects.flatMap((object) => {
    const rendered = helm.get(identity(object));
    return rendered && toYamlDocuments([rendered]) === toYamlDocuments([object])
      ? []
      : [`${identity(object)} differs`];
  });
}

/** Values every chart must refuse, with what Helm's error must name. */
function rejections(example: ReturnType<typeof examples>[number]): { values: Json; names: RegExp }[] {
  const backend = example.rendered.plan.backends[0]!.name.replace(/-([a-z0-9])/g, (_, c: string) =>
    c.toUpperCase(),
  );
  return [
    { values: { agent: { podSecurityContex: {} } }, names: /podSecurityContex/ },
    {
      values: { agent: { containers: { [backend]: { securityContext: { privileged: true } } } } },
      names: /privileged|securityContext/,
    },
    {
      values: {
        agent: { containers: { [backend]: { securityContext: { allowPrivilegeEscalation: true } } } },
      },
      names: /allowPrivilegeEscalation|securityContext/,
    },
    { values: { agent: { persistence: { sizee: '1Gi' } } }, names: /sizee|persistence/ },
    { values: { networkPolicy: { enabled: 'yes please' } }, names: /enabled|boolean/ },
    { values: { extraObject: [] }, names: /extraObject/ },
  ];
}

describe('every committed chart passes helm lint --strict with Helm 3 and Helm 4', () => {
  it('has the examples’ charts', () => {
    assert.deepEqual(
      COMMITTED,
      examples()
        .map((e) => e.chart.name)
        .sort(),
    );
  });
  for (const name of COMMITTED) {
    const dir = join(REPO_ROOT, 'charts', name);
    const valuesFiles = readdirSync(join(dir, 'ci')).sort();
    for (const major of HELM_MAJORS) {
      it(`${name}: Helm ${major}, defaults and ${valuesFiles.join(', ')}`, () => {
        assert.deepEqual(realHelmLint(major, dir), [], 'defaults');
        for (const file of valuesFiles)
          assert.deepEqual(realHelmLint(major, dir, [join(dir, 'ci', file)]), [], file);
      });
    }
  }
});

describe("Helm's own values-schema validation", () => {
  for (const example of examples()) {
    const dir = writeChart(example.chart);
    for (const major of HELM_MAJORS) {
      it(`${example.chart.name}: Helm ${major} refuses bad values and takes the ci files`, () => {
        for (const { values, names } of rejections(example)) {
          const out = helmTemplate(dir, {
            helm: major,
            release: example.chart.name,
            namespace: example.rendered.plan.namespace,
            values: [values],
          });
          assert.ok(!out.ok, `Helm ${major} accepted ${JSON.stringify(values)}`);
          assert.match(out.stderr, /schema/i, `a schema error for ${JSON.stringify(values)}`);
          assert.match(out.stderr, names, `the error names the field for ${JSON.stringify(values)}`);
        }
        for (const file of readdirSync(join(dir, 'ci'))) {
          const out = helmTemplate(dir, {
            helm: major,
            release: example.chart.name,
            namespace: example.rendered.plan.namespace,
            values: [join(dir, 'ci', file)],
          });
          assert.ok(out.ok, `${file}: ${out.stderr}`);
        }
      });
    }
  }
});

describe('packaged charts and the repository index, read by Helm', () => {
  const repo = mkdtempSync(join(tmpdir(), 'toolyard-helm-repo-'));
  const packaged = examples().map((example) => {
    const archive = packageChart(example.chart);
    writeFileSync(join(repo, archive.fileName), archive.archive);
    return { example, archive };
  });

  for (const major of HELM_MAJORS) {
    it(`Helm ${major}: helm show chart/values and helm template read toolyard's archives as the chart directory`, () => {
      for (const { example, archive } of packaged) {
        const tgz = join(repo, archive.fileName);
        const dir = writeChart(example.chart);
        const shown = runHelm(major, ['show', 'chart', tgz]);
        assert.ok(shown.ok, shown.stderr);
        assert.deepEqual(parse(shown.stdout), parse(example.chart.files.get('Chart.yaml')!));
        const values = runHelm(major, ['show', 'values', tgz]);
        assert.ok(values.ok, values.stderr);
        assert.equal(values.stdout.trimEnd(), example.chart.files.get('values.yaml')!.trimEnd());
        const options = { helm: major, release: 'r', namespace: 'n' } as const;
        const fromArchive = helmTemplate(tgz, options);
        assert.ok(fromArchive.ok, fromArchive.stderr);
        assert.equal(fromArchive.stdout, helmTemplate(dir, options).stdout);
      }
    });

    it(`Helm ${major}: helm package of the chart directory and helm repo index agree with toolyard's index`, () => {
      const work = mkdtempSync(join(tmpdir(), 'toolyard-helm-package-'));
      const helmRepo = join(work, 'repo');
      mkdirSync(helmRepo);
      for (const { example, archive } of packaged) {
        const dir = writeChart(example.chart);
        const out = runHelm(major, ['package', dir, '--destination', helmRepo]);
        assert.ok(out.ok, out.stderr);
        assert.ok(
          readdirSync(helmRepo).includes(archive.fileName),
          `helm package names it ${archive.fileName}`,
        );
        cpSync(join(repo, archive.fileName), join(work, archive.fileName));
      }
      const indexed = runHelm(major, ['repo', 'index', work, '--url', 'https://charts.example']);
      assert.ok(indexed.ok, indexed.stderr);
      const index = parse(readFileSync(join(work, 'index.yaml'), 'utf8')) as {
        entries: Record<string, Json[]>;
      };
      for (const { example, archive } of packaged) {
        const [entry] = index.entries[example.chart.name] ?? [];
        assert.ok(entry, `${example.chart.name} is indexed`);
        assert.equal(entry['digest'], archive.digest, 'helm repo index computes the digest toolyard writes');
        assert.equal(entry['version'], example.chart.version);
        assert.deepEqual(entry['urls'], [`https://charts.example/${archive.fileName}`]);
      }
    });
  }
});

describe('the checks fail on a broken chart copy', () => {
  const example = examples().find((e) => e.chart.name === 'reviewer') ?? examples()[0]!;
  const broken = join(mkdtempSync(join(tmpdir(), 'toolyard-broken-chart-')), example.chart.name);
  cpSync(writeChart(example.chart), broken, { recursive: true });
  // A template that no longer parses, a rendered object that drifted from synth, and a schema that accepts
  // anything under `agent`.
  writeFileSync(join(broken, 'templates', 'broken.yaml'), '{{ if .Values.agent }}\n');
  const service = readdirSync(join(broken, 'templates')).find((f) => f.endsWith('-service.yaml'))!;
  const serviceText = readFileSync(join(broken, 'templates', service), 'utf8');
  const schema = JSON.parse(readFileSync(join(broken, 'values.schema.json'), 'utf8')) as {
    properties: Json;
  };
  schema.properties['agent'] = { type: 'object' };
  writeFileSync(join(broken, 'values.schema.json'), JSON.stringify(schema));

  for (const major of HELM_MAJORS) {
    it(`Helm ${major}: lint fails, parity fails, a rejection is no longer rejected`, () => {
      assert.notDeepEqual(realHelmLint(major, broken), [], 'lint');
      writeFileSync(join(broken, 'templates', 'broken.yaml'), '');
      writeFileSync(
        join(broken, 'templates', service),
        serviceText.replace(/protocol: TCP/, 'protocol: UDP'),
      );
      try {
        assert.notDeepEqual(parityProblems(major, broken, example), [], 'parity');
        const accepted = helmTemplate(broken, {
          helm: major,
          release: example.chart.name,
          namespace: example.rendered.plan.namespace,
          values: [writeValues({ agent: { podSecurityContex: {} } })],
        });
        assert.ok(accepted.ok, 'the loosened schema lets a typo through');
      } finally {
        writeFileSync(join(broken, 'templates', 'broken.yaml'), '{{ if .Values.agent }}\n');
        writeFileSync(join(broken, 'templates', service), serviceText);
      }
    });
  }

  it('and pass on the chart itself (the control)', () => {
    const dir = writeChart(example.chart);
    for (const major of HELM_MAJORS) {
      assert.deepEqual(realHelmLint(major, dir), []);
      assert.deepEqual(parityProblems(major, dir, example), []);
    }
  });
});
