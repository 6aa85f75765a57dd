/**
 * `npm run bench:preview`: the playground in Chromium, measured as a person would feel it.
 * - keystroke → paint: for each example and a 50-toolchain spec, real key presses (Playwright's keyboard) into
 *   a comment line of the spec, each timed in the page from its `keydown` to the first frame painted after the
 *   playground put the new output in the DOM (a task queued from the next `requestAnimationFrame` runs after
 *   that paint); p50/p95, plus the validation + render part alone;
 * - the playground's JavaScript, gzip per file as served: what the page loads at once (the entry and the
 *   chunks it imports) and in total (with the chart generator, loaded on the first chart download);
 * - time to interactive: navigation start → editor ready with the first render on screen (median of runs).
 * Writes the figures to docs/benchmarks.md under "## preview" (replacing only that section).
 * Needs a built site (`npm run site:build`) and /usr/bin/chromium.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { parse, stringify } from 'yaml';
import { bundleForBrowser } from '../site/scripts/bundle-playground.ts';
import {
  CHROMIUM,
  ensureSiteBuilt,
  guardContext,
  launchChromium,
  REPO,
  SITE_DIST,
  serveStatic,
} from '../test/site/support.ts';

const EDITS = Number(process.env['BENCH_EDITS'] ?? 60);
const TTI_RUNS = 5;

function percentile(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

/** polyglot-reviewer with 50 toolchains, ports 8701…8750. */
function fiftyToolchainSpec(): string {
  const base = parse(readFileSync(join(REPO, 'examples/polyglot-reviewer.yaml'), 'utf8')) as {
    metadata: { name: string };
    spec: { toolchains: Record<string, unknown>[] };
  };
  const template = base.spec.toolchains[1]!;
  base.metadata.name = 'fifty';
  // Its acknowledgement names the rust toolchain, which the fifty toolchains replace.
  delete (base.spec as Record<string, unknown>)['acknowledgedWarnings'];
  base.spec.toolchains = Array.from({ length: 50 }, (_, i) => ({
    ...template,
    name: `tc-${String(i).padStart(2, '0')}`,
    port: 8701 + i,
  }));
  return stringify(base, { lineWidth: 0 });
}

if (!existsSync(CHROMIUM)) {
  console.error(`bench:preview needs ${CHROMIUM} (apt-get install chromium)`);
  process.exit(1);
}
await ensureSiteBuilt();
// Other work on the machine slows the browser down: the figures say how busy it was.
const loadBefore = loadavg()[0]!;
const server = await serveStatic();
const context = await launchChromium(mkdtempSync(join(tmpdir(), 'toolyard-bench-')));
const guard = await guardContext(context);

const specs: [string, string][] = [];
for (const file of ['polyglot-reviewer', 'web-infra', 'cluster-operator']) {
  specs.push([file, readFileSync(join(REPO, 'examples', `${file}.yaml`), 'utf8')]);
}
specs.push(['50 toolchains', fiftyToolchainSpec()]);

const page = await context.newPage();
await page.goto(`${server.origin}/playground/`);
await page.locator('toolyard-playground[data-ready="true"]').waitFor();

const rows: { name: string; objects: number; total: number[]; render: number[] }[] = [];
await page.evaluate(() => {
  const samples: { total: number; render: number }[] = [];
  (window as unknown as { __samples: typeof samples }).__samples = samples;
  let pressed: number | undefined;
  document.addEventListener(
    'keydown',
    () => {
      pressed = performance.now();
    },
    true,
  );
  document.querySelector('toolyard-playground')!.addEventListener('toolyard:rendered', (event) => {
    if (pressed === undefined) return;
    const start = pressed;
    pressed = undefined;
    const render = (event as CustomEvent<{ renderMs: number }>).detail.renderMs;
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => samples.push({ total: performance.now() - start, render });
      channel.port2.postMessage(null);
    });
  });
});
for (const [name, text] of specs) {
  // Typing into the first image tag: every keystroke changes the workload (and its config hash), so each is a
  // full validation, render and update of the output shown.
  await page.evaluate(async (spec) => {
    type Playground = HTMLElement & {
      editor: { dispatch(tr: { selection: { anchor: number } }): void; focus(): void };
      setSpecText(text: string): void;
    };
    const element = document.querySelector('toolyard-playground') as Playground;
    const rendered = new Promise((resolve) =>
      element.addEventListener('toolyard:rendered', resolve, { once: true }),
    );
    element.setSpecText(spec);
    await rendered;
    const tag = /tag: "?[\w.-]+/.exec(spec)!;
    element.editor.dispatch({ selection: { anchor: tag.index + tag[0].length } });
    element.editor.focus();
    (window as unknown as { __samples: unknown[] }).__samples.length = 0;
  }, text);
  for (let i = 0; i < EDITS; i++) {
    await page.keyboard.press(String(i % 10));
    await page.waitForFunction(
      (count) => (window as unknown as { __samples: unknown[] }).__samples.length >= count,
      i + 1,
    );
  }
  const samples = await page.evaluate(
    () => (window as unknown as { __samples: { total: number; render: number }[] }).__samples,
  );
  const objects = await page.evaluate(() =>
    Number(/Rendered (\d+) objects/.exec(document.querySelector('.ty-status')?.textContent ?? '')?.[1] ?? 0),
  );
  rows.push({
    name,
    objects,
    total: samples.map((s) => s.total).sort((a, b) => a - b),
    render: samples.map((s) => s.render).sort((a, b) => a - b),
  });
}
await page.close();

