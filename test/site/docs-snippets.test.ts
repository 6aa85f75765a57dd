/**
 * Code in the docs is real: a block titled with a repository path is that file, byte for byte; YAML fragments
 * of a spec validate against the schema. (The shell commands run literally in test/docs/commands.test.ts.)
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { checkSpecText } from '../../constructs/src/check-spec-text.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = join(REPO, 'site/src/content/docs');
/** Generated at build time from the sources themselves; only hand-written pages are checked here. */
const GENERATED = ['reference', 'examples'];

interface Block {
  readonly page: string;
  readonly lang: string;
  readonly meta: string;
  readonly body: string;
}

function handWrittenPages(dir = DOCS): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return dir === DOCS && GENERATED.includes(entry.name) ? [] : handWrittenPages(path);
    return /\.mdx?$/.test(entry.name) ? [path] : [];
  });
}

function codeBlocks(): Block[] {
  return handWrittenPages().flatMap((path) =>
    [...readFileSync(path, 'utf8').matchAll(/^```(\w+)([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => ({
      page: relative(DOCS, path),
      lang: m[1]!,
      meta: m[2]!.trim(),
      body: m[3]!,
    })),
  );
}

test('a code block titled with a repository path shows that file exactly', () => {
  const titled = codeBlocks().filter((b) => /title="[^"]+"/.test(b.meta));
  assert.ok(titled.length >= 2, 'expected the GitOps guide to show cdk8s.yaml and the cdk8s app');
  for (const block of titled) {
    const file = /title="([^"]+)"/.exec(block.meta)![1]!;
    assert.equal(
      block.body,
      readFileSync(join(REPO, file), 'utf8'),
      `${block.page}: ${file} differs from the file`,
    );
  }
});

test('YAML fragments of a spec in the guides validate against the schema', () => {
  const base = parse(readFileSync(join(REPO, 'examples/polyglot-reviewer.yaml'), 'utf8')) as {
    spec: Record<string, unknown>;
  };
  const fragments = codeBlocks().filter(
    (b) => b.lang === 'yaml' && /^(toolchains|backends|gateways):/.test(b.body),
  );
  assert.ok(fragments.length >= 1);
  for (const fragment of fragments) {
    const replaced = parse(fragment.body) as Record<string, unknown>;
    // A fragment that brings its own toolchains leaves the example's caches without users: drop them.
    const workspace = base.spec['workspace'] as Record<string, unknown> | undefined;
    const ownCaches = replaced['toolchains'] && workspace ? { workspace: { ...workspace, caches: [] } } : {};
    // One that brings its own backends leaves the example's model pricing for backends it no longer has.
    const observability = base.spec['observability'] as { metrics?: Record<string, unknown> } | undefined;
    const ownPricing =
      replaced['backends'] && observability?.metrics
        ? { observability: { ...observability, metrics: { ...observability.metrics, pricing: {} } } }
        : {};
    const spec = { ...base, spec: { ...base.spec, ...ownCaches, ...ownPricing, ...replaced } };
    const result = checkSpecText(stringify(spec), fragment.page);
    assert.ok(result.ok, `${fragment.page}: ${JSON.stringify(!result.ok && result.errors)}`);
  }
});
