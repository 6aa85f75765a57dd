/**
 * A docs page that carries a table generated from code, between `<!-- <name>:begin … -->` and `<!-- <name>:end -->`
 * markers: the region as written, and both sides normalised cell by cell (the formatter pads Markdown tables).
 */
import { readFileSync } from 'node:fs';

/** The text between the page's `<name>` markers, or undefined when the page has none. */
export function markedRegion(page: string, name: string): string | undefined {
  const text = readFileSync(page, 'utf8');
  const begin = text.indexOf('\n', text.indexOf(`<!-- ${name}:begin`));
  const end = text.indexOf(`<!-- ${name}:end -->`);
  return begin > 0 && end > begin ? text.slice(begin + 1, end) : undefined;
}

/** A Markdown table with every cell trimmed and every separator cell `---`. */
export function normalizeMarkdownTable(markdown: string): string {
  return markdown
    .trim()
    .split('\n')
    .map((line) =>
      line.startsWith('|')
        ? line
            .split('|')
            .map((cell) => cell.trim().replace(/^-{3,}$/, '---'))
            .join('|')
        : line,
    )
    .join('\n');
}
