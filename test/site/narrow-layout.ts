/**
 * What makes a page unreadable on a phone, measured in the browser: an element that reaches past the viewport
 * (unless it sits in a scroll region that itself fits: a diagram at its natural size), and a word in a table
 * cell that the cell breaks over lines or lets spill out (the cell is narrower than the word). Words are
 * measured as the browser laid them out (a Range per word), so fonts, `<code>` and lists count as they render.
 */
import type { Page } from 'playwright-core';

export interface NarrowLayoutProblems {
  /** Elements wider than the viewport or past its right edge, outside scroll regions. */
  readonly wide: readonly string[];
  /** Words of table cells split over lines or wider than their cell. */
  readonly brokenWords: readonly string[];
}

export function narrowLayoutProblems(page: Page): Promise<NarrowLayoutProblems> {
  return page.evaluate(() => {
    const viewport = document.documentElement.clientWidth;
    const describe = (e: Element) =>
      `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.classList.length > 0 ? `.${Array.from(e.classList).join('.')}` : ''}`;
    /** Hidden for the eye: a visually-hidden header row (1 px, clipped) and everything in it. */
    const visuallyHidden = (e: Element): boolean => {
      for (let at: Element | null = e; at; at = at.parentElement) {
        const rect = at.getBoundingClientRect();
        if (rect.width <= 2 && rect.height <= 2) return true;
        if (!at.checkVisibility()) return true;
      }
      return false;
    };
    /** The nearest ancestor that scrolls sideways, if any. */
    const scroller = (e: Element): Element | undefined => {
      for (let at: Element | null = e; at && at !== document.body; at = at.parentElement) {
        const overflow = getComputedStyle(at).overflowX;
        if (overflow === 'auto' || overflow === 'scroll') return at;
      }
      return undefined;
    };
    const wide: string[] = [];
    for (const e of Array.from(document.body.querySelectorAll('*'))) {
      const rect = e.getBoundingClientRect();
      if (rect.right <= viewport + 0.5 && rect.width <= viewport + 0.5) continue;
      if (visuallyHidden(e)) continue;
      const region = e.parentElement ? scroller(e.parentElement) : undefined;
      if (region && region.getBoundingClientRect().right <= viewport + 0.5) continue;
      wide.push(
        `${describe(e)} is ${Math.round(rect.width)} px wide, right edge at ${Math.round(rect.right)} (viewport ${viewport})`,
      );
    }
    const describeCell = (cell: Element) => {
      const table = cell.closest('table');
      const column = (cell as HTMLTableCellElement).cellIndex + 1;
      const header = table?.querySelector('thead tr')?.children[column - 1]?.textContent?.trim();
      return `${table ? describe(table) : 'a table'}, column ${column}${header ? ` (${header})` : ''}`;
    };
    const brokenWords: string[] = [];
    // The widest a word can be shown without scrolling: the page's content box (main's, without padding).
    const main = document.querySelector('main') ?? document.body;
    const mainStyle = getComputedStyle(main);
    const pageWidth =
      Math.min(main.clientWidth, viewport) -
      Number.parseFloat(mainStyle.paddingLeft) -
      Number.parseFloat(mainStyle.paddingRight);
    for (const cell of Array.from(document.querySelectorAll('td, th'))) {
      if (visuallyHidden(cell)) continue;
      const style = getComputedStyle(cell);
      const room =
        cell.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (visuallyHidden(node.parentElement!)) continue;
        const text = node.nodeValue ?? '';
        for (const match of text.matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0);
          const lines = new Set(rects.map((r) => Math.round(r.top))).size;
          if (lines > 1)
            brokenWords.push(`"${match[0]}" is split over ${lines} lines in ${describeCell(cell)}`);
          // The word's width as rendered: the sum of its pieces when it was split.
          const width = rects.reduce((sum, r) => sum + r.width, 0);
          if (width <= room + 0.5) continue;
          // Longer than the page itself: it may scroll (in its cell), never be cut into pieces.
          const scrolls =
            scroller(node.parentElement!) !== undefined &&
            (cell.contains(scroller(node.parentElement!)!) || scroller(node.parentElement!) === cell);
          if (width > pageWidth && scrolls) continue;
          brokenWords.push(
            `"${match[0]}" is ${Math.round(width)} px wide; ${describeCell(cell)} has ${Math.round(room)} px`,
          );
        }
      }
    }
    return { wide: [...new Set(wide)], brokenWords: [...new Set(brokenWords)] };
  });
}
