/** Test support for charts: builds the `helm template` stand-in (cached), renders charts, compares objects. */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { type GeneratedChart, generateChart } from '../../chart-generator/src/generate.ts';
import { checkSpecText } from '../../constructs/src/check-spec-text.ts';
import { type KubeObject, type RenderResult, renderAgent } from '../../constructs/src/render.ts';
import type { ToolyardAgent } from '../../schema/src/types.generated.ts';
import { exampleFiles, REPO_ROOT } from '../support/golden.ts';

const SOURCE = join(REPO_ROOT, 'test', 'helm-template', 'main.go');

/**
 * Builds test/helm-template offline, in GOPATH mode against Debian's packaged sources
 * (golang-github-masterminds-sprig-dev, golang-github-ghodss-yaml-dev), cached by source hash under .tmp/.
 */
export function helmTemplateBinary(): string {
  const hash = createHash('sha256').update(readFileSync(SOURCE)).digest('hex').slice(0, 16);
  const dir = join(REPO_ROOT, '.tmp', 'helm-template-bin');
  const binary = join(dir, `helm-template-${hash}`);
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  const staging = `${binary}.${process.pid}`;
  const result = spawnSync('go', ['build', '-o', staging, './test/helm-template'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: {
      ...process.env,
      GO111MODULE: 'off',
      GOPATH: '/usr/share/gocode',
      GOCACHE: join(dir, 'go-cache'),
      GOFLAGS: '',
      GOPROXY: 'off',
      GOTOOLCHAIN: 'local',
    },
  });
  if (result.status !== 0) {
    throw new Error(
      `cannot build the helm template stand-in (needs apt packages golang-go golang-github-masterminds-sprig-dev golang-github-ghodss-yaml-dev):\n${result.stderr}${result.error ?? ''}`,
    );
  }
  execFileSync('mv', [staging, binary]);
  return binary;
}

export interface RenderOptions {
  readonly release: string;
  readonly namespace: string;
  readonly values?: readonly (Record<string, unknown> | string)[];
  readonly strict?: boolean;
  readonly notes?: boolean;
  /** Leave out test hooks (templates/tests/), as `helm template --skip-tests`. */
  readonly skipTests?: boolean;
  /** Extra API versions .Capabilities.APIVersions.Has reports, as `helm template --api-versions`. */
  readonly apiVersions?: readonly string[];
  /** Print the merged values as JSON instead of rendering. */
  readonly printValues?: boolean;
  /** Print the objects as a JSON array (YAML converted as Kubernetes converts it) instead of YAML. */
  readonly json?: boolean;
}

export interface RenderOutcome {
  readonly ok: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

/** Writes a generated chart to a temporary directory. */
export function writeChart(
  chart: GeneratedChart,
  root = mkdtempSync(join(tmpdir(), 'toolyard-chart-')),
): string {
  const dir = join(root, chart.name);
  for (const [path, content] of chart.files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

/** `helm template` with the stand-in; values are objects (written as JSON) or paths of values files. */
export function helmTemplate(chartDir: string, options: RenderOptions): RenderOutcome {
  const args = ['--release-name', options.release, '--namespace', options.namespace];
  if (options.strict) args.push('--strict');
  if (options.notes) args.push('--notes');
  if (options.skipTests) args.push('--skip-tests');
  if (options.printValues) args.push('--print-values');
  if (options.json) args.push('--json');
  for (const version of options.apiVersions ?? []) args.push('--api-versions', version);
  const temp = mkdtempSync(join(tmpdir(), 'toolyard-values-'));
  try {
    for (const [index, values] of (options.values ?? []).entries()) {
      if (typeof values === 'string') args.push('-f', values);
      else {
        const file = join(temp, `values-${index}.yaml`);
        writeFileSync(file, JSON.stringify(values));
        args.push('-f', file);
      }
    }
    args.push(chartDir);
    const result = spawnSync(helmTemplateBinary(), args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    return { ok: result.status === 0, stdout: result.stdout, stderr: result.stderr };
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/**
 * The objects a chart renders, as the API server would read them: the stand-in converts each document from
 * YAML to JSON with the library Kubernetes uses (YAML 1.1 booleans and all), and JSON parses fast.
 */
export function renderChart(chartDir: string, options: RenderOptions): KubeObject[] {
  const result = helmTemplate(chartDir, { ...options, json: true });
  if (!result.ok) throw new Error(`helm template failed: ${result.stderr}`);
  return (JSON.parse(result.stdout) as (KubeObject | null)[]).filter((o): o is KubeObject => o !== null);
}

/** The objects as written in the rendered YAML text, keys in the order the templates write them. */
export function renderChartText(chartDir: string, options: RenderOptions): KubeObject[] {
  const result = helmTemplate(chartDir, options);
  if (!result.ok) throw new Error(`helm template failed: ${result.stderr}`);
  return parseManifests(result.stdout);
}

export function parseManifests(text: string): KubeObject[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`invalid YAML: ${doc.errors[0]!.message}`);
      return doc.toJS() as KubeObject | null;
    })
    .filter((o): o is KubeObject => o !== null);
}

export const HELM_ONLY_LABELS = ['helm.sh/chart', 'app.kubernetes.io/version'] as const;

/** Removes Helm-only labels (and maps managed-by Helm → toolyard) in every metadata.labels of an object. */
export function withoutHelmLabels(object: KubeObject): KubeObject {
  const walk = (value: unknown, key?: string): unknown => {
    if (Array.isArray(value)) return value.map((v) => walk(v));
    if (typeof value !== 'object' || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (key === 'metadata' && k === 'labels' && typeof v === 'object' && v !== null) {
        const labels: Record<string, unknown> = {};
        for (const [lk, lv] of Object.entries(v)) {
          if ((HELM_ONLY_LABELS as readonly string[]).includes(lk)) continue;
          labels[lk] = lk === 'app.kubernetes.io/managed-by' && lv === 'Helm' ? 'toolyard' : lv;
        }
        out[k] = labels;
      } else out[k] = walk(v, k);
    }
    return out;
  };
  return walk(object) as KubeObject;
}

/** A `helm test` hook (templates/tests/): Helm runs it with `helm test`, never on install. */
export function isTestHook(object: KubeObject): boolean {
  const annotations = (object.metadata['annotations'] ?? {}) as Record<string, string>;
  return (annotations['helm.sh/hook'] ?? '').split(',').some((e) => e.trim() === 'test');
}

export function identity(object: KubeObject): string {
  return `${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}

export interface Example {
  readonly file: string;
  readonly agent: ToolyardAgent;
  readonly rendered: RenderResult;
  readonly chart: GeneratedChart;
}

export function loadSpec(file: string, text = readFileSync(file, 'utf8')): ToolyardAgent {
  const result = checkSpecText(text, file);
  if (!result.ok) throw new Error(`${file}: invalid spec`);
  return result.specs[0]!.agent;
}

export function examples(): Example[] {
  return exampleFiles().map((file) => {
    const agent = loadSpec(file, readFileSync(join(REPO_ROOT, file), 'utf8'));
    const rendered = renderAgent(agent);
    return { file, agent, rendered, chart: generateChart(rendered) };
  });
}
