import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import {
  type ChartMaintainer,
  parseMaintainer,
  urlProblem,
} from '../../../chart-generator/src/chart-maintainers.ts';
import { type ChartOptions, generateChart, isSemver } from '../../../chart-generator/src/generate.ts';
import {
  type IndexEntry,
  mergeIndexYaml,
  packageChart,
  parseEpoch,
} from '../../../chart-generator/src/package.ts';
import type { Io } from '../io.ts';
import { renderSpecs } from '../render-specs.ts';
import { UsageError } from '../usage-error.ts';
import { type OutputFile, writeFilesAtomically } from '../write-files.ts';

export const chartUsage = `Usage: toolyard chart <spec|directory…> [-o DIR] [--chart-version X] [--app-version Y] [--home URL] [--source URL…] [--maintainer "Name <email> (url)"…] [--package] [--url URL]

Generates a Helm chart per Agent (a directory stands for every *.yaml/*.yml file with "kind: Agent" below
it) in DIR/<metadata.name>/ (default DIR: charts): Chart.yaml, a commented
values.yaml, values.schema.json, templates/, NOTES.txt, README.md and ci/ scenario values. With the default
values, release name = agent name and namespace = the spec's namespace, the chart renders exactly what
"toolyard synth" renders. On any invalid input nothing is written and the exit code is 1.

Options:
  -o, --output DIR       output directory (default: charts)
      --chart-version X  chart version, SemVer 2 (default: 0.1.0; "--version X" is the same option, as
                         before; "--version" alone prints toolyard's version)
      --app-version Y    appVersion (default: the chart version)
      --home URL         Chart.yaml home: the project's page (default: https://toolyard.dev)
      --source URL       a Chart.yaml source, e.g. the repository of the specs; repeat for more (default:
                         the home URL)
      --maintainer TEXT  a Chart.yaml maintainer, "Name", "Name <email>" or "Name <email> (url)"; repeat for
                         more (default: none)
      --package          also write DIR/<name>-<version>.tgz and DIR/index.yaml (a Helm repository index),
                         merged into an existing DIR/index.yaml: other charts and versions are kept, a
                         version packaged again is replaced; archives are deterministic, "created"
                         comes from SOURCE_DATE_EPOCH (default 2024-01-01T00:00:00Z)
      --url URL          base URL of the chart repository, for index.yaml's urls (default: relative)

With --package, the path of each .tgz is printed on stdout, one per line (for scripts: helm push
"$(toolyard chart agent.yaml --package)" oci://registry.example.com/charts); progress goes to stderr.`;

export async function chartCommand(argv: readonly string[], io: Io): Promise<number> {
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o', default: 'charts' },
      'chart-version': { type: 'string' },
      version: { type: 'string' },
      'app-version': { type: 'string' },
      home: { type: 'string' },
      source: { type: 'string', multiple: true },
      maintainer: { type: 'string', multiple: true },
      package: { type: 'boolean', default: false },
      url: { type: 'string', default: '' },
    },
  });
  if (positionals.length === 0) throw new UsageError('chart needs at least one spec file or directory');
  if (values['chart-version'] !== undefined && values.version !== undefined)
    throw new UsageError('--chart-version and --version are the same option: give one');
  const version = values['chart-version'] ?? values.version ?? '0.1.0';
  const flag = values.version !== undefined ? '--version' : '--chart-version';
  if (!isSemver(version)) throw new UsageError(`${flag} "${version}" is not SemVer 2 (e.g. 1.2.3)`);
  const metadata = chartMetadata(values);
  let epoch: number;
  try {
    epoch = parseEpoch(process.env['SOURCE_DATE_EPOCH']);
  } catch (error) {
    throw new UsageError(`SOURCE_DATE_EPOCH: ${(error as Error).message}`);
  }
  const rendered = await renderSpecs(positionals, io);
  if (!rendered) return 1;
  const outputs: OutputFile[] = [];
  const index: IndexEntry[] = [];
  const archives: string[] = [];
  for (const { rendered: result } of rendered) {
    const chart = generateChart(result, {
      version,
      ...(values['app-version'] ? { appVersion: values['app-version'] } : {}),
      ...metadata,
    });
    for (const [path, content] of chart.files) {
      outputs.push({ path: join(values.output, chart.name, path), content });
    }
    if (values.package) {
      const packaged = packageChart(chart, epoch);
      outputs.push({ path: join(values.output, packaged.fileName), content: packaged.archive });
      archives.push(join(values.output, packaged.fileName));
      index.push({
        chartYaml: parse(chart.files.get('Chart.yaml')!) as Record<string, unknown>,
        fileName: packaged.fileName,
        digest: packaged.digest,
      });
    }
  }
  let indexExisted = false;
  if (values.package) {
    const indexPath = join(values.output, 'index.yaml');
    let existing: string | undefined;
    try {
      existing = await readFile(indexPath, 'utf8');
      indexExisted = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    let content: string;
    try {
      content = mergeIndexYaml(existing, index, epoch, values.url);
    } catch (error) {
      io.stderr(`${indexPath}: ${(error as Error).message}`);
      io.stderr(
        'hint: --package merges into an existing Helm repository index; move the file away to start a new one',
      );
      return 1;
    }
    outputs.push({ path: indexPath, content });
  }
  await writeFilesAtomically(outputs);
  for (const { spec } of rendered) io.stderr(`wrote ${join(values.output, spec.agent.metadata.name)}/`);
  if (values.package) {
    // On stdout, alone: helm push "$(toolyard chart spec.yaml --package)" oci://… works.
    for (const archive of archives) io.stdout(archive);
    io.stderr(`${indexExisted ? 'updated' : 'wrote'} ${join(values.output, 'index.yaml')}`);
  }
  return 0;
}

/** Chart.yaml's home, sources and maintainers from the options; a bad one is a usage error naming it. */
function chartMetadata(values: {
  home?: string | undefined;
  source?: string[] | undefined;
  maintainer?: string[] | undefined;
}): Pick<ChartOptions, 'home' | 'sources' | 'maintainers'> {
  for (const [flag, url] of [
    ...(values.home !== undefined ? [['--home', values.home] as const] : []),
    ...(values.source ?? []).map((source) => ['--source', source] as const),
  ]) {
    const why = urlProblem(url);
    if (why) throw new UsageError(`${flag}: ${why}`);
  }
  const maintainers: ChartMaintainer[] = [];
  for (const text of values.maintainer ?? []) {
    const parsed = parseMaintainer(text);
    if (typeof parsed === 'string') throw new UsageError(`--maintainer: ${parsed}`);
    maintainers.push(parsed);
  }
  return {
    ...(values.home !== undefined ? { home: values.home } : {}),
    ...(values.source !== undefined ? { sources: values.source } : {}),
    ...(maintainers.length > 0 ? { maintainers } : {}),
  };
}
