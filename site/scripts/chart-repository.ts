/**
 * The chart repository: `/charts/index.yaml` plus one packaged chart per example, made by the Helm chart
 * generator under `chart-generator/` when it is present. Until then the site publishes no charts and says so.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export interface ChartRepositoryOptions {
  readonly repo: string;
  readonly outdir: string;
  readonly examples: readonly { readonly name: string; readonly file: string; readonly text: string }[];
}

/** Builds the chart repository; returns notes about what could not be built. */
export async function buildChartRepository(options: ChartRepositoryOptions): Promise<string[]> {
  const generator = join(options.repo, 'chart-generator');
  if (!existsSync(generator)) {
    return ['chart repository: chart-generator/ is not in the tree yet; /charts/ is not published'];
  }
  return ['chart repository: chart-generator/ exists but is not wired into the site yet'];
}
