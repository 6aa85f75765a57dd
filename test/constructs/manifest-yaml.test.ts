/**
 * The specialised manifest writer is byte-identical to cdk8s's `Yaml.stringify` (the `yaml` package, YAML 1.1,
 * `lineWidth: 0`): over every example's and every golden file's objects, over generated specs, and over random
 * JSON trees built from the characters and words YAML treats specially. Each comparison also counts how often
 * the fast path was taken, so a writer that always gave up (and let the general one answer) would fail.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Yaml } from 'cdk8s';
import { parseAllDocuments } from 'yaml';
import { checkSpecText } from '../../constructs/src/check-spec-text.ts';
import { manifestYaml } from '../../constructs/src/manifest-yaml.ts';
import { renderAgent, toYamlDocuments } from '../../constructs/src/render.ts';
import { EXAMPLES_DIR, exampleFiles, GOLDEN_DIR, goldenFilesOnDisk, REPO_ROOT } from '../support/golden.ts';
import { generateSpec, Random } from '../support/spec-generator.ts';

/** Asserts the writer's bytes equal cdk8s's for each object; returns how many it wrote itself. */
function assertSameBytes(objects: readonly object[], where: string): number {
  let written = 0;
  for (const [index, object] of objects.entries()) {
    const general = Yaml.stringify(object);
    const fast = manifestYaml(object);
    if (fast !== undefined) {
      written++;
      assert.equal(fast, general, `${where}, object ${index}`);
    }
  }
  return written;
}

describe('manifestYaml', () => {
  it('writes every object of every example byte for byte as cdk8s does, itself', () => {
    for (const example of exampleFiles()) {
      const result = checkSpecText(readFileSync(join(REPO_ROOT, example), 'utf8'), example);
      assert.ok(result.ok, example);
      for (const spec of result.specs) {
        const { objects } = renderAgent(spec.agent, spec.plan);
        assert.equal(
          assertSameBytes(objects, example),
          objects.length,
          `${example}: every object on the fast path`,
        );
      }
    }
    assert.ok(exampleFiles().length >= 3, `examples in ${EXAMPLES_DIR}`);
  });

  it('writes every document of every golden file back to the same bytes', () => {
    const goldens = goldenFilesOnDisk();
    assert.ok(goldens.length >= 3);
    for (const name of goldens) {
      const text = readFileSync(join(GOLDEN_DIR, name), 'utf8');
      const objects = parseAllDocuments(text, { version: '1.1' }).map((doc) => doc.toJS() as object);
      assert.equal(
        assertSameBytes(objects, name),
        objects.length,
        `${name}: every document on the fast path`,
      );
      assert.equal(objects.map((o) => manifestYaml(o)).join('---\n'), text, name);
    }
  });

  it('is byte-identical over 150 generated specs (toYamlDocuments as synth writes it)', () => {
    let objects = 0;
    let written = 0;
    for (let seed = 1; seed <= 150; seed++) {
      const spec = generateSpec(seed);
      const rendered = renderAgent(spec).objects;
      objects += rendered.length;
      written += assertSameBytes(rendered, `seed ${seed}`);
      assert.equal(toYamlDocuments(rendered), Yaml.stringify(...rendered), `seed ${seed}`);
    }
    assert.equal(written, objects, 'every generated object on the fast path');
  });

  it('is byte-identical over random JSON trees of YAML-sensitive text, or gives up', () => {
    const random = new Random(Number(process.env['MANIFEST_YAML_SEED'] ?? 20261124));
    const pieces = [
      'a',
      'b',
      'x',
      'name',
      ' ',
      '  ',
      '\n',
      '\n\n',
      '\t',
      ':',
      ': ',
      ' #',
      '#',
      '-',
      '- ',
      '?',
      '? ',
      '|',
      '>',
      '!',
      '&',
      '*',
      '%',
      '@',
      '`',
      '"',
      "'",
      ',',
      '[',
      ']',
      '{',
      '}',
      '---',
      '...',
      '0',
      '1',
      '12',
      '0x1F',
      '0b1',
      '0o7',
      '07',
      '1.5',
      '1e3',
      '.inf',
      '.nan',
      '~',
      'null',
      'Null',
      'yes',
      'No',
      'on',
      'OFF',
      'y',
      'n',
      'true',
      'False',
      '<<',
      '2026-11-24',
      '12:30',
      '1_000',
      '+1',
      'é',
      '😀',
      '\u2028',
      '\r',
      '\u0007',
      '\\',
      '\\n',
      '=',
      '/',
      '.',
      'a b',
      'http://x/y',
      '$VAR',
      '{{ .Values.x }}',
      '\u00a0',
      '\ud800',
    ];
    const text = (): string => Array.from({ length: random.int(0, 5) }, () => random.pick(pieces)).join('');
    const value = (depth: number): unknown => {
      const kind = random.int(0, depth > 3 ? 4 : 7);
      switch (kind) {
        case 0:
        case 1:
        case 2:
          return text();
        case 3:
          return random.pick([0, 1, -1, 8080, 2 ** 40, 1.5, -0, null, true, false]);
        case 4:
          return random.bool(0.1) ? undefined : text();
        case 5:
          return Array.from({ length: random.int(0, 3) }, () => value(depth + 1));
        default: {
          const object: Record<string, unknown> = {};
          for (let i = random.int(0, 4); i > 0; i--) object[text()] = value(depth + 1);
          return object;
        }
      }
    };
    let written = 0;
    const trees = Number(process.env['MANIFEST_YAML_TREES'] ?? 4000);
    for (let i = 0; i < trees; i++) {
      const tree: Record<string, unknown> = {};
      for (let k = random.int(1, 4); k > 0; k--) tree[text() || 'k'] = value(0);
      written += assertSameBytes([tree], `tree ${i}: ${JSON.stringify(tree)}`);
    }
    assert.ok(written > trees / 4, `the fast path wrote ${written} of ${trees} trees itself`);
  });

  it('gives up on what the yaml writer would write specially: shared objects, floats, control characters', () => {
    const shared = { a: 1 };
    assert.equal(manifestYaml({ x: shared, y: shared }), undefined, 'an object seen twice is an alias');
    assert.equal(
      manifestYaml({ x: { a: 1 }, y: { a: 1 } }),
      'x:\n  a: 1\n"y":\n  a: 1\n',
      'equal, not shared',
    );
    assert.equal(manifestYaml({ x: 1.5 }), undefined);
    assert.equal(manifestYaml({ x: 'bell\u0007' }), undefined);
    assert.equal(manifestYaml({ x: undefined }), undefined);
    assert.equal(manifestYaml({ x: 'tail\n  ' }), undefined, 'trailing spaces after the last newline');
    assert.equal(manifestYaml({ x: 'plain' }), 'x: plain\n');
  });
});
