/**
 * `npm run bench:chart`: for each example and for a 50-toolchain spec, the time to generate the Helm chart
 * (renderAgent + generateChart) and to render it with the `helm template` stand-in (test/helm-template; one
 * process per render, so process start-up is included), next to `toolyard synth` (renderAgent +
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
  helmTemplate,
  helmTemplateBinary,
  identity,
  parseManifests,
  withoutHelmLabels,
  writeChart,
} from '../test/chart/support.ts';

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
          model: { apiKeySecret: { name: 'claude-credentials', key: 'api-key' } },
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

helmTemplateBinary(); // build (or reuse) the stand-in before any clock starts
// Warm up module-level work (cdk8s, yaml) once so the first case is not charged for it.
generateChart(renderAgent(cases[0]![1]));

console.log(
  `bench:chart — one run each; Node ${process.version}, ${cpus().length}× ${cpus()[0]?.model ?? 'cpu'}`,
);
console.log(
  ['spec', 'objects', 'synth ms', 'generate ms', 'chart files', 'template KiB', 'render ms (stand-in)'].join(
    ' | ',
  ),
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
  start = process.hrtime.bigint();
  const rendered = helmTemplate(dir, { release: chart.name, namespace: synthResult.plan.namespace });
  const renderMs = ms(start);
  assert.ok(rendered.ok, rendered.stderr);

  const helm = new Map(parseManifests(rendered.stdout).map((o) => [identity(o), withoutHelmLabels(o)]));
  for (const object of synthResult.objects) {
    assert.equal(
      toYamlDocuments([helm.get(identity(object))!]),
      toYamlDocuments([object]),
      `${name}: parity`,
    );
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
      renderMs.toFixed(1),
    ].join(' | '),
  );
}
