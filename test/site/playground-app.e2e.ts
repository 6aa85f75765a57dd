/**
 * The playground as an app, in Debian's Chromium: the window-filling split layout (and its resizing), schema
 * completion, hover docs and inline lint in the editor, Tab indenting with a keyboard escape, problems that
 * jump to their line, downloads off while the spec is invalid, copy buttons, the dark editor, the RBAC tables
 * grouped by rule set, the pod diagram, the diff of rendered objects, no sideways page scroll at 390, 1024 and
 * 1440 px, and no serious or critical axe violations on any view, light or dark.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  afterRender,
  cursorLine,
  editorText,
  replaceSpec,
  scrollsSideways,
  showObject,
} from './playground-support.ts';
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
  seriousViolations,
  serveStatic,
} from './support.ts';

const skip = browserSkipReason();
const VIEWS = [
  'Manifests',
  'MCP client configs',
  'Pods and egress',
  'What can it do',
  'Changes',
  /^Warnings/,
] as const;
const example = (name: string) => readFileSync(join(REPO, 'examples', `${name}.yaml`), 'utf8');

/** CodeMirror's default `interactionDelay` (75 ms) with a margin. */
const COMPLETION_INTERACTION_DELAY_MS = 150;

describe('the playground app', { skip }, () => {
  let server: StaticServer;
  let context: BrowserContext;
  let guard: PageGuard;
  let page: Page;
  const axeSource = readFileSync(join(REPO, 'node_modules/axe-core/axe.min.js'), 'utf8');

  const open = async (width = 1440, height = 900, colorScheme: 'light' | 'dark' = 'light') => {
    const fresh = await context.newPage();
    await fresh.setViewportSize({ width, height });
    await fresh.emulateMedia({ colorScheme });
    await fresh.goto(`${server.origin}/playground/`);
    await fresh.locator('toolyard-playground[data-ready="true"]').waitFor();
    return fresh;
  };

  before(async () => {
    await ensureSiteBuilt();
    mkdirSync(RESULTS, { recursive: true });
    server = await serveStatic();
    context = await launchChromium(mkdtempSync(join(tmpdir(), 'toolyard-chromium-')));
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
    guard = await guardContext(context);
    page = await open();
  });

  after(async () => {
    await context?.close();
    await server?.close();
  });

  test('fills the window below the site header: editor and output side by side', async () => {
    const app = await page.locator('toolyard-playground').boundingBox();
    const spec = await page.locator('.ty-spec-pane').boundingBox();
    const output = await page.locator('.ty-output-pane').boundingBox();
    assert.ok(app && spec && output);
    const viewport = page.viewportSize()!;
    assert.ok(
      app.y + app.height <= viewport.height + 1,
      `the app ends at ${app.y + app.height}, below the window`,
    );
    assert.ok(
      app.y + app.height >= viewport.height - 40,
      `the app ends at ${app.y + app.height}, short of the window`,
    );
    assert.ok(
      app.width >= viewport.width - 80,
      `the app is ${app.width} px wide in a ${viewport.width} px window`,
    );
    assert.ok(Math.abs(spec.y - output.y) < 2, 'the panes are side by side');
    assert.ok(spec.x + spec.width <= output.x);
    assert.ok(spec.height > 500, `the editor pane is only ${spec.height} px tall`);
    await page.screenshot({ path: join(RESULTS, 'playground-app-1440.png') });
  });

  test('the split between editor and output resizes with the keyboard and the mouse', async () => {
    const separator = page.getByRole('separator', { name: 'Resize the editor and the output' });
    const width = async () => (await page.locator('.ty-spec-pane').boundingBox())!.width;
    const start = await width();
    const share = Number(await separator.getAttribute('aria-valuenow'));
    await separator.focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    assert.ok((await width()) > start + 50, 'ArrowRight widens the editor');
    assert.equal(await separator.getAttribute('aria-valuenow'), String(share + 10));
    await page.keyboard.press('Home');
    assert.equal(await separator.getAttribute('aria-valuenow'), '20');
    const box = (await separator.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + 100);
    await page.mouse.down();
    await page.mouse.move(720, box.y + 100, { steps: 5 });
    await page.mouse.up();
    const dragged = Number(await separator.getAttribute('aria-valuenow'));
    assert.ok(dragged > 40 && dragged < 60, `dragged to the middle, the editor has ${dragged}%`);
  });

  test('completion offers the fields the schema allows at the cursor, and the values of a field', async () => {
    await afterRender(page, () => page.locator('#ty-example').selectOption('polyglot-reviewer'));
    const text = await editorText(page);
    // Below a toolchain's `port:` line, start a new field of that toolchain.
    const line = text.split('\n').findIndex((l) => l.includes('port: 8702')) + 1;
    await page.evaluate((lineNumber) => {
      const element = document.querySelector('toolyard-playground') as HTMLElement & {
        editor: {
          state: { doc: { line(n: number): { to: number } } };
          dispatch(tr: unknown): void;
          focus(): void;
        };
      };
      const end = element.editor.state.doc.line(lineNumber).to;
      element.editor.dispatch({ selection: { anchor: end } });
      element.editor.focus();
    }, line);
    await afterRender(page, async () => {
      await page.keyboard.press('Enter');
      await page.keyboard.type('inj');
    });
    const list = page.locator('.cm-tooltip-autocomplete');
    await list.waitFor();
    assert.match((await list.textContent()) ?? '', /injectServer/);
    // CodeMirror ignores Enter on a list opened less than its interactionDelay (75 ms) ago, so that a key
    // pressed as the list pops up is not taken as a choice; a person reads the list first.
    await page.waitForTimeout(COMPLETION_INTERACTION_DELAY_MS);
    await afterRender(page, () => page.keyboard.press('Enter'));
    assert.match(await editorText(page), /\n {6}injectServer: \n/);
    await afterRender(page, () => page.keyboard.type('f'));
    await list.waitFor();
    assert.match((await list.textContent()) ?? '', /false/);
    await page.waitForTimeout(COMPLETION_INTERACTION_DELAY_MS);
    await afterRender(page, () => page.keyboard.press('Enter'));
    assert.match(await editorText(page), /\n {6}injectServer: false\n/);
    await page
      .locator('toolyard-playground[data-state="valid"]')
      .waitFor({ timeout: 30_000 })
      .catch(async (error: Error) => {
        throw new Error(
          `${error.message}\n${await page.locator('.ty-problems').textContent()}\n${await editorText(page)}`,
        );
      });
    await page.screenshot({ path: join(RESULTS, 'playground-completion.png') });
  });

  test('hovering a field shows its documentation from the schema', async () => {
    const key = page
      .locator('.cm-line', { hasText: /^\s+healthPath: \/health$/ })
      .first()
      .locator('.tok-propertyName');
    await key.hover();
    const tooltip = page.locator('.ty-hover');
    await tooltip.waitFor();
    assert.match((await tooltip.textContent()) ?? '', /spec\.backends\[0\]\.healthPath — string/);
    assert.match((await tooltip.textContent()) ?? '', /HTTP path for readiness\/liveness probes/);
    await page.mouse.move(0, 0);
  });

  test('Tab indents; Escape then Tab leaves the editor', async () => {
    await afterRender(page, () => page.locator('#ty-example').selectOption('web-infra'));
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+Home');
    const before = await editorText(page);
    await afterRender(page, () => page.keyboard.press('Tab'));
    const after = await editorText(page);
    assert.equal(after, `  ${before}`, 'Tab indented the first line');
    assert.ok(
      await page.evaluate(() => document.activeElement?.closest('.cm-editor') !== null),
      'focus stays',
    );
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    assert.ok(
      await page.evaluate(
        () => document.activeElement !== null && document.activeElement.closest('.cm-editor') === null,
      ),
      'Escape then Tab moves focus out of the editor',
    );
    assert.equal(await editorText(page), after, 'the escaping Tab inserted nothing');
    assert.match((await page.locator('#ty-editor-help').textContent()) ?? '', /Esc then Tab/);
  });

  test('an invalid spec: inline lint, problems that jump to their line, downloads off with the reason', async () => {
    const valid = example('web-infra');
    // A misspelt field in the backend, a port clash between the two toolchains.
    const broken = valid
      .replace('type: claude', 'type: claude\n      evn: { LOG_LEVEL: info }')
      .replace('port: 8703', 'port: 8704');
    await replaceSpec(page, broken);
    assert.equal(await page.locator('toolyard-playground').getAttribute('data-state'), 'invalid');
    // Schema and semantic problems in one pass, both marked in the editor.
    const problems = page.locator('.ty-diagnostic');
    // The misspelt field; the clash of the MCP ports and of the probe ports derived from them.
    assert.equal(await problems.count(), 3);
    assert.ok((await page.locator('.cm-lintRange-error').count()) >= 2);
    assert.match((await problems.nth(0).textContent()) ?? '', /unknown field "evn" — did you mean "env"\?/);
    const download = page.getByRole('button', { name: 'Download manifests (YAML)' });
    const chart = page.getByRole('button', { name: 'Download Helm chart (.tgz)' });
    assert.ok(await download.isDisabled());
    assert.ok(await chart.isDisabled());
    assert.match(
      (await page.locator('#ty-download-reason').textContent()) ?? '',
      /off while the spec has problems/,
    );
    assert.equal(await download.getAttribute('aria-describedby'), 'ty-download-reason');
    // Selecting a problem puts the cursor on its line.
    const clash = problems.filter({
      hasText: 'port 8704 of toolchain "terraform" collides with toolchain "node"',
    });
    const portLine = Number(await clash.getAttribute('data-line'));
    assert.equal(broken.split('\n')[portLine - 1]!.trim(), 'port: 8704');
    await clash.click();
    assert.equal(await cursorLine(page), portLine);
    assert.ok(
      await page.evaluate(() => document.activeElement?.closest('.cm-editor') !== null),
      'the editor has focus',
    );
    await page.screenshot({ path: join(RESULTS, 'playground-problems.png') });
    await replaceSpec(page, valid);
    assert.ok(await download.isEnabled());
    assert.equal(await page.locator('#ty-download-reason').textContent(), '');
  });

  test('a warning the spec does not acknowledge is marked in the editor', async () => {
    // cluster-operator with the broker turned off: the broker-disabled warning, and the helm toolchain's shared
    // egress (with the broker off, egress is pod-wide again). Acknowledging the first leaves one.
    const off = `${example('cluster-operator')}  broker:\n    enabled: false\n`;
    await replaceSpec(page, off);
    assert.ok((await page.locator('.cm-lintRange-warning').count()) >= 1);
    assert.equal(await page.getByRole('tab', { name: 'Warnings (2)' }).count(), 1);
    await replaceSpec(
      page,
      `${off}  acknowledgedWarnings:\n    - warning: broker-disabled\n      reason: the broker image is not mirrored yet\n`,
    );
    await page.getByRole('tab', { name: 'Warnings (1)' }).click();
    assert.match(
      (await page.locator('#ty-view-panel').textContent()) ?? '',
      /Acknowledged in the spec[\s\S]*Reason: the broker image is not mirrored yet/,
    );
    await afterRender(page, () => page.locator('#ty-example').selectOption('polyglot-reviewer'));
  });

  test('copy buttons put exactly what is shown on the clipboard', async () => {
    const shown = await showObject(page, 'Deployment reviewer');
    await page.getByRole('button', { name: 'Copy Deployment reviewer' }).click();
    await page.locator('.ty-status', { hasText: 'Copied Deployment reviewer.' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), shown);
    await page.getByRole('tab', { name: 'MCP client configs' }).click();
    const config = (await page.locator('#ty-mcp-panel pre').textContent()) ?? '';
    await page.getByRole('button', { name: /^Copy managed-mcp\.json of claude$/ }).click();
    await page.locator('.ty-status', { hasText: 'Copied managed-mcp.json of claude.' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), config);
  });

  test('what each ServiceAccount can do, grouped by rule set: one table for every namespace it applies in', async () => {
    await afterRender(page, () => page.locator('#ty-example').selectOption('cluster-operator'));
    await page.getByRole('tab', { name: 'What can it do' }).click();
    const panel = page.locator('#ty-view-panel');
    const tables = panel.locator('table', { hasText: 'operator-kubernetes: preset read-only' });
    assert.equal(await tables.count(), 1, 'the read-only rules of two namespaces are one table');
    assert.match((await tables.locator('caption').textContent()) ?? '', /in namespaces agents, apps$/);
    assert.match(
      (await panel.textContent()) ?? '',
      /ServiceAccount operator\s*No token is mounted into any container\.\s*Can do: nothing/,
    );
  });

  test('the pod diagram draws every pod, its containers, MCP calls and egress', async () => {
    await page.getByRole('tab', { name: 'Pods and egress' }).click();
    const svg = page.locator('.ty-diagram svg');
    assert.equal(await svg.getAttribute('role'), 'img');
    for (const pod of ['operator', 'operator-kubernetes', 'operator-helm', 'operator-broker'])
      assert.equal(await svg.locator(`[data-pod="${pod}"]`).count(), 1, pod);
    for (const container of ['codex', 'toolchain-helm', 'toolyard-install', 'kubernetes', 'helm'])
      assert.equal(await svg.locator(`[data-container="${container}"]`).count(), 1, container);
    const description = (await svg.locator('desc').textContent()) ?? '';
    assert.match(description, /codex → toolchain-helm, codex → kubernetes, codex → helm, codex → github/);
    // Only the broker reaches the internet; the agent pod reaches the broker.
    assert.match(description, /operator → pods of operator-broker 8480\/TCP/);
    assert.match(
      description,
      /operator-broker → 0\.0\.0\.0\/0 except [^;]*10\.0\.0\.0\/8[^;]*; ::\/0 except [^ ]* ?.*443\/TCP/,
    );
    assert.ok((await svg.locator('path.tyd-call').count()) >= 4);
    assert.ok((await svg.locator('path.tyd-egress').count()) >= 4);
    assert.equal(await svg.locator('[data-external="mcp:github"]').count(), 1);
    await page.screenshot({ path: join(RESULTS, 'playground-diagram.png') });
  });

  test('changes: the rendered objects against the last render, and against a pinned one', async () => {
    await afterRender(page, () => page.locator('#ty-example').selectOption('web-infra'));
    const text = await editorText(page);
    await replaceSpec(page, text.replace('port: 8703', 'port: 8713'));
    await page.getByRole('tab', { name: 'Changes' }).click();
    const panel = page.locator('#ty-view-panel');
    const changed = panel.locator('details.ty-change');
    assert.ok((await changed.count()) >= 2, 'the StatefulSet and the toolchain config changed');
    const workload = changed.filter({ hasText: 'StatefulSet agents/web-infra' });
    assert.equal(await workload.getAttribute('data-change'), 'changed');
    // The MCP port is in the toolchain's config; the pod shows its probe port (MCP port + 1000).
    assert.match((await workload.locator('.ty-del').allTextContents()).join('\n'), /containerPort: 9703/);
    assert.match((await workload.locator('.ty-add').allTextContents()).join('\n'), /containerPort: 9713/);
    await page.getByRole('button', { name: 'Pin this render' }).click();
    assert.ok(await page.getByRole('radio', { name: /the pinned render/ }).isChecked());
    assert.match((await panel.textContent()) ?? '', /No object changed against pinned at/);
    const current = await editorText(page);
    await replaceSpec(page, current.replace('name: web-infra', 'name: web-infra-2'));
    await page.getByRole('tab', { name: 'Changes' }).click();
    assert.ok((await panel.locator('details[data-change="added"]').count()) > 0);
    assert.ok((await panel.locator('details[data-change="removed"]').count()) > 0);
    await page.screenshot({ path: join(RESULTS, 'playground-changes.png') });
    await afterRender(page, () => page.locator('#ty-example').selectOption('polyglot-reviewer'));
  });

  for (const width of [390, 1024, 1440]) {
    test(`at ${width} px the page never scrolls sideways, whatever the view`, async () => {
      const narrow = await open(width, 844);
      for (const name of ['polyglot-reviewer', 'cluster-operator']) {
        await afterRender(narrow, () => narrow.locator('#ty-example').selectOption(name));
        for (const view of VIEWS) {
          await narrow.getByRole('tab', { name: view }).click();
          assert.equal(await scrollsSideways(narrow), false, `${name}, ${String(view)}`);
        }
      }
      await narrow.screenshot({ path: join(RESULTS, `playground-${width}.png`), fullPage: width === 390 });
      await narrow.close();
    });
  }

  test('dark mode: the editor is dark too', async () => {
    const dark = await open(1440, 900, 'dark');
    const colours = await dark.evaluate(() => {
      const editor = getComputedStyle(document.querySelector('.cm-editor')!);
      const luminance = (colour: string) => {
        const [r, g, b] = (colour.match(/\d+(\.\d+)?/g) ?? ['0', '0', '0']).map(Number) as [
          number,
          number,
          number,
        ];
        return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
      };
      return { background: luminance(editor.backgroundColor), text: luminance(editor.color) };
    });
    assert.ok(colours.background < 0.2, `editor background luminance ${colours.background}`);
    assert.ok(colours.text > 0.7, `editor text luminance ${colours.text}`);
    await dark.screenshot({ path: join(RESULTS, 'playground-dark.png') });
    await dark.close();
  });

  for (const scheme of ['light', 'dark'] as const) {
    test(`axe finds no serious or critical violation on any view (${scheme})`, async () => {
      const checked = await open(1440, 900, scheme);
      await checked.addScriptTag({ content: axeSource });
      for (const view of VIEWS) {
        await checked.getByRole('tab', { name: view }).click();
        assert.deepEqual(await seriousViolations(checked), [], `${String(view)} (${scheme})`);
      }
      // With problems listed and the downloads off.
      await replaceSpec(checked, example('web-infra').replace('type: claude', 'type: cluade'));
      assert.deepEqual(await seriousViolations(checked), [], `invalid spec (${scheme})`);
      await checked.close();
    });
  }

  test('no console errors and no request left localhost', () => {
    assert.deepEqual(guard.consoleErrors, []);
    assert.deepEqual(guard.offHostRequests, []);
  });
});
