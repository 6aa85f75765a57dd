/** Driving `<toolyard-playground>` from the browser tests and the benchmark. */
import type { Page } from 'playwright-core';

export async function editorText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const element = document.querySelector('toolyard-playground') as HTMLElement & {
      editor: { state: { doc: { toString(): string } } };
    };
    return element.editor.state.doc.toString();
  });
}

/** Runs an action and waits until the playground has rendered the result. */
export async function afterRender(page: Page, action: () => Promise<unknown>): Promise<void> {
  const revision = Number((await page.locator('toolyard-playground').getAttribute('data-revision')) ?? 0);
  await action();
  await page.waitForFunction(
    (before) => Number(document.querySelector('toolyard-playground')?.getAttribute('data-revision')) > before,
    revision,
  );
}

/** Replaces the editor's text the way a person does: select all, then type (insertText) over it. */
export async function replaceSpec(page: Page, text: string): Promise<void> {
  await afterRender(page, async () => {
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+a');
    await page.keyboard.insertText(text);
  });
}

export async function showObject(page: Page, label: string): Promise<string> {
  await page.getByRole('tab', { name: 'Manifests' }).click();
  await page.getByRole('tab', { name: label, exact: true }).click();
  return (await page.locator('#ty-object-panel pre').textContent()) ?? '';
}

/** The 1-based line of the editor's cursor. */
export async function cursorLine(page: Page): Promise<number> {
  return page.evaluate(() => {
    const element = document.querySelector('toolyard-playground') as HTMLElement & {
      editor: {
        state: { selection: { main: { head: number } }; doc: { lineAt(pos: number): { number: number } } };
      };
    };
    const state = element.editor.state;
    return state.doc.lineAt(state.selection.main.head).number;
  });
}

/** Whether the page scrolls sideways (a layout wider than the window). */
export async function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
}
