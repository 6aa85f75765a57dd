/**
 * Chart lint: the real `helm lint --strict` (Helm 3 and Helm 4), then toolyard's own rules, which are stricter
 * than Helm's in places: Chart.yaml fields and types (an icon is only "recommended" by Helm; here it is
 * required, and the version must be SemVer 2 — Helm 4 warns on `0.1`-style versions that Helm 3 accepts),
 * template file extensions, values.yaml parsing, and on the rendered output (test hooks included) valid YAML,
 * no indented document starts, DNS-1123 object names by kind and workloads with selectors. Helm's `--strict`
 * turns its warnings into errors; it does not make a missing value an error (a template that reads an absent
 * value renders it empty), so a chart's own `required`/`fail` calls are what refuse missing values.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, join, relative } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { isSemver } from '../../chart-generator/src/generate.ts';
import { HELM_MAJORS, type HelmMajor, helmNotes, helmTemplate, runHelm } from './support.ts';

type Json = Record<string, unknown>;

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

function isUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

export function lintChartYaml(chartDir: string): string[] {
  const problems: string[] = [];
  let chart: Json;
  try {
    chart = parse(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8'), { version: '1.1' }) as Json;
  } catch (error) {
    return [`Chart.yaml: unable to parse: ${(error as Error).message}`];
  }
  if (typeof chart !== 'object' || chart === null) return ['Chart.yaml: not a map'];
  if (chart['apiVersion'] !== 'v2') problems.push('Chart.yaml: apiVersion must be v2');
  if (typeof chart['name'] !== 'string' || chart['name'] === '')
    problems.push('Chart.yaml: name is required');
  else if (chart['name'] !== basename(chartDir))
    problems.push('Chart.yaml: chart name must match the directory name');
  else if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(chart['name']))
    problems.push('Chart.yaml: name is not a DNS label');
  if (typeof chart['version'] !== 'string') problems.push('Chart.yaml: version should be of type string');
  else if (!isSemver(chart['version']))
    problems.push(`Chart.yaml: version "${chart['version']}" is not SemVer 2`);
  if (chart['appVersion'] !== undefined && typeof chart['appVersion'] !== 'string') {
    problems.push('Chart.yaml: appVersion should be of type string');
  }
  if (typeof chart['description'] !== 'string' || chart['description'] === '')
    problems.push('Chart.yaml: description');
  if (chart['type'] !== undefined && !['application', 'library'].includes(String(chart['type']))) {
    problems.push('Chart.yaml: type must be application or library');
  }
  if (
    chart['kubeVersion'] !== undefined &&
    !/^(\s*(>=|<=|>|<|=|!=|~|\^)?\s*v?\d+(\.\d+){0,2}(-[0-9A-Za-z.-]+)?\s*,?)+$/.test(
      String(chart['kubeVersion']),
    )
  ) {
    problems.push('Chart.yaml: kubeVersion is not a version constraint');
  }
  if (chart['home'] !== undefined && !isUrl(chart['home'])) problems.push('Chart.yaml: home must be a URL');
  if (chart['icon'] === undefined) problems.push('Chart.yaml: icon is recommended');
  else if (!isUrl(chart['icon'])) problems.push('Chart.yaml: invalid icon URL');
  const annotations = chart['annotations'];
  if (
    annotations !== undefined &&
    (typeof annotations !== 'object' ||
      annotations === null ||
      !Object.values(annotations).every((v) => typeof v === 'string'))
  ) {
    problems.push('Chart.yaml: annotations must map names to strings');
  }
  const sources = chart['sources'];
  if (sources !== undefined && (!Array.isArray(sources) || !sources.every(isUrl))) {
    problems.push('Chart.yaml: sources must be URLs');
  }
  const keywords = chart['keywords'];
  if (keywords !== undefined && (!Array.isArray(keywords) || !keywords.every((k) => typeof k === 'string'))) {
    problems.push('Chart.yaml: keywords must be strings');
  }
  return problems;
}

export function lintTemplateFiles(chartDir: string): string[] {
  const problems: string[] = [];
  for (const file of files(join(chartDir, 'templates'))) {
    if (!['.yaml', '.yml', '.tpl', '.txt'].includes(extname(file))) {
      problems.push(`${relative(chartDir, file)}: file extension not allowed (.yaml, .yml, .tpl, .txt)`);
    }
  }
  try {
    const values = parse(readFileSync(join(chartDir, 'values.yaml'), 'utf8'), { version: '1.1' });
    if (typeof values !== 'object' || values === null || Array.isArray(values))
      problems.push('values.yaml: not a map');
  } catch (error) {
    problems.push(`values.yaml: unable to parse: ${(error as Error).message}`);
  }
  return problems;
}

function nameRule(kind: string): { re: RegExp; max: number; what: string } | 'path-segment' {
  if (kind === 'Service') return { re: DNS1035_LABEL, max: 63, what: 'DNS-1035 label' };
  if (kind === 'Namespace') return { re: DNS1123_LABEL, max: 63, what: 'DNS-1123 label' };
  if (['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'].includes(kind)) return 'path-segment';
  return { re: DNS1123_SUBDOMAIN, max: 253, what: 'DNS-1123 subdomain' };
}

/** The rendered-output rules, on `helm template` output. */
export function lintRendered(output: string): string[] {
  const problems: string[] = [];
  const lines = output.split('\n');
  for (const [i, line] of lines.entries()) {
    if (/^\s+---(\s|$)/.test(line)) problems.push(`line ${i + 1}: indented document start`);
  }
  for (const doc of parseAllDocuments(output)) {
    if (doc.errors.length > 0) {
      problems.push(`invalid YAML: ${doc.errors[0]!.message}`);
      continue;
    }
    const object = doc.toJS() as Json | null;
    if (object === null) continue;
    const kind = String(object['kind']);
    const metadata = (object['metadata'] ?? {}) as Json;
    const name = metadata['name'];
    const id = `${kind}/${String(name)}`;
    if (typeof object['apiVersion'] !== 'string' || typeof object['kind'] !== 'string') {
      problems.push(`${id}: apiVersion and kind are required`);
    }
    if (typeof name !== 'string' || name === '') problems.push(`${id}: metadata.name is required`);
    else {
      const rule = nameRule(kind);
      if (rule === 'path-segment') {
        if (name === '.' || name === '..' || /[/%]/.test(name))
          problems.push(`${id}: not a valid path segment name`);
      } else if (!rule.re.test(name) || name.length > rule.max) {
        problems.push(`${id}: metadata.name "${name}" is not a valid ${rule.what}`);
      }
    }
    if (['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet'].includes(kind)) {
      const selector = ((object['spec'] ?? {}) as Json)['selector'] as Json | undefined;
      if (
        !selector ||
        (selector['matchLabels'] === undefined && selector['matchExpressions'] === undefined)
      ) {
        problems.push(`${id}: a ${kind} needs spec.selector`);
      }
    }
    for (const [key, value] of Object.entries((metadata['labels'] ?? {}) as Json)) {
      if (typeof value !== 'string') problems.push(`${id}: label ${key} is not a string`);
    }
  }
  return problems;
}

