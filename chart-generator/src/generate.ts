/**
 * `generateChart(rendered)`: a Helm chart derived from the renderer's own objects, helmify-style. Each object
 * becomes a template that, with the default values, release name = agent name and namespace = the spec's
 * namespace, renders back to exactly that object (plus Helm's labels). Chosen fields are lifted into values;
 * names come from the release, the namespace from `.Release.Namespace`. Pure: objects in, files out.
 */

import { serviceMonitorObject } from '../../constructs/src/metrics-scrape.ts';
import type { KubeObject, RenderResult } from '../../constructs/src/render.ts';
import { BROKER_TEMPLATE_FILE, brokerTemplates } from './broker-config-template.ts';
import { ChartBuilder } from './chart-builder.ts';
import type { ChartMaintainer } from './chart-maintainers.ts';
import { chartValueNodes } from './chart-values.ts';
import { chartDescription, chartImages, chartYaml, isSemver } from './chart-yaml.ts';
import { ciValues } from './ci-values.ts';
import { agentDashboardJson } from './dashboard.ts';
import { EXTRA_OBJECTS_TEMPLATE } from './extra-objects.ts';
import { helmTest } from './helm-test.ts';
import { helpersTpl } from './helpers-tpl.ts';
import { chartNotes } from './notes.ts';
import { chartReadme } from './readme.ts';
import { SANDBOXES_TEMPLATE_FILE, sandboxesTemplates } from './sandbox-values.ts';
import { secretSummaries } from './secret-refs.ts';
import { defaultsOf, renderValuesYaml, valuesSchema } from './values-model.ts';

export { isSemver } from './chart-yaml.ts';

export const DEFAULT_CHART_VERSION = '0.1.0';
export const DEFAULT_HOME = 'https://toolyard.dev';
export const DEFAULT_ICON = `${DEFAULT_HOME}/favicon.svg`;

export interface ChartOptions {
  /** SemVer chart version (default 0.1.0). */
  readonly version?: string;
  /** appVersion (default: the chart version). */
  readonly appVersion?: string;
  readonly home?: string;
  /** Chart.yaml icon URL (default: toolyard's logo). */
  readonly icon?: string;
  /** Chart.yaml sources (default: `[home]`). */
  readonly sources?: readonly string[];
  /** Chart.yaml maintainers (default: none). */
  readonly maintainers?: readonly ChartMaintainer[];
}

export interface GeneratedChart {
  readonly name: string;
  readonly version: string;
  readonly appVersion: string;
  /** Chart files by path relative to the chart directory, sorted. */
  readonly files: ReadonlyMap<string, string>;
  readonly values: Readonly<Record<string, unknown>>;
}

/** Generates the chart of one rendered agent. */
export function generateChart(rendered: RenderResult, options: ChartOptions = {}): GeneratedChart {
  const version = options.version ?? DEFAULT_CHART_VERSION;
  if (!isSemver(version)) throw new Error(`chart version "${version}" is not SemVer 2`);
  const appVersion = options.appVersion ?? version;
  const home = options.home ?? DEFAULT_HOME;
  const builder = new ChartBuilder(rendered);
  const plan = rendered.plan;
  const name = builder.chart;

  // Templates: one file per component and kind, objects in render order.
  const byFile = new Map<string, string[]>();
  for (const object of rendered.objects) {
    // The ServiceMonitor is a value's choice (observability.metrics.scrape), templated below.
    if (object.kind === 'ServiceMonitor') continue;
    const file = `templates/${builder.componentOf(object)}-${object.kind.toLowerCase()}.yaml`;
    const docs = byFile.get(file) ?? [];
    docs.push(builder.objectTemplate(object));
    byFile.set(file, docs);
  }
  const hasNetworkPolicies = rendered.objects.some((o) => o.kind === 'NetworkPolicy');
  const files = new Map<string, string>();
  const test = helmTest(builder);
  const secrets = secretSummaries(rendered.objects);
  for (const [file, docs] of byFile) {
    const body = docs.join('\n---\n');
    files.set(
      file,
      file.endsWith('-networkpolicy.yaml')
        ? `{{- if $.Values.networkPolicy.enabled }}\n${body}\n{{- end }}\n`
        : `${body}\n`,
    );
  }
  if (plan.observability.enabled && plan.observability.metrics.scrape !== 'none')
    files.set(
      'templates/metrics-servicemonitor.yaml',
      `{{- if eq $.Values.observability.metrics.scrape "serviceMonitor" }}\n${builder.objectTemplate(serviceMonitorObject(plan) as unknown as KubeObject)}\n{{- end }}\n`,
    );
  for (const [file, content] of test?.files ?? []) files.set(file, content);
  files.set('templates/extra-objects.yaml', EXTRA_OBJECTS_TEMPLATE);
  const nodes = chartValueNodes({
    builder,
    hasNetworkPolicies,
    secrets,
    ...(test ? { tests: test.values } : {}),
  });
  const values = defaultsOf(nodes);
  const description = chartDescription(plan);

  files.set(
    'Chart.yaml',
    chartYaml(plan, {
      name,
      version,
      appVersion,
      home,
      icon: options.icon ?? DEFAULT_ICON,
      sources: options.sources ?? [home],
      maintainers: options.maintainers ?? [],
      description,
      images: chartImages(
        rendered.objects,
        test ? [{ name: 'helm-test', image: plan.toolchainServerImage.reference }] : [],
      ),
    }),
  );
  files.set(
    'values.yaml',
    renderValuesYaml(nodes, [
      `Values of the ${name} chart, generated by toolyard from the Agent spec "${name}".`,
      "With these defaults, release name = agent name and namespace = the spec's namespace, the chart renders",
      "exactly the objects of `toolyard synth` (plus Helm's labels).",
    ]),
  );
  files.set(
    'values.schema.json',
    `${JSON.stringify(valuesSchema(nodes, `${name} chart values`, `Values of the ${name} chart (generated by toolyard).`), null, 2)}\n`,
  );
  files.set('templates/_helpers.tpl', helpersTpl(name));
  if (plan.broker.enabled) files.set(BROKER_TEMPLATE_FILE, brokerTemplates(builder));
  if (plan.sandboxes) files.set(SANDBOXES_TEMPLATE_FILE, sandboxesTemplates(builder));
  files.set('templates/NOTES.txt', chartNotes(builder, plan, secrets, test !== undefined));
  files.set(
    'README.md',
    chartReadme({ name, version, appVersion, description, namespace: plan.namespace, nodes, plan, secrets }),
  );
  files.set('.helmignore', HELMIGNORE);
  // spec.observability: the agent's Grafana dashboard, beside the templates (docs/observability.md).
  if (plan.observability.enabled) files.set(`dashboards/${name}.json`, agentDashboardJson(plan));
  for (const [file, content] of ciValues(builder, values, hasNetworkPolicies, secrets))
    files.set(file, content);

  const sorted = new Map([...files.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { name, version, appVersion, files: sorted, values };
}

const HELMIGNORE = `# Patterns to ignore when building packages.
.DS_Store
.git/
.gitignore
.hg/
.svn/
*.swp
*.bak
*.tmp
*.orig
*~
.idea/
.vscode/
`;