const tti: number[] = [];
for (let run = 0; run < TTI_RUNS; run++) {
  const fresh = await context.newPage();
  await fresh.addInitScript(() => {
    document.addEventListener('toolyard:ready', () => {
      (window as unknown as { __ready: number }).__ready = performance.now();
    });
  });
  await fresh.goto(`${server.origin}/playground/?run=${run}`);
  await fresh.waitForFunction(() => (window as unknown as { __ready?: number }).__ready !== undefined);
  tti.push(await fresh.evaluate(() => (window as unknown as { __ready: number }).__ready));
  await fresh.close();
}
tti.sort((a, b) => a - b);

await context.close();
await server.close();
if (guard.consoleErrors.length > 0 || guard.offHostRequests.length > 0) {
  console.error('the playground misbehaved during the bench:', guard);
  process.exit(1);
}

/** The playground's JavaScript as served: gzip per file; initial = the entry and what it imports statically. */
function playgroundJs(): { initialGzip: number; totalGzip: number; files: string[] } {
  const meta = JSON.parse(
    readFileSync(join(REPO, 'site/src/generated/playground-metafile.json'), 'utf8'),
  ) as {
    outputs: Record<string, { entryPoint?: string; imports: { path: string; kind: string }[] }>;
  };
  const served = (output: string) => join(SITE_DIST, 'playground', output.split('/').pop()!);
  const gzip = (output: string) => gzipSync(readFileSync(served(output)), { level: 9 }).length;
  const outputs = Object.keys(meta.outputs).filter((o) => o.endsWith('.js'));
  const entry = outputs.find((o) => meta.outputs[o]!.entryPoint?.endsWith('playground/main.ts'))!;
  const initial = [
    entry,
    ...meta.outputs[entry]!.imports.filter((i) => i.kind === 'import-statement').map((i) => i.path),
  ];
  return {
    initialGzip: initial.reduce((n, o) => n + gzip(o), 0),
    totalGzip: outputs.reduce((n, o) => n + gzip(o), 0),
    files: outputs.map((o) => `${o.split('/').pop()} ${(gzip(o) / 1024).toFixed(0)} KiB`),
  };
}
const js = playgroundJs();
// The renderer alone (what preview.ts pulls in, without the editor and the UI), bundled the same way.
const rendererDir = mkdtempSync(join(tmpdir(), 'toolyard-renderer-bundle-'));
await bundleForBrowser({
  entryPoints: { renderer: join(REPO, 'site/src/playground/preview.ts') },
  outdir: rendererDir,
});
const rendererGzip = readdirSync(rendererDir)
  .filter((f) => f.endsWith('.js'))
  .reduce((n, f) => n + gzipSync(readFileSync(join(rendererDir, f)), { level: 9 }).length, 0);
rmSync(rendererDir, { recursive: true, force: true });
const kib = (n: number) => (n / 1024).toFixed(0);

/** Minified bytes per package in the playground bundle, largest first. */
function bundleComposition(): string {
  const metaPath = join(REPO, 'site/src/generated/playground-metafile.json');
  if (!existsSync(metaPath)) return '';
  const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
  };
  const byPackage = new Map<string, number>();
  for (const output of Object.values(meta.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
      const key = match ? match[1]! : `${input.split('/').slice(0, 2).join('/')} (ours)`;
      byPackage.set(key, (byPackage.get(key) ?? 0) + bytesInOutput);
    }
  }
  return [...byPackage.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([name, bytes]) => `${name} ${kib(bytes)} KiB`)
    .join(', ');
}
const ms = (n: number) => n.toFixed(1);

