/**
 * The chart repository: `/charts/index.yaml` plus one packaged chart per agent in `examples/`, made by the
 * Helm chart generator (`chart-generator/`) from the renderer's output — the same charts `toolyard chart`
 * writes, packaged deterministically with their sha256 digests in the index.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkSpecText } from '../../constructs/src/check-spec-text.ts';
import { renderAgent } from '../../constructs/src/render.ts';

export interface ChartRepositoryOptions {
  readonly repo: string;
  readonly outdir: string;
  readonly examples: readonly { readonly name: string; readonly file: string; readonly text: string }[];
}

interface ChartGenerator {
  generateChart(rendered: ReturnType<typeof renderAgent>): {
    name: string;
    version: string;
    files: ReadonlyMap<string, string>;
  };
}

interface ChartPackager {
  packageChart(chart: ReturnType<ChartGenerator['generateChart']>): {
    fileName: string;
    archive: Uint8Array;
    digest: string;
  };
  indexYaml(
    entries: readonly { chartYaml: Record<string, unknown>; fileName: string; digest: string }[],
  ): string;
}

/** Builds the chart repository; returns notes about what could not be built. */
export async function buildChartRepository(options: ChartRepositoryOptions): Promise<string[]> {
  const source = join(options.repo, 'chart-generator/src');
  if (!existsSync(join(source, 'generate.ts')) || !existsSync(join(source, 'package.ts'))) {
    return ['chart repository: chart-generator/ is not in the tree yet; /charts/ is not published'];
  }
  const generator = (await import(pathToFileURL(join(source, 'generate.ts')).href)) as ChartGenerator;
  const packager = (await import(pathToFileURL(join(source, 'package.ts')).href)) as ChartPackager;
  const { parse } = await import('yaml');
  const entries: { chartYaml: Record<string, unknown>; fileName: string; digest: string }[] = [];
  await mkdir(options.outdir, { recursive: true });
  for (const example of options.examples) {
    const checked = checkSpecText(example.text, `examples/${example.file}`);
    if (!checked.ok) throw new Error(`examples/${example.file} is invalid`);
    for (const spec of checked.specs) {
      const chart = generator.generateChart(renderAgent(spec.agent));
      const packaged = packager.packageChart(chart);
      await writeFile(join(options.outdir, packaged.fileName), packaged.archive);
      const chartYaml = parse(chart.files.get('Chart.yaml') ?? '') as Record<string, unknown>;
      entries.push({ chartYaml, fileName: packaged.fileName, digest: packaged.digest });
    }
  }
  await writeFile(join(options.outdir, 'index.yaml'), packager.indexYaml(entries));
  return [];
}
