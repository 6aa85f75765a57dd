/**
 * The playground in a real browser (Debian's Chromium via playwright-core), served from site/dist on
 * 127.0.0.1: it renders examples with the bundled renderer byte-for-byte like `toolyard synth`, reacts to
 * edits, keeps the last good render on invalid input, reproduces a spec from its URL, logs no errors and
 * sends nothing off this machine.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { afterRender, editorText, replaceSpec, showObject } from './playground-support.ts';
import {
  type BrowserContext,
  browserSkipReason,
  ensureSiteBuilt,
  guardContext,
  launchChromium,
  type Page,
  type PageGuard,
  REPO,
  RESULTS,
  type StaticServer,
  serveStatic,
} from './support.ts';

const skip = browserSkipReason();
if (skip) console.log(`# skipped: ${skip}`);

/** What `toolyard synth` writes for a spec file (one agent per example). */
function synthBytes(file: string): string {
  const out = mkdtempSync(join(tmpdir(), 'toolyard-synth-'));
  try {
    execFileSync(process.execPath, [join(REPO, 'cli/bin/toolyard.js'), 'synth', file, '-o', out], {
      cwd: REPO,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const [only] = readdirSync(out);
    return readFileSync(join(out, only!), 'utf8');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** The files of an uncompressed ustar archive, path → content. */
function untar(tar: Uint8Array): Map<string, string> {
  const files = new Map<string, string>();
  const text = (from: number, to: number) =>
    new TextDecoder().decode(tar.subarray(from, to)).replace(/\0.*$/s, '');
  for (let offset = 0; offset + 512 <= tar.length; ) {
    const name = text(offset, offset + 100);
    if (name === '') break;
    const prefix = text(offset + 345, offset + 500);
    const size = Number.parseInt(text(offset + 124, offset + 136).trim(), 8);
    const path = prefix ? `${prefix}/${name}` : name;
    files.set(path, new TextDecoder().decode(tar.subarray(offset + 512, offset + 512 + size)));
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

describe('playground', { skip }, () => {
  let server: StaticServer;
  let context: BrowserContext;
  let guard: PageGuard;
  let page: Page;

  before(async () => {
    await ensureSiteBuilt();
    mkdirSync(RESULTS, { recursive: true });
    server = await serveStatic();
    context = await launchChromium(mkdtempSync(join(tmpdir(), 'toolyard-chromium-')));
    guard = await guardContext(context);
    page = await context.newPage();
    await page.goto(`${server.origin}/playground/`);
    await page.locator('toolyard-playground[data-ready="true"]').waitFor();
  });

  after(async () => {
    await context?.close();
    await server?.close();
  });

  test('loads an example and shows its Deployment', async () => {
    assert.equal(await page.locator('#ty-example').inputValue(), 'polyglot-reviewer');
    assert.equal(await page.locator('toolyard-playground').getAttribute('data-state'), 'valid');
    const deployment = await showObject(page, 'Deployment reviewer');
    assert.match(deployment, /^apiVersion: apps\/v1\nkind: Deployment\n/);
    assert.match(deployment, / name: claude\n/);
    // The example runs its rust toolchain in a pod of its own (placement: pod).
    const toolchainPod = await showObject(page, 'Deployment reviewer-toolchain-rust');
    assert.match(toolchainPod, / name: toolchain-rust\n/);
    await page.screenshot({ path: join(RESULTS, 'playground-example.png'), fullPage: true });
  });

  test('renders every example byte-for-byte like toolyard synth (downloaded manifests)', async () => {
    const names = await page
      .locator('#ty-example option')
      .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value).filter((v) => v !== ''));
    assert.ok(names.length >= 3, `examples offered: ${names.join(', ')}`);
    for (const name of names) {
      const file = join(REPO, 'examples', `${name}.yaml`);
      await afterRender(page, () => page.locator('#ty-example').selectOption(name));
      assert.equal(await editorText(page), readFileSync(file, 'utf8'));
      assert.equal(await page.locator('toolyard-playground').getAttribute('data-state'), 'valid');
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download manifests (YAML)' }).click(),
      ]);
      const browserBytes = readFileSync(await download.path(), 'utf8');
      assert.equal(browserBytes, synthBytes(file), `${name}: browser render differs from toolyard synth`);
    }
    await afterRender(page, () => page.locator('#ty-example').selectOption('polyglot-reviewer'));
  });

  test('downloads the Helm chart generated in the browser, with the files of the published chart', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download Helm chart (.tgz)' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'reviewer-0.1.0.tgz');
    const inBrowser = untar(gunzipSync(readFileSync(await download.path())));
    const published = untar(gunzipSync(readFileSync(join(REPO, 'site/dist/charts/reviewer-0.1.0.tgz'))));
    assert.ok(inBrowser.has('reviewer/Chart.yaml'));
    assert.ok(inBrowser.has('reviewer/values.yaml'));
    assert.deepEqual([...inBrowser.keys()], [...published.keys()]);
    for (const [path, content] of published) assert.equal(inBrowser.get(path), content, path);
  });

  test('adding a toolchain in the editor adds its container and its MCP config entry', async () => {
    const original = await editorText(page);
    const added = original.replace(
      '  toolchains:\n',
      [
        '  toolchains:',
        '    - name: java',
        '      image: { repository: docker.io/library/eclipse-temurin, tag: "21" }',
        '      port: 8710',
        '      tools: { mode: exec, allowedCommands: [java, mvn] }',
        '',
      ].join('\n'),
    );
    assert.notEqual(added, original);
    await replaceSpec(page, added);
    assert.equal(await page.locator('toolyard-playground').getAttribute('data-state'), 'valid');
    const deployment = await showObject(page, 'Deployment reviewer');
    assert.match(deployment, / name: toolchain-java\n/);
    assert.match(deployment, /image: docker\.io\/library\/eclipse-temurin:21\n/);
    await page.getByRole('tab', { name: 'MCP client configs' }).click();
    const claudeConfig = (await page.locator('#ty-mcp-panel pre').textContent()) ?? '';
    assert.match(claudeConfig, /"toolchain-java"/);
    assert.match(claudeConfig, /http:\/\/127\.0\.0\.1:8710\/mcp/);
    await page.screenshot({ path: join(RESULTS, 'playground-added-toolchain.png'), fullPage: true });
  });

  test('an invalid edit shows the error with its path and line, and keeps the last good render', async () => {
    const valid = await editorText(page);
    const before = await showObject(page, 'Deployment reviewer');
    const lines = valid.split('\n');
    const portLine = lines.findIndex((l) => l.includes('port: 8710'));
    assert.ok(portLine >= 0);
    const invalid = valid.replace('port: 8710', 'port: 99999');
    await replaceSpec(page, invalid);
    const playground = page.locator('toolyard-playground');
    assert.equal(await playground.getAttribute('data-state'), 'invalid');
    const problem = page.locator('.ty-diagnostic').first();
    assert.equal(await problem.locator('.ty-path').textContent(), '/spec/toolchains/0/port');
    assert.equal(await problem.locator('.ty-line').textContent(), `line ${portLine + 1}`);
    assert.match((await page.locator('.ty-status').textContent()) ?? '', /showing the last valid render/);
    assert.ok((await page.locator('.cm-lintRange-error').count()) > 0, 'the editor marks the line');
    assert.ok(await page.locator('.ty-stale').isVisible());
    assert.equal(await showObject(page, 'Deployment reviewer'), before, 'the last good render stays');
    await page.screenshot({ path: join(RESULTS, 'playground-invalid.png'), fullPage: true });
    await replaceSpec(page, valid);
    assert.equal(await playground.getAttribute('data-state'), 'valid');
  });

  test('a link with the spec in the URL reproduces the view', async () => {
    const text = (await editorText(page)).replace('name: reviewer', 'name: linked');
    await replaceSpec(page, text);
    // "Copy link" writes the current spec into the URL before it reports anything.
    await page.getByRole('button', { name: 'Copy link' }).click();
    await page.locator('.ty-status', { hasText: /link/i }).waitFor();
    const url = page.url();
    assert.match(url, /\/playground\/#spec=[\w-]+$/);
    const deployment = await showObject(page, 'Deployment linked');
    const second = await context.newPage();
    await second.goto(url);
    await second.locator('toolyard-playground[data-ready="true"]').waitFor();
    assert.equal(await editorText(second), text);
    assert.equal(await showObject(second, 'Deployment linked'), deployment);
    assert.equal(await second.locator('#ty-example').inputValue(), '', 'an edited spec is not an example');
    await second.screenshot({ path: join(RESULTS, 'playground-from-link.png'), fullPage: true });
    // The same link pasted into a tab showing something else (only the fragment changes: no reload).
    await afterRender(second, () => second.locator('#ty-example').selectOption('web-infra'));
    await second.waitForFunction((linked) => location.hash !== linked, new URL(url).hash);
    await afterRender(second, () =>
      second.evaluate((hash) => {
        location.hash = hash;
      }, new URL(url).hash),
    );
    assert.equal(await editorText(second), text);
    await second.close();
  });

  test('a damaged link says so and opens an example', async () => {
    const damaged = await context.newPage();
    await damaged.goto(`${server.origin}/playground/#spec=AAAA-not-deflate`);
    await damaged.locator('toolyard-playground[data-ready="true"]').waitFor();
    assert.match((await damaged.locator('.ty-notice').textContent()) ?? '', /could not be read/);
    assert.equal(await damaged.locator('#ty-example').inputValue(), 'polyglot-reviewer');
    assert.equal(await damaged.locator('toolyard-playground').getAttribute('data-state'), 'valid');
    await damaged.close();
  });

  test('the egress and "what can it do" tables are shown', async () => {
    await page.getByRole('tab', { name: 'Pods and egress' }).click();
    const egress = page.getByRole('table', { name: /^Effective egress of linked \(/ });
    assert.ok(await egress.isVisible());
    assert.match((await egress.textContent()) ?? '', /broker \(model and gateway routes, egress by name\)/);
    await page.getByRole('tab', { name: 'What can it do' }).click();
    assert.match((await page.locator('#ty-view-panel').textContent()) ?? '', /ServiceAccount linked/);
  });

  test('no console errors and no request left localhost', () => {
    assert.deepEqual(guard.consoleErrors, []);
    assert.deepEqual(guard.offHostRequests, []);
  });
});
