/**
 * Generates everything the site derives from the sources, before `astro build`:
 * - reference pages from the JSON Schema, the commands' own help and the toolchain server's exports;
 * - the examples gallery, each spec rendered by the renderer the CLI runs;
 * - the repository's docs/*.md as "In depth" pages;
 * - `/schema/v1alpha1/agent.json`, the playground bundle and its examples, and the chart repository.
 * Nothing here is retyped documentation: change the source and the page changes. One module per page family
 * in `pages/`.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { checkSpecText } from '../../constructs/src/check-spec-text.ts';
import { bundleForBrowser } from './bundle-playground.ts';
import { buildChartRepository } from './chart-repository.ts';
import { cliReference } from './pages/cli-reference.ts';
import { type ExampleSpec, examplesGallery } from './pages/examples-gallery.ts';
import { write } from './pages/markdown.ts';
import { repositoryDocs } from './pages/repository-docs.ts';
import { specReference } from './pages/spec-reference.ts';
import { toolchainServerReference } from './pages/toolchain-server-reference.ts';
import type { JsonSchema } from './schema-fields.ts';

export { playgroundLink } from './pages/examples-gallery.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const site = join(repo, 'site');
const docs = join(site, 'src/content/docs');
const referenceDir = join(docs, 'reference');
const examplesDir = join(docs, 'examples');
const inDepthDir = join(docs, 'in-depth');
const generatedDir = join(site, 'src/generated');
const publicDir = join(site, 'public');
/** Hand-written sections; everything else under docs/ is generated. */
const HAND_WRITTEN = ['start-here', 'guides'];
/** Repository documents the sidebar lists among the guides (astro.config.mjs), not under "In depth". */
export const IN_MAIN_NAVIGATION: ReadonlySet<string> = new Set(['security-model.md']);

async function readExamples(): Promise<ExampleSpec[]> {
  const dir = join(repo, 'examples');
  const files = (await readdir(dir)).filter((f) => /\.ya?ml$/.test(f)).sort();
  const examples: ExampleSpec[] = [];
  for (const file of files) {
    const text = await readFile(join(dir, file), 'utf8');
    const summary = text
      .split('\n')
      .filter((line) => line.startsWith('#') && !line.includes('yaml-language-server'))
      .map((line) => line.replace(/^#\s?/, ''))
      .join(' ');
    examples.push({ name: basename(file).replace(/\.ya?ml$/, ''), file, text, summary });
  }
  // The playground opens on the first one: the polyglot reviewer shows the most at once.
  return examples.sort(
    (a, b) => Number(b.name === 'polyglot-reviewer') - Number(a.name === 'polyglot-reviewer'),
  );
}

/** Titles of the hand-written pages, which generated pages must not repeat. */
async function handWrittenTitles(): Promise<Set<string>> {
  const titles = new Set<string>();
  for (const section of HAND_WRITTEN) {
    for (const file of await readdir(join(docs, section))) {
      const text = await readFile(join(docs, section, file), 'utf8');
      const front = /^---\n([\s\S]*?)\n---/.exec(text)?.[1];
      const title = front ? (parse(front) as { title?: string }).title : undefined;
      if (title) titles.add(title);
    }
  }
  return titles;
}

export async function generateSite(): Promise<{ notes: string[]; playgroundBytes: number }> {
  const notes: string[] = [];
  // Astro caches rendered Markdown by file content, not by config: a config change (code-block wrapping, say)
  // would otherwise leave unchanged pages rendered the old way.
  await rm(join(site, 'node_modules/.astro'), { recursive: true, force: true });
  await rm(referenceDir, { recursive: true, force: true });
  await rm(examplesDir, { recursive: true, force: true });
  await rm(inDepthDir, { recursive: true, force: true });
  await rm(generatedDir, { recursive: true, force: true });
  for (const dir of ['schema', 'playground', 'charts']) {
    await rm(join(publicDir, dir), { recursive: true, force: true });
  }
  const schemaText = await readFile(join(repo, 'schema/agent.schema.json'), 'utf8');
  const schema = JSON.parse(schemaText) as JsonSchema;
  const examples = await readExamples();
  const specs = examples.flatMap((e) => {
    const checked = checkSpecText(e.text, e.file);
    return checked.ok ? checked.specs.map((s) => s.agent as unknown) : [];
  });

  await specReference(referenceDir, schema, specs);
  await cliReference(referenceDir, repo);
  await toolchainServerReference(referenceDir);
  await examplesGallery(examplesDir, examples);
  await repositoryDocs(inDepthDir, repo, await handWrittenTitles(), IN_MAIN_NAVIGATION);

  await write(join(publicDir, 'schema/v1alpha1/agent.json'), schemaText);
  await write(
    join(generatedDir, 'examples.json'),
    JSON.stringify(examples.map(({ name, file, text }) => ({ name, file, text }))),
  );
  const metafile = await bundleForBrowser({
    entryPoints: { playground: join(site, 'src/playground/main.ts') },
    outdir: join(publicDir, 'playground'),
  });
  const playgroundBytes = Object.values(metafile.outputs).reduce((n, o) => n + o.bytes, 0);
  // Kept out of the published site; bench/preview reads it to say what the bundle is made of.
  await write(join(generatedDir, 'playground-metafile.json'), JSON.stringify(metafile));
  notes.push(...(await buildChartRepository({ repo, outdir: join(publicDir, 'charts'), examples })));
  return { notes, playgroundBytes };
}

if (import.meta.main) {
  const { notes: found, playgroundBytes } = await generateSite();
  console.log(
    `site: generated reference, examples and playground (${(playgroundBytes / 1024).toFixed(0)} KiB JS)`,
  );
  for (const note of found) console.log(`site: note: ${note}`);
}
