/**
 * `in-depth/*.md`: the repository's own documents (docs/*.md) published as they are, so the site and the
 * repository never tell two stories. A document whose title a hand-written page already uses is titled
 * "… (in depth)", so no two pages of the site share a title.
 */
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { frontmatter, GENERATED_NOTE, write } from './markdown.ts';

export async function repositoryDocs(
  dir: string,
  repo: string,
  takenTitles: ReadonlySet<string>,
): Promise<void> {
  const source = join(repo, 'docs');
  const files = (await readdir(source).catch(() => [] as string[])).filter((f) => f.endsWith('.md')).sort();
  for (const [order, file] of files.entries()) {
    const text = await readFile(join(source, file), 'utf8');
    const heading = /^# (.+)$/m.exec(text);
    const plain = (heading?.[1] ?? basename(file, '.md')).replace(/`/g, '');
    const title = takenTitles.has(plain) ? `${plain} (in depth)` : plain;
    // Links between these documents point at their pages on the site.
    const body = (heading ? text.replace(heading[0], '').trimStart() : text).replace(
      /\]\((?:\.\/)?([\w-]+)\.md(#[^)]*)?\)/g,
      (_, name: string, fragment: string | undefined) => `](/in-depth/${name}/${fragment ?? ''})`,
    );
    const firstParagraph =
      body
        .split(/\n\s*\n/)[0]
        ?.replace(/\s+/g, ' ')
        .replace(/[`*]/g, '') ?? '';
    const description = firstParagraph.split(/(?<=\.)\s/)[0]?.slice(0, 200) ?? title;
    await write(
      join(dir, file),
      [
        frontmatter(title, description, { sidebar: { order: order + 1 } }),
        GENERATED_NOTE(`\`docs/${file}\` in the repository`),
        body,
      ].join(''),
    );
  }
}
