/**
 * The built site as a whole: accessibility (axe-core in Chromium) on the home, a reference page and the
 * playground; every internal link and anchor in site/dist resolves; the schema is published at its stable
 * path; the generated reference covers every schema field; the chart repository's index matches its charts.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { schemaFields } from '../../site/scripts/schema-fields.ts';
import {
  type BrowserContext,
  browserSkipReason,
  ensureSiteBuilt,
  guardContext,
  launchChromium,
  type PageGuard,
  REPO,
  RESULTS,
  SITE_DIST,
  type StaticServer,
  seriousViolations,
  serveStatic,
} from './support.ts';

const skip = browserSkipReason();

function htmlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name.startsWith('.') ? [] : htmlFiles(path);
    return entry.name.endsWith('.html') ? [path] : [];
  });
}

/** The file a site URL path is served from, as a static host maps it. */
function fileFor(pathname: string): string | undefined {
  const candidate = join(SITE_DIST, decodeURIComponent(pathname));
  if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  const index = join(candidate, 'index.html');
  return existsSync(index) ? index : undefined;
}

function idsIn(html: string): Set<string> {
  return new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!));
}

describe('site build', () => {
  before(async () => {
    await ensureSiteBuilt();
  });

  test('every internal link and anchor in the built HTML resolves', () => {
    const pages = htmlFiles(SITE_DIST);
    assert.ok(pages.length >= 15, `only ${pages.length} pages built`);
    const broken: string[] = [];
    let checked = 0;
    for (const page of pages) {
      const html = readFileSync(page, 'utf8');
      const pageUrl = new URL(`http://site/${relative(SITE_DIST, page).replace(/index\.html$/, '')}`);
      for (const match of html.matchAll(/\s(?:href|src)="([^"]+)"/g)) {
        const raw = match[1]!.replace(/&amp;/g, '&');
        if (/^(https?:|mailto:|data:|javascript:)/.test(raw) && !raw.startsWith('http://site/')) continue;
        const url = new URL(raw, pageUrl);
        if (url.host !== 'site') continue;
        checked += 1;
        const target = fileFor(url.pathname);
        if (!target) {
          broken.push(`${relative(SITE_DIST, page)} → ${raw}`);
          continue;
        }
        const fragment = decodeURIComponent(url.hash.slice(1));
        // The playground's fragment carries a spec, not an anchor.
        if (fragment && !fragment.startsWith('spec=') && target.endsWith('.html')) {
          if (!idsIn(readFileSync(target, 'utf8')).has(fragment)) {
            broken.push(`${relative(SITE_DIST, page)} → ${raw} (no element with id "${fragment}")`);
          }
        }
      }
    }
    assert.ok(checked > 100, `only ${checked} links checked`);
    assert.deepEqual(broken, []);
  });

  test('nothing in the build loads from another host (scripts, styles, fonts, images, frames)', () => {
    const remote: string[] = [];
    for (const page of htmlFiles(SITE_DIST)) {
      const html = readFileSync(page, 'utf8');
      for (const tag of html.matchAll(/<(script|img|iframe|source|link)\b[^>]*>/g)) {
        const text = tag[0];
        // Canonical and alternate links name the public address; browsers do not fetch them.
        if (tag[1] === 'link' && /rel="(canonical|alternate|sitemap)"/.test(text)) continue;
        const url = /\s(?:src|href)="((?:https?:)?\/\/[^"]+)"/.exec(text)?.[1];
        if (url) remote.push(`${relative(SITE_DIST, page)}: ${text.slice(0, 120)}`);
      }
    }
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? walk(join(dir, e.name)) : /\.(css|js|mjs)$/.test(e.name) ? [join(dir, e.name)] : [],
      );
    for (const file of walk(SITE_DIST)) {
      const text = readFileSync(file, 'utf8');
      if (/url\(\s*["']?(https?:)?\/\//.test(text) || /@import\s+(url\()?["']?(https?:)?\/\//.test(text)) {
        remote.push(`${relative(SITE_DIST, file)}: remote url() or @import`);
      }
    }
    assert.deepEqual(remote, []);
  });

  test('the JSON Schema is published at /schema/v1alpha1/agent.json, byte-identical to the source', () => {
    const source = readFileSync(join(REPO, 'schema/agent.schema.json'), 'utf8');
    const published = readFileSync(join(SITE_DIST, 'schema/v1alpha1/agent.json'), 'utf8');
    assert.equal(published, source);
    assert.equal(JSON.parse(published).$id, 'https://toolyard.dev/schema/v1alpha1/agent.json');
  });

  test('the spec reference has a section for every schema field, generated from the schema', () => {
    const schema = JSON.parse(readFileSync(join(REPO, 'schema/agent.schema.json'), 'utf8'));
    const html = readFileSync(join(SITE_DIST, 'reference/spec/index.html'), 'utf8');
    const fields = schemaFields(schema).filter((f) => !f.path.endsWith('[]'));
    assert.ok(fields.length > 50, `only ${fields.length} fields found`);
    const headings = new Set(
      [...html.matchAll(/<h3[^>]*><code[^>]*>([^<]+)<\/code><\/h3>/g)].map((m) => m[1]!),
    );
    const missing = fields.filter((f) => !headings.has(f.path.replace(/</g, '&lt;').replace(/>/g, '&gt;')));
    assert.deepEqual(
      missing.map((f) => f.path),
      [],
    );
    const text = html
      .replace(/<[^>]+>/g, '')
      .replace(/&#39;/g, "'")
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&')
      // Markdown's typographer turns quotes curly.
      .replace(/[‘’]/g, "'")
      .replace(/[“”]/g, '"');
    for (const field of fields.filter((f) => f.description)) {
      const words = field.description!.split(/\s+/).slice(0, 3).join(' ');
      if (/[`*_[\]]/.test(words)) continue;
      assert.ok(text.includes(words), `${field.path}: description "${words}…" missing`);
    }
  });

  test('the CLI reference shows every command’s own help text, the toolchain server’s too', async () => {
    const { COMMANDS } = await import('../../cli/src/main.ts');
    const html = readFileSync(join(SITE_DIST, 'reference/cli/index.html'), 'utf8');
    for (const [name, command] of Object.entries(COMMANDS)) {
      assert.ok(html.includes(`toolyard ${name}`), `command ${name} missing`);
      const firstLine = command.usage.split('\n')[0]!.replace(/</g, '&lt;').replace(/>/g, '&gt;');
      assert.ok(html.includes(firstLine.split(' ').slice(0, 3).join(' ')), `usage of ${name} missing`);
    }
    assert.match(html, /Usage: toolyard-toolchain-server --config &lt;file\.json&gt;/);
  });

  test('no two pages share a title', () => {
    const titles = new Map<string, string[]>();
    for (const page of htmlFiles(SITE_DIST)) {
      const title = /<title>([^<]*)<\/title>/.exec(readFileSync(page, 'utf8'))?.[1];
      if (title) titles.set(title, [...(titles.get(title) ?? []), relative(SITE_DIST, page)]);
    }
    assert.deepEqual(
      [...titles].filter(([, pages]) => pages.length > 1),
      [],
    );
  });

  test('the tools reference covers describe_toolchain and the result shapes', () => {
    const html = readFileSync(join(SITE_DIST, 'reference/toolchain-server-tools/index.html'), 'utf8');
    for (const needle of [
      'describe_toolchain',
      'exec_allowed',
      'exitCode',
      'stdoutDroppedBytes',
      'dev.toolyard/error',
    ])
      assert.ok(html.includes(needle), `${needle} is not on the page`);
    assert.match(html, /id="results"/);
  });

  test('the generated references show no generator leftovers; alternatives read as alternatives', () => {
    const config = readFileSync(join(SITE_DIST, 'reference/toolchain-server-config/index.html'), 'utf8');
    assert.doesNotMatch(config, /9007199254740991|object \| object|starts_with|\{ {2}\}/);
    assert.match(config, /auth\.bearerTokenFile/);
    assert.doesNotMatch(
      config,
      /bearerTokenEnv/,
      'the removed environment form is not documented as a field',
    );
    const spec = readFileSync(join(SITE_DIST, 'reference/spec/index.html'), 'utf8');
    assert.match(spec, /only in <code[^>]*>ExternalGateway<\/code>/);
    assert.match(spec, /only in <code[^>]*>DeployedGateway<\/code>/);
    assert.match(spec, /only in <code[^>]*>ExistingClaim<\/code>/);
    assert.match(spec, /<strong>Required:<\/strong> when <code[^>]*>digest<\/code> is not set/);
  });

  test('the toolchain server reference lists every error code, policy rule and audit field it exports', async () => {
    const html = readFileSync(join(SITE_DIST, 'reference/toolchain-server-errors/index.html'), 'utf8');
    const { ERROR_CODES, POLICY_RULES } = await import('../../toolchain-server/src/errors.ts');
    const { AUDIT_FIELDS } = await import('../../toolchain-server/src/audit.ts');
    for (const name of [
      ...Object.keys(ERROR_CODES),
      ...Object.keys(POLICY_RULES),
      ...Object.keys(AUDIT_FIELDS),
    ]) {
      assert.ok(html.includes(`<code dir="auto">${name}</code>`), `${name} is not on the page`);
    }
  });

  test('the examples gallery has a page per example with its rendered workload and pod diagram', () => {
    const examples = readdirSync(join(REPO, 'examples')).filter((f) => f.endsWith('.yaml'));
    for (const file of examples) {
      const page = join(SITE_DIST, 'examples', file.replace(/\.yaml$/, ''), 'index.html');
      assert.ok(existsSync(page), `no gallery page for ${file}`);
      const html = readFileSync(page, 'utf8');
      assert.match(html, /Deployment|StatefulSet/);
      assert.match(html, /href="\/playground\/#spec=/);
      // The playground's pod diagram component, rendered at build time.
      assert.match(html, /<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" class="tyd" role="img"/);
    }
  });

  test('the chart repository index parses and its digests match the packaged charts', (t) => {
    const indexPath = join(SITE_DIST, 'charts/index.yaml');
    if (!existsSync(indexPath)) {
      // Published once chart-generator/ can package charts; generate.ts prints why it is absent.
      t.skip('no /charts/index.yaml in this build');
      return;
    }
    const index = parse(readFileSync(indexPath, 'utf8')) as {
      apiVersion: string;
      entries: Record<string, { name: string; version: string; digest: string; urls: string[] }[]>;
    };
    assert.equal(index.apiVersion, 'v1');
    const entries = Object.values(index.entries).flat();
    assert.ok(entries.length >= 1, 'index.yaml lists no chart');
    for (const entry of entries) {
      assert.equal(entry.urls.length, 1);
      const url = new URL(entry.urls[0]!, 'http://site/charts/');
      const tgz = fileFor(url.pathname);
      assert.ok(tgz, `${entry.name}: ${entry.urls[0]} is not in the site`);
      const digest = createHash('sha256').update(readFileSync(tgz)).digest('hex');
      assert.equal(entry.digest, digest, `${entry.name}: digest mismatch`);
      assert.equal(dirname(tgz), join(SITE_DIST, 'charts'));
    }
  });
});

describe('accessibility (axe-core in Chromium)', { skip }, () => {
  let server: StaticServer;
  let context: BrowserContext;
  let guard: PageGuard;
  const axeSource = readFileSync(join(REPO, 'node_modules/axe-core/axe.min.js'), 'utf8');

  before(async () => {
    await ensureSiteBuilt();
    server = await serveStatic();
    context = await launchChromium(mkdtempSync(join(tmpdir(), 'toolyard-chromium-')));
    guard = await guardContext(context);
  });

  after(async () => {
    await context?.close();
    await server?.close();
  });

  for (const [name, path] of [
    ['home', '/'],
    ['spec reference', '/reference/spec/'],
    ['playground', '/playground/'],
    ['an example', '/examples/polyglot-reviewer/'],
  ] as const) {
    test(`${name} (${path}) has no serious or critical violations`, async () => {
      const page = await context.newPage();
      await page.goto(`${server.origin}${path}`);
      if (path === '/playground/') await page.locator('toolyard-playground[data-ready="true"]').waitFor();
      await page.addScriptTag({ content: axeSource });
      const violations = await seriousViolations(page);
      await page.screenshot({ path: join(RESULTS, `site-${name.replace(/\W+/g, '-')}.png`) });
      await page.close();
      assert.deepEqual(violations, []);
    });
  }

  test('the playground in dark mode has no serious or critical violations', async () => {
    const page = await context.newPage();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${server.origin}/playground/`);
    await page.locator('toolyard-playground[data-ready="true"]').waitFor();
    await page.addScriptTag({ content: axeSource });
    const violations = await seriousViolations(page);
    await page.screenshot({ path: join(RESULTS, 'site-playground-dark.png') });
    await page.close();
    assert.deepEqual(violations, []);
  });

  test('every built page loads (and opens search) without console errors or off-host requests', async () => {
    const page = await context.newPage();
    for (const file of htmlFiles(SITE_DIST)) {
      const path = `/${relative(SITE_DIST, file).replace(/index\.html$/, '')}`;
      const response = await page.goto(`${server.origin}${path}`);
      assert.ok(response?.ok() || path === '/404.html', `${path}: HTTP ${response?.status()}`);
    }
    await page.goto(`${server.origin}/`);
    // The search button is enabled once its script has run; a shortcut pressed before that is lost.
    await page.locator('button[data-open-modal]:not([disabled])').waitFor();
    await page.keyboard.press('Control+k');
    await page.locator('dialog[open] input').fill('toolchain');
    await page.locator('dialog[open] .pagefind-ui__result').first().waitFor();
    await page.close();
  });

  test('no console errors and no request left localhost on those pages', () => {
    assert.deepEqual(guard.consoleErrors, []);
    assert.deepEqual(guard.offHostRequests, []);
  });
});
