/**
 * The docs site's pages as a new user meets them, checked on the sources (no site build): one page per topic,
 * the review-and-fleet guide and the security model in the main navigation, a quick start that points at
 * chart, diff and the fleet site, and a Helm guide whose `toolyard chart --package` output is what the command
 * prints.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { IN_MAIN_NAVIGATION } from '../../site/scripts/generate.ts';
import { repositoryDocs } from '../../site/scripts/pages/repository-docs.ts';
import { REPO_ROOT } from '../support/golden.ts';

const DOCS = join(REPO_ROOT, 'site/src/content/docs');
const config = readFileSync(join(REPO_ROOT, 'site/astro.config.mjs'), 'utf8');
const temp = mkdtempSync(join(tmpdir(), 'toolyard-site-pages-'));
after(() => rmSync(temp, { recursive: true, force: true }));

function handWritten(section: string): { slug: string; title: string; text: string }[] {
  return readdirSync(join(DOCS, section))
    .filter((f) => f.endsWith('.md'))
    .map((file) => {
      const text = readFileSync(join(DOCS, section, file), 'utf8');
      const front = parse(/^---\n([\s\S]*?)\n---/.exec(text)![1]!) as { title: string };
      return { slug: `${section}/${file.replace(/\.md$/, '')}`, title: front.title, text };
    });
}
const repositoryTitles = readdirSync(join(REPO_ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((file) => ({
    file,
    title: /^# (.+)$/m.exec(readFileSync(join(REPO_ROOT, 'docs', file), 'utf8'))![1]!.replace(/`/g, ''),
  }));
const pages = [...handWritten('start-here'), ...handWritten('guides')];
/** The slugs the sidebar's hand-listed sections name. */
const listed = [...config.matchAll(/slug: '([^']+)'/g)].map((m) => m[1]!);

describe('the docs site’s pages', () => {
  it('one page per topic: no title twice, not even as "… (in depth)"', () => {
    const titles = [...pages.map((p) => p.title), ...repositoryTitles.map((d) => d.title)].map((t) =>
      t.replace(/ \(in depth\)$/, '').toLowerCase(),
    );
    assert.deepEqual(
      titles.filter((t, i) => titles.indexOf(t) !== i),
      [],
    );
  });

  it('the generator refuses a repository document titled like a hand-written page', async () => {
    const repo = join(temp, 'repo');
    mkdirSync(join(repo, 'docs'), { recursive: true });
    writeFileSync(join(repo, 'docs', 'security.md'), '# Security model\n\nText.\n');
    await assert.rejects(
      repositoryDocs(join(temp, 'out'), repo, new Set(['Security model'])),
      /docs\/security\.md and a hand-written page of the site are both titled "Security model": one page per topic/,
    );
  });

  it('every guide is in the main navigation, Review and fleet and the security model among them', () => {
    for (const page of pages)
      if (page.slug.startsWith('guides/')) assert.ok(listed.includes(page.slug), page.slug);
    assert.ok(listed.includes('guides/review-and-fleet'));
    for (const file of IN_MAIN_NAVIGATION)
      assert.ok(listed.includes(`in-depth/${file.replace(/\.md$/, '')}`), `${file} is not in the sidebar`);
    const guides = config.slice(config.indexOf("label: 'Guides'"), config.indexOf("label: 'Reference'"));
    assert.match(guides, /slug: 'in-depth\/security-model', label: 'Security model'/);
  });

  it('the Review and fleet guide covers validate --strict, diff in CI, the fleet site and charts', () => {
    const guide = pages.find((p) => p.slug === 'guides/review-and-fleet')!.text;
    for (const command of [
      'npx toolyard validate --strict',
      'npx toolyard diff --base',
      '--format markdown',
      'npx toolyard site',
      'npx toolyard chart',
    ])
      assert.ok(guide.includes(command), command);
    assert.match(guide, /\(\/in-depth\/fleet\/#ci-recipes\)/);
  });

  it('the quick start’s Next links chart, diff and the fleet site', () => {
    const quickStart = pages.find((p) => p.slug === 'start-here/quick-start')!.text;
    const next = quickStart.slice(quickStart.indexOf('## Next'));
    for (const link of ['/guides/helm-chart/', '/guides/review-and-fleet/'])
      assert.ok(next.includes(link), link);
    for (const word of ['toolyard chart --package', 'toolyard diff', 'toolyard site'])
      assert.ok(next.includes(word), word);
  });

  it('the Helm guide’s chart --package example prints what the guide shows', () => {
    const guide = pages.find((p) => p.slug === 'guides/helm-chart')!.text;
    const command = /^(npx toolyard chart .* --package.*)$/m.exec(guide)?.[1];
    assert.ok(command, 'no toolyard chart --package example');
    const shown = /```sh\nnpx toolyard chart [^\n]*\n```\n\n```text\n([\s\S]*?)```/.exec(guide)?.[1];
    assert.ok(shown, 'no output shown after the example');
    const cwd = join(temp, 'user');
    mkdirSync(cwd);
    symlinkSync(join(REPO_ROOT, 'examples'), join(cwd, 'examples'));
    const [, ...args] = command.replace(/^npx /, '').split(/\s+/);
    const run = spawnSync(
      join(REPO_ROOT, 'node_modules', '.bin', 'node'),
      [join(REPO_ROOT, 'cli', 'src', 'main.ts'), ...args],
      { cwd, encoding: 'utf8' },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, shown);
    const files = readdirSync(join(cwd, 'my-charts')).sort();
    for (const file of files)
      assert.ok(guide.includes(`\`${file.replace(/\/$/, '')}`), `${file} not in the guide`);
  });
});