/** `helm lint --strict` with one real Helm: its findings, empty when it passes. */
export function realHelmLint(
  major: HelmMajor,
  chartDir: string,
  valuesFiles: readonly string[] = [],
): string[] {
  const args = ['lint', '--strict', chartDir, ...valuesFiles.flatMap((file) => ['-f', file])];
  const result = runHelm(major, args);
  if (result.ok) return [];
  const findings = `${result.stdout}\n${result.stderr}`
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('==> Linting'));
  return [`helm ${major} lint --strict: ${findings.join(' | ')}`];
}

/**
 * Every problem with one chart and values files: `helm lint --strict` with Helm 3 and Helm 4, toolyard's own
 * Chart.yaml and template-file rules, the rendered output's rules with both, and the NOTES an install prints;
 * empty when clean.
 */
export function helmLintStrict(chartDir: string, valuesFiles: readonly string[] = []): string[] {
  const problems = [
    ...HELM_MAJORS.flatMap((major) => realHelmLint(major, chartDir, valuesFiles)),
    ...lintChartYaml(chartDir),
    ...lintTemplateFiles(chartDir),
  ];
  const chart = parse(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8')) as Json;
  for (const major of HELM_MAJORS) {
    const rendered = helmTemplate(chartDir, {
      helm: major,
      release: 'test-release',
      namespace: 'test-namespace',
      values: valuesFiles,
    });
    if (!rendered.ok) problems.push(`helm ${major} template: ${rendered.stderr.trim()}`);
    else problems.push(...lintRendered(rendered.stdout));
  }
  // `helm lint` renders NOTES.txt too; Helm 4 also prints it for a client-side dry run of an install (Helm 3's
  // dry run asks the cluster for its version first, so it cannot run here).
  const notes = helmNotes(chartDir, {
    helm: 4,
    release: String(chart['name']),
    namespace: 'default',
    values: valuesFiles,
  });
  if (!notes.ok) problems.push(`helm 4 NOTES.txt: ${notes.stderr.trim()}`);
  else if (notes.stdout.trim() === '') problems.push('helm 4 NOTES.txt: rendered empty');
  return problems;
}
