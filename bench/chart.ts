/**
 * `npm run bench:chart`: for each example and for a 50-toolchain spec, the time to generate the Helm chart
 * (renderAgent + generateChart) and to render it with the real `helm template` of Helm 3 and Helm 4 (one process
 * per render, so process start-up is included), next to `toolyard synth` (renderAgent +
 * toYamlDocuments) for the same spec — one run each, in one process. Also checks the rendered chart equals
 * synth (parity), so the figures are for correct output. A benchmark, not a test: it prints and exits 0.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { generateChart } from '../chart-generator/src/generate.ts';
import { checkSpecText } from '../constructs/src/check-spec-text.ts';
import { renderAgent, toYamlDocuments } from '../constructs/src/render.ts';
import type { ToolyardAgent } from '../schema/src/types.generated.ts';
import {
  HELM_MAJORS,
  helmTemplate,
  identity,
  parseManifests,
  withoutHelmLabels,
  writeChart,
} from '../test/chart/support.ts';
import { requireHelm } from '../test/helm/helm-binaries.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const EXAMPLES = ['polyglot-reviewer', 'web-infra', 'cluster-operator'];

function load(file: string, text: string): ToolyardAgent {
  const result = checkSpecText(text, file);
  if (!result.ok) throw new Error(`${file} is invalid: ${JSON.stringify(result.errors)}`);
  return result.specs[0]!.agent;
}

function fiftyToolchains(): ToolyardAgent {
  const presets = ['go', 'python', 'cargo', 'node', 'terraform', 'helm'];
  const spec = {
    apiVersion: 'toolyard.dev/v1alpha1',
    kind: 'Agent',
    metadata: { name: 'fifty', namespace: 'agents' },
    spec: {
      backends: [
        {
          name: 'claude',
          type: 'claude',
          image: { repository: 'ghcr.io/example/claude-backend', tag: '1.2.3' },
          port: 8080,
        },
      ],
      toolchains: Array.from({ length: 50 }, (_, i) => ({
        name: `tc-${String(i + 1).padStart(2, '0')}`,
        image: { repository: 'docker.io/library/debian', tag: 'bookworm-slim' },
        port: 8701 + i,
        tools: { mode: 'structured', presets: [presets[i % presets.length]] },
        network: { egress: i % 2 === 0 ? 'registries' : 'none' },
      })),
    },
  };
  return load('fifty-toolchains.yaml', stringify(spec));
}

function ms(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const cases: [string, ToolyardAgent][] = EXAMPLES.map((name) => {
  const file = `${ROOT}examples/${name}.yaml`;
  return [name, load(file, readFileSync(file, 'utf8'))];
});
cases.push(['50 toolchains', fiftyToolchains()]);

for (const major of HELM_MAJORS) requireHelm(major); // installed by `npm run helm`, before any clock starts
// Warm up module-level work (cdk8s, yaml) once so the first case is not charged for it.
generateChart(renderAgent(cases[0]![1]));

console.log(
  `bench:chart — one run each; Node ${process.version}, ${cpus().length}× ${cpus()[0]?.model ?? 'cpu'}`,
);
console.log(
  [
    'spec',
    'objects',
    'synth ms',
    'generate ms',
    'chart files',
    'template KiB',
    ...HELM_MAJORS.map((m) => `helm ${m} template ms`),
  ].join(' | '),
);
for (const [name, agent] of cases) {
  let start = process.hrtime.bigint();
  const synthResult = renderAgent(agent);
  const synthYaml = toYamlDocuments(synthResult.objects);
  const synthMs = ms(start);

  start = process.hrtime.bigint();
  const chart = generateChart(renderAgent(agent));
  const generateMs = ms(start);

  const dir = writeChart(chart);
  const renderMs: string[] = [];
  for (const major of HELM_MAJORS) {
    start = process.hrtime.bigint();
    const rendered = helmTemplate(dir, {
      helm: major,
      release: chart.name,
      namespace: synthResult.plan.namespace,
    });
    renderMs.push(ms(start).toFixed(1));
    assert.ok(rendered.ok, rendered.stderr);
    const helm = new Map(parseManifests(rendered.stdout).map((o) => [identity(o), withoutHelmLabels(o)]));
    for (const object of synthResult.objects) {
      assert.equal(
        toYamlDocuments([helm.get(identity(object))!]),
        toYamlDocuments([object]),
        `${name}: parity with Helm ${major}`,
      );
    }
  }
  const templateBytes = [...chart.files]
    .filter(([p]) => p.startsWith('templates/'))
    .reduce((n, [, c]) => n + c.length, 0);
  void synthYaml;
  console.log(
    [
      name,
      synthResult.objects.length,
      synthMs.toFixed(1),
      generateMs.toFixed(1),
      chart.files.size,
      (templateBytes / 1024).toFixed(1),
      ...renderMs,
    ].join(' | '),
  );
}
