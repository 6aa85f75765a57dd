/**
 * The playground on a phone, a tablet and a laptop (390×844, 768×1024, 1440×900), light and dark, in Debian's
 * Chromium: the editor is at least 300 px tall, typing renders, hover help and completion details stay inside
 * the window (they live in <body>, not in the editor's clipped box), the output and the docs menu are
 * reachable, the pod diagram fits its pane without cut labels, nothing scrolls sideways and axe finds no
 * serious violation. Choosing an example over an edited spec offers to bring the spec back. Screenshots go to
 * test-results/screenshots/ (kept as CI artifacts).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { afterRender, editorText, replaceSpec, scrollsSideways } from './playground-support.ts';
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
const SCREENSHOTS = join(RESULTS, 'screenshots');
const DEVICES = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'tablet', width: 768, height: 1024 },
  { name: 'laptop', width: 1440, height: 900 },
] as const;
const example = (name: string) => readFileSync(join(REPO, 'examples', `${name}.yaml`), 'utf8');

/** The element's box, and whether it lies inside the window (1 px of rounding allowed). */
async function insideWindow(page: Page, selector: string) {
  return page
    .locator(selector)
    .first()
    .evaluate((element) => {
      const box = element.getBoundingClientRect();
      return {
        box: `${Math.round(box.left)},${Math.round(box.top)} ${Math.round(box.width)}×${Math.round(box.height)}`,
        inside:
          box.width > 0 &&
          box.left >= -1 &&
          box.top >= -1 &&
          box.right <= window.innerWidth + 1 &&
          box.bottom <= window.innerHeight + 1,
        inEditor: element.closest('.ty-editor') !== null,
      };
    });
}

/** Puts the cursor at the end of the first line that contains `text`, scrolled into view, focused. */
async function cursorAfter(page: Page, text: string): Promise<void> {
  const lineNumber = (await editorText(page)).split('\n').findIndex((l) => l.includes(text)) + 1;
  assert.ok(lineNumber > 0, `no line contains ${text}`);
  await page.evaluate((n) => {
    const element = document.querySelector('toolyard-playground') as HTMLElement & {
      editor: {
        state: { doc: { line(n: number): { to: number } } };
        dispatch(tr: unknown): void;
        focus(): void;
      };
    };
    element.editor.dispatch({
      selection: { anchor: element.editor.state.doc.line(n).to },
      scrollIntoView: true,
    });
    element.editor.focus();
  }, lineNumber);
}

