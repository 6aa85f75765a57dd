/**
 * The Helm chart of a rendered agent, generated in the browser by the same chart generator as
 * `toolyard chart` (chart-generator/) and packaged as `<name>-<version>.tgz` (ustar + gzip). The gzip bytes
 * come from the browser's CompressionStream, so the archive's digest may differ from the one in the site's
 * /charts/index.yaml (made with zlib) while the chart files inside are identical.
 */
import { generateChart } from '../../../chart-generator/src/generate.ts';
import { tarChart } from '../../../chart-generator/src/package.ts';
import type { RenderResult } from '../../../constructs/src/render.ts';

export interface ChartArchive {
  readonly fileName: string;
  readonly blob: Blob;
}

export async function packageChartInBrowser(rendered: RenderResult): Promise<ChartArchive> {
  const chart = generateChart(rendered);
  const tar = tarChart(chart);
  const gzipped = new Blob([tar as BlobPart]).stream().pipeThrough(new CompressionStream('gzip'));
  const blob = new Blob([await new Response(gzipped).arrayBuffer()], { type: 'application/gzip' });
  return { fileName: `${chart.name}-${chart.version}.tgz`, blob };
}
