/** Markdown helpers shared by the generated pages. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { stringify } from 'yaml';

export async function write(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
}

/** Escapes HTML-significant characters in Markdown prose, leaving `code spans` untouched. */
export function prose(text: string): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/</g, '&lt;').replace(/>/g, '&gt;')))
    .join('');
}

/** Prose for one table cell: no line breaks, escaped pipes. */
export function cell(text: string): string {
  return prose(text.replace(/\n/g, ' ').replace(/\|/g, '\\|'));
}

export function frontmatter(title: string, description: string, extra: Record<string, unknown> = {}): string {
  return `---\n${stringify({ title, description, ...extra }, { lineWidth: 0 })}---\n\n`;
}

export const GENERATED_NOTE = (source: string) =>
  `:::note[Generated]\nThis page is generated from ${source} at build time; edit the source, not this page.\n:::\n\n`;

export function yamlValue(value: unknown): string {
  return stringify(value, { lineWidth: 0 }).trimEnd();
}

/** Starlight's heading ids (github-slugger): lowercase, punctuation other than "-" and "_" dropped. */
export function anchor(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}