const table = [
  '| spec | objects | keystroke → paint p50 ms | p95 ms | render only p50 ms | p95 ms |',
  '| --- | ---: | ---: | ---: | ---: | ---: |',
  ...rows.map(
    (r) =>
      `| ${r.name} | ${r.objects} | ${ms(percentile(r.total, 50))} | ${ms(percentile(r.total, 95))} | ${ms(percentile(r.render, 50))} | ${ms(percentile(r.render, 95))} |`,
  ),
].join('\n');
const examplesP95 = Math.max(
  ...rows.filter((r) => r.name !== '50 toolchains').map((r) => percentile(r.total, 95)),
);
const browserVersion = (() => {
  try {
    return readFileSync('/usr/lib/chromium/chromium', { encoding: 'latin1' }).match(/Chrome\/([\d.]+)/)?.[1];
  } catch {
    return undefined;
  }
})();
const cpu = cpus()[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
const section = `## preview

\`npm run bench:preview\` (\`bench/preview.ts\`) drives the built playground (\`site/dist\`, served from
127.0.0.1) in Debian's Chromium. For each example and a 50-toolchain spec it presses ${EDITS} keys (Playwright's
keyboard) into its first image tag (each changes the workload, so each is a full render and update of the output
shown: the Deployment's YAML) and times each in the page, from the key's \`keydown\` to the first
frame painted after the new output is in the DOM (a task queued from the next \`requestAnimationFrame\`, which
runs once that frame is painted): CodeMirror's update, schema validation, semantic checks, \`renderAgent\`,
YAML, the visible view's DOM, and the frame's layout and paint. "Render only" is the validation + rendering part
alone.

Measured ${new Date().toISOString().slice(0, 10)}, Chromium${browserVersion ? ` ${browserVersion}` : ''} headless, ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM,
1-minute load average ${loadBefore.toFixed(1)} before and ${loadavg()[0]!.toFixed(1)} after the run (other work on the machine):

${table}

- Playground JavaScript, gzip (level 9) per file as served: **${kib(js.initialGzip)} KiB (${(js.initialGzip / 1000).toFixed(0)} KB) loaded with the
  page** (the entry and the chunk it imports: CodeMirror 6 with completion and lint, the renderer with cdk8s,
  cdk8s-plus-28, yaml and the precompiled validator, the views), **${kib(js.totalGzip)} KiB (${(js.totalGzip / 1000).toFixed(0)} KB) in total**
  (with the chart generator, loaded on the first chart download). Files: ${js.files.join(', ')}. The renderer
  alone (validation, rendering, explain, MCP configs, without editor and UI) is ${kib(rendererGzip)} KiB gzip.
- Time to interactive (navigation start → editor ready with the first render on screen, median of
  ${TTI_RUNS} cold loads): **${ms(percentile(tti, 50))} ms** (min ${ms(tti[0]!)}, max ${ms(tti[tti.length - 1]!)}).

Against the aims (keystroke → paint p95 under 50 ms on the examples; playground JavaScript at most 250 KB gzip,
measured as the total, every file included):

- Examples p95: ${ms(examplesP95)} ms — ${examplesP95 < 50 ? 'met' : 'not met'}.
- JavaScript: ${(js.totalGzip / 1000).toFixed(0)} KB gzip in total — ${js.totalGzip <= 250 * 1000 ? 'met' : 'not met'}. Largest parts (minified, before gzip):
  ${bundleComposition()}. The code that runs is the code the CLI runs; what the page leaves out (see
  \`site/README.md\`): ajv's schema compiler (the validator ajv generates is precompiled at build time),
  cdk8s-plus-28's modules and \`imports/k8s.js\` classes the renderer never reaches, cdk8s's second copy of
  yaml, helpers the renderer never calls (redirects, globbing), the renderer's self-check of each toolchain
  config against the server's zod schema (so no zod; the CLI and the tests run it), CodeMirror's YAML grammar
  (a small tokenizer highlights instead), and the chart generator until a chart is downloaded.
`;

const docPath = join(REPO, 'docs/benchmarks.md');
let doc = existsSync(docPath) ? readFileSync(docPath, 'utf8') : '# Benchmarks\n';
const start = doc.search(/^## preview\s*$/m);
if (start >= 0) {
  const rest = doc.slice(start + 1);
  const nextHeading = rest.search(/^## /m);
  doc = doc.slice(0, start) + section + (nextHeading >= 0 ? `\n${rest.slice(nextHeading)}` : '');
} else {
  doc = `${doc.trimEnd()}\n\n${section}`;
}
writeFileSync(docPath, doc);
// The repository's formatter aligns Markdown tables; keep the file as `npm run lint` wants it.
execFileSync(join(REPO, 'node_modules/.bin/biome'), ['format', '--write', docPath], { stdio: 'ignore' });
console.log(section);
