/**
 * Writes charts/<agent>/ for every examples/*.yaml (`npm run gen`), or with --check fails when charts/ differs
 * from what would be generated (`npm run gen:check`, CI's drift check): changed, missing or stale files.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkSpecText } from '../../constructs/src/check-spec-text.ts';
import { renderAgent } from '../../constructs/src/render.ts';
import { generateChart } from '../src/generate.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CHARTS_DIR = join(ROOT, 'charts');

/** Chart file path (relative to charts/) → content, for every example. */
export function expectedChartFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const examples = readdirSync(join(ROOT, 'examples'))
    .filter((f) => f.endsWith('.yaml'))
    .sort();
  for (const example of examples) {
    const file = join('examples', example);
    const result = checkSpecText(readFileSync(join(ROOT, file), 'utf8'), file);
    if (!result.ok) throw new Error(`${file} is invalid`);
    for (const spec of result.specs) {
      const chart = generateChart(renderAgent(spec.agent));
      for (const [path, content] of chart.files) files.set(join(chart.name, path), content);
    }
  }
  return files;
}

function filesOnDisk(dir: string): string[] {
  let out: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  for (const entry of entries) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out = out.concat(filesOnDisk(path));
    else out.push(relative(CHARTS_DIR, path));
  }
  return out;
}

/** Problems of charts/ against the expected files; empty when in sync. */
export function chartDrift(expected = expectedChartFiles()): string[] {
  const problems: string[] = [];
  for (const [path, content] of expected) {
    let actual: string | undefined;
    try {
      actual = readFileSync(join(CHARTS_DIR, path), 'utf8');
    } catch {
      problems.push(`missing: charts/${path}`);
      continue;
    }
    if (actual !== content) problems.push(`differs: charts/${path}`);
  }
  for (const path of filesOnDisk(CHARTS_DIR)) {
    if (!expected.has(path) && path !== '.gitkeep') problems.push(`stale: charts/${path}`);
  }
  return problems;
}

export function writeCharts(expected = expectedChartFiles()): void {
  for (const path of filesOnDisk(CHARTS_DIR)) if (!expected.has(path)) rmSync(join(CHARTS_DIR, path));
  for (const [path, content] of expected) {
    mkdirSync(dirname(join(CHARTS_DIR, path)), { recursive: true });
    writeFileSync(join(CHARTS_DIR, path), content);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--check')) {
    const problems = chartDrift();
    if (problems.length > 0) {
      console.error(`charts/ is out of date (run "npm run gen"):\n  ${problems.join('\n  ')}`);
      process.exit(1);
    }
    console.log('charts/ is up to date');
  } else {
    writeCharts();
    console.log('wrote charts/');
  }
}
