/**
 * The README's first screen (issue 31): its two command lines first, exactly, then a "Docs" block that points
 * at the quick start, the spec reference, the playground and how to browse the site from the clone — and every
 * place it points at exists (a file of the repository, or a page the site builds from one).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../support/golden.ts';

const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

/** Site paths → the source each page is built from. */
const SITE_PAGES: Readonly<Record<string, string>> = {
  '/start-here/quick-start/': 'site/src/content/docs/start-here/quick-start.md',
  '/reference/spec/': 'site/scripts/pages/spec-reference.ts',
  '/playground/': 'site/src/pages/playground.astro',
};

describe('the README', () => {
  const lines = readme.split('\n');
  const docsStart = lines.findIndex((l) => l.startsWith('**Docs**'));
  // The heading line, a blank line, then the list up to the next blank line.
  const docsEnd = lines.findIndex((l, i) => i > docsStart + 1 && l.trim() === '');
  const docs = lines.slice(docsStart, docsEnd).join('\n');

  it('starts with its two command lines, then the Docs block, before anything else', () => {
    assert.equal(lines[0], '# toolyard');
    assert.equal(lines[2], '```sh');
    assert.match(
      lines[3]!,
      /^npx --yes --package=node@\S+ -- npm install && npx toolyard synth examples\/polyglot-reviewer\.yaml -o dist /,
    );
    assert.match(lines[4]!, /^bash \.ci\/run /);
    assert.equal(lines[5], '```');
    assert.equal(docsStart, 7, 'the Docs block follows the commands');
  });

  it('points at the quick start, the spec reference, the playground and the local site', () => {
    for (const what of ['Quick start', 'Spec reference', 'Playground', 'Browse the docs locally'])
      assert.ok(docs.includes(what), what);
    for (const script of ['site:dev', 'site:build']) {
      assert.ok(docs.includes(`npm run ${script}`), script);
      assert.ok(pkg.scripts[script], `package.json has no ${script}`);
    }
  });

  it('every link of the block resolves: repository files exist, site pages have their source', () => {
    const links = [...docs.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!);
    assert.ok(links.length >= 5, links.join(', '));
    for (const link of links) {
      if (/^https:\/\/toolyard\.dev/.test(link)) {
        const path = link.replace('https://toolyard.dev', '') || '/';
        if (path === '/') continue;
        assert.ok(SITE_PAGES[path], `${link}: no page of the site`);
        assert.ok(existsSync(join(REPO_ROOT, SITE_PAGES[path]!)), `${link}: ${SITE_PAGES[path]} is missing`);
      } else assert.ok(existsSync(join(REPO_ROOT, link)), `${link} does not exist`);
    }
    for (const path of ['/reference/spec/', '/playground/']) assert.ok(docs.includes(path), path);
  });
});
