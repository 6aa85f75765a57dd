/** Test support for charts: renders charts with the real Helm 3 and Helm 4 binaries, compares objects. */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { type GeneratedChart, generateChart } from '../../chart-generator/src/generate.ts';
import { checkSpecText } from '../../constructs/src/check-spec-text.ts';
import { type KubeObject, type RenderResult, renderAgent } from '../../constructs/src/render.ts';
import type { ToolyardAgent } from '../../schema/src/types.generated.ts';
import { hermeticHelmEnv, requireHelm } from '../helm/helm-binaries.ts';
import { exampleFiles, REPO_ROOT } from '../support/golden.ts';

export type HelmMajor = 3 | 4;

export interface RenderOptions {
  readonly release: string;
  readonly namespace: string;
  readonly values?: readonly (Record<string, unknown> | string)[];
  /** The Helm major version that renders (default `DEFAULT_HELM`). */
  readonly helm?: HelmMajor;
  /** Leave out test hooks (templates/tests/), as `helm template --skip-tests`. */
  readonly skipTests?: boolean;
  /** Extra API versions .Capabilities.APIVersions.Has reports, as `helm template --api-versions`. */
  readonly apiVersions?: readonly string[];
  /** Print the merged values as JSON instead of rendering. */
  readonly printValues?: boolean;
  /** Print the objects as a JSON array (YAML 1.1 converted as Kubernetes converts it) instead of YAML. */
  readonly json?: boolean;
  /** Skip Helm's values-schema validation, as `--skip-schema-validation`. */
  readonly skipSchemaValidation?: boolean;
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

/** The Helm major versions every chart proof runs with. */
export const HELM_MAJORS: readonly HelmMajor[] = [3, 4];
/** The version a proof uses when it names none. */
export const DEFAULT_HELM: HelmMajor = 4;

let helmHome: string | undefined;

/** Runs a real Helm binary with a HOME of this process's own (see `hermeticHelmEnv`). */
export function runHelm(major: HelmMajor, args: readonly string[], cwd?: string): RenderOutcome {
  helmHome ??= mkdtempSync(join(tmpdir(), 'toolyard-helm-home-'));
  const result = spawnSync(requireHelm(major), args, {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: hermeticHelmEnv(helmHome),
    ...(cwd ? { cwd } : {}),
  });
  if (result.error) throw result.error;
  return { ok: result.status === 0, stdout: result.stdout, stderr: result.stderr };
}

/** A template that prints the merged values, added to a copy of a chart (`printValues`). */
const PRINT_VALUES_TEMPLATE = 'templates/toolyard-print-values.yaml';

/**
 * `helm template` with a real Helm (4 unless `options.helm` says 3); values are objects (written as JSON) or
 * paths of values files. `printValues` renders the merged values Helm's own way: a copy of the chart gets one
 * more template, `{{ toJson .Values }}`, and only that template is shown. `json` converts the YAML to objects
 * as the API server reads it (YAML 1.1: unquoted on/yes/no are booleans).
 */
export function helmTemplate(chartDir: string, options: RenderOptions): RenderOutcome {
  const major = options.helm ?? DEFAULT_HELM;
  const temp = mkdtempSync(join(tmpdir(), 'toolyard-values-'));
  try {
    let dir = chartDir;
    const args = ['template', options.release];
    if (options.printValues) {
      dir = join(temp, 'chart');
      cpSync(chartDir, dir, { recursive: true });
      writeFileSync(join(dir, PRINT_VALUES_TEMPLATE), '{{ toJson .Values }}\n');
    }
    args.push(dir, '--namespace', options.namespace);
    if (options.skipTests) args.push('--skip-tests');
    if (options.skipSchemaValidation) args.push('--skip-schema-validation');
    if (options.printValues) args.push('--show-only', PRINT_VALUES_TEMPLATE);
    for (const version of options.apiVersions ?? []) args.push('--api-versions', version);
    for (const [index, values] of (options.values ?? []).entries()) {
      if (typeof values === 'string') args.push('-f', values);
      else {
        const file = join(temp, `values-${index}.yaml`);
        writeFileSync(file, JSON.stringify(values));
        args.push('-f', file);
      }
    }
    const result = runHelm(major, args);
    if (!result.ok || !(options.printValues || options.json)) return result;
    if (options.printValues) {
      const json = result.stdout
        .split('\n')
        .filter((line) => !line.startsWith('---') && !line.startsWith('#'))
        .join('\n');
      return { ...result, stdout: json };
    }
    return { ...result, stdout: JSON.stringify(parseManifests(result.stdout, '1.1')) };
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/**
 * The NOTES.txt Helm prints for an install, rendered by a client-side dry run. Helm 4 only: Helm 3's dry run
 * asks a cluster for its version first.
 */
export function helmNotes(chartDir: string, options: RenderOptions): RenderOutcome {
  const args = ['install', options.release, chartDir, '--namespace', options.namespace, '--dry-run=client'];
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
    const result = runHelm(options.helm ?? DEFAULT_HELM, args);
    const at = result.stdout.indexOf('\nNOTES:\n');
    return { ...result, stdout: at >= 0 ? result.stdout.slice(at + '\nNOTES:\n'.length) : '' };
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/**
 * The objects a chart renders, as the API server would read them: each document Helm prints, read as YAML 1.1
 * (unquoted on/yes/no are booleans), as Kubernetes' YAML library reads it.
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

export function parseManifests(text: string, version: '1.1' | '1.2' = '1.2'): KubeObject[] {
  return parseAllDocuments(text, { version })
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
  if (!result.ok)
    throw new Error(
      `${file}: invalid spec: ${result.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
    );
  return result.specs[0]!.agent;
}

export function examples(): Example[] {
  return exampleFiles().map((file) => {
    const agent = loadSpec(file, readFileSync(join(REPO_ROOT, file), 'utf8'));
    const rendered = renderAgent(agent);
    return { file, agent, rendered, chart: generateChart(rendered) };
  });
}