describe('the playground on phones, tablets and laptops', { skip }, () => {
  let server: StaticServer;
  let context: BrowserContext;
  let guard: PageGuard;
  const axeSource = readFileSync(join(REPO, 'node_modules/axe-core/axe.min.js'), 'utf8');

  before(async () => {
    await ensureSiteBuilt();
    mkdirSync(SCREENSHOTS, { recursive: true });
    server = await serveStatic();
    context = await launchChromium(mkdtempSync(join(tmpdir(), 'toolyard-chromium-')));
    guard = await guardContext(context);
  });

  after(async () => {
    await context?.close();
    await server?.close();
  });

  const open = async (width: number, height: number, colorScheme: 'light' | 'dark') => {
    const page = await context.newPage();
    await page.setViewportSize({ width, height });
    await page.emulateMedia({ colorScheme });
    await page.goto(`${server.origin}/playground/`);
    await page.locator('toolyard-playground[data-ready="true"]').waitFor();
    return page;
  };

  for (const device of DEVICES) {
    for (const scheme of ['light', 'dark'] as const) {
      const where = `${device.width}×${device.height} ${scheme}`;
      test(`${device.name} (${where}): editor, typing, hover, completion, output, menu, diagram, axe`, async () => {
        const page = await open(device.width, device.height, scheme);
        const editor = (await page.locator('.ty-editor').boundingBox())!;
        assert.ok(editor.height >= 300, `the editor is ${editor.height} px tall`);
        assert.ok(editor.width >= Math.min(300, device.width - 40), `the editor is ${editor.width} px wide`);
        assert.equal(await scrollsSideways(page), false, 'the page scrolls sideways');
        if (device.width < 800) {
          // The docs menu: Starlight's menu button opens the sidebar over the page.
          const menu = page.getByRole('button', { name: 'Menu' });
          assert.ok(await menu.isVisible(), 'no menu button');
          await menu.click();
          await page.locator('#starlight__sidebar a', { hasText: 'Quick start' }).waitFor();
          await menu.click();
        }
        await page.screenshot({ path: join(SCREENSHOTS, `playground-${device.width}-${scheme}.png`) });

        // Hover help on the spec's first field, at the editor's top edge: shown whole, inside the window.
        await page.locator('.ty-editor').scrollIntoViewIfNeeded();
        await page.locator('.cm-line .tok-propertyName', { hasText: 'apiVersion' }).first().hover();
        await page.locator('.ty-hover').waitFor();
        const hover = await insideWindow(page, '.cm-tooltip-hover');
        assert.ok(hover.inside, `the hover help is at ${hover.box}, outside the window`);
        assert.equal(hover.inEditor, false, 'the hover help is inside the clipped editor box');
        await page.mouse.move(1, 1);

        // Completion, its list and the details of the selected field.
        await cursorAfter(page, 'port: 8702');
        await afterRender(page, async () => {
          await page.keyboard.press('Enter');
          await page.keyboard.type('inj');
        });
        await page.locator('.cm-tooltip-autocomplete').waitFor({ timeout: 10_000 });
        const list = await insideWindow(page, '.cm-tooltip-autocomplete');
        assert.ok(list.inside, `the completion list is at ${list.box}, outside the window`);
        assert.equal(list.inEditor, false);
        if ((await page.locator('.cm-completionInfo').count()) > 0) {
          const info = await insideWindow(page, '.cm-completionInfo');
          assert.ok(info.inside, `the completion details are at ${info.box}, outside the window`);
        }
        // The tooltips follow the theme (they live outside the editor, where its colours do not reach).
        const backgrounds = await page.locator('.cm-tooltip').evaluateAll((tips) =>
          tips.map((tip) => {
            const [r = 0, g = 0, b = 0] = (getComputedStyle(tip).backgroundColor.match(/\d+/g) ?? []).map(
              Number,
            );
            return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
          }),
        );
        for (const luminance of backgrounds)
          assert.ok(
            scheme === 'dark' ? luminance < 0.3 : luminance > 0.7,
            `a ${scheme} tooltip has luminance ${luminance}`,
          );
        await page.screenshot({
          path: join(SCREENSHOTS, `playground-completion-${device.width}-${scheme}.png`),
        });
        await page.keyboard.press('Escape');

        // Typing renders: a new name shows up in the output, which the page scrolls to.
        await replaceSpec(page, example('web-infra').replace('name: web-infra', 'name: typed-on-a-device'));
        await page.locator('toolyard-playground[data-state="valid"]').waitFor();
        const output = page.locator('#ty-output-pane');
        await output.getByRole('tab', { name: 'StatefulSet typed-on-a-device', exact: true }).waitFor();
        if (device.width < 960) await page.getByRole('button', { name: 'Go to the output ↓' }).click();
        else assert.equal(await page.getByRole('button', { name: 'Go to the output ↓' }).isVisible(), false);
        const heading = await insideWindow(page, '#ty-output-heading');
        assert.ok(heading.inside, `the output's heading is at ${heading.box} once scrolled to`);

        // The pod diagram fits its pane and stays legible (scaled no smaller than 70 %), no label cut.
        await output.getByRole('tab', { name: 'Pods and egress' }).click();
        const fit = await page.locator('.ty-diagram svg').evaluate((svg) => {
          const pane = svg.closest('.ty-output-pane')!.getBoundingClientRect();
          const box = svg.getBoundingClientRect();
          return {
            scale: box.width / Number(svg.getAttribute('width')),
            overflow: box.right - pane.right,
            cut: Array.from(svg.querySelectorAll('text')).some((t) => t.textContent?.includes('…')),
          };
        });
        assert.ok(fit.overflow <= 1, `the diagram runs ${fit.overflow} px past its pane`);
        assert.ok(fit.scale >= 0.7, `the diagram is scaled to ${fit.scale}`);
        assert.equal(fit.cut, false, 'a label of the diagram is cut');
        assert.equal(await scrollsSideways(page), false, 'the diagram view scrolls sideways');
        await page
          .locator('.ty-diagram')
          .first()
          .screenshot({ path: join(SCREENSHOTS, `playground-diagram-${device.width}-${scheme}.png`) });

        await page.addScriptTag({ content: axeSource });
        assert.deepEqual(await seriousViolations(page), [], where);
        await page.close();
      });
    }
  }

  test('choosing an example over an edited spec offers to bring the spec back', async () => {
    const page = await open(1440, 900, 'light');
    const notice = page.locator('.ty-undo');
    // An example over an example: nothing to bring back.
    await afterRender(page, () => page.locator('#ty-example').selectOption('web-infra'));
    assert.equal(await notice.textContent(), '');
    const edited = `${example('web-infra')}# my edit\n`;
    await replaceSpec(page, edited);
    await afterRender(page, () => page.locator('#ty-example').selectOption('cluster-operator'));
    assert.equal(await editorText(page), example('cluster-operator'));
    assert.match((await notice.textContent()) ?? '', /cluster-operator\.yaml replaced your edited spec/);
    await afterRender(page, () => notice.getByRole('button', { name: 'Undo: bring back my spec' }).click());
    assert.equal(await editorText(page), edited, 'the edited spec is back');
    assert.equal(await notice.textContent(), '', 'the offer is gone once taken');
    // Typing in the example that replaced the spec ends the offer: the edit is the new spec.
    await afterRender(page, () => page.locator('#ty-example').selectOption('polyglot-reviewer'));
    assert.notEqual(await notice.textContent(), '');
    await page.locator('.cm-content').click();
    await afterRender(page, () => page.keyboard.type('#'));
    assert.equal(await notice.textContent(), '');
    await page.close();
  });

  test('no console errors and no request left localhost', () => {
    assert.deepEqual(guard.consoleErrors, []);
    assert.deepEqual(guard.offHostRequests, []);
  });
});
