import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import { generateChart, isSemver } from '../../../chart-generator/src/generate.ts';
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

export const chartUsage = `Usage: toolyard chart <spec|directory…> [-o DIR] [--chart-version X] [--app-version Y] [--package] [--url URL]

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
      --package          also write DIR/<name>-<version>.tgz and DIR/index.yaml (a Helm repository index),
                         merged into an existing DIR/index.yaml: other charts and versions are kept, a
                         version packaged again is replaced; archives are deterministic, "created"
                         comes from SOURCE_DATE_EPOCH (default 2024-01-01T00:00:00Z)
      --url URL          base URL of the chart repository, for index.yaml's urls (default: relative)`;

export async function chartCommand(argv: readonly string[], io: Io): Promise<number> {
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o', default: 'charts' },
      'chart-version': { type: 'string' },
      version: { type: 'string' },
      'app-version': { type: 'string' },
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
  let epoch: number;
  try {
    epoch = parseEpoch(process.env['SOURCE_DATE_EPOCH']);
  } catch (error) {
    throw new UsageError(`SOURCE_DATE_EPOCH: ${(error as Error).message}`);
  }
  const rendered = await renderSpecs(positionals, io);
  if (!rendered) return 1;
  const withSandboxes = rendered.filter((r) => r.rendered.plan.sandboxes);
  if (withSandboxes.length > 0) {
    for (const { rendered: result } of withSandboxes)
      io.stderr(
        `${result.plan.name}: spec.sandboxes has no chart yet: deploy it with toolyard synth (docs/sandboxes.md)`,
      );
    return 1;
  }
  const outputs: OutputFile[] = [];
  const index: IndexEntry[] = [];
  for (const { rendered: result } of rendered) {
    const chart = generateChart(result, {
      version,
      ...(values['app-version'] ? { appVersion: values['app-version'] } : {}),
    });
    for (const [path, content] of chart.files) {
      outputs.push({ path: join(values.output, chart.name, path), content });
    }
    if (values.package) {
      const packaged = packageChart(chart, epoch);
      outputs.push({ path: join(values.output, packaged.fileName), content: packaged.archive });
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
    io.stderr(`${indexExisted ? 'updated' : 'wrote'} ${join(values.output, 'index.yaml')}`);
  }
  return 0;
}
