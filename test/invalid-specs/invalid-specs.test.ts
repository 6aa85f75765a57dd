/**
 * The invalid-spec corpus: each `*.yaml` here states, in its leading comments, every error toolyard must
 * report for it, exactly (line, JSON path, message and, where given, the hint):
 *
 *   # expect: 15: /spec/toolchains/0/port: must be <= 65535
 *   # expect: 6: not YAML: …                 (a problem of the text, not of a field: no path)
 *   # expect: 0: empty file                  (line 0: the file as a whole)
 *   #   hint: did you mean "handles"?        (optional; belongs to the expect above it)
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readSpecs } from '../../cli/src/read-specs.ts';
import { checkSpecText } from '../../constructs/src/check-spec-text.ts';
import type { SpecError } from '../../schema/src/load.ts';

const DIR = fileURLToPath(new URL('.', import.meta.url));

interface Expected {
  line: number;
  path: string;
  message: string;
  hint?: string;
}

function parseExpectations(text: string): Expected[] {
  const expected: Expected[] = [];
  for (const line of text.split('\n')) {
    const expect = /^# expect: (\d+): (?:(\/\S*): )?(.*)$/.exec(line);
    if (expect) {
      expected.push({ line: Number(expect[1]), path: expect[2] ?? '', message: expect[3]! });
      continue;
    }
    const hint = /^# {3}hint: (.*)$/.exec(line);
    if (hint) {
      const last = expected.at(-1);
      assert.ok(last, 'a hint line must follow an expect line');
      last.hint = hint[1]!;
    }
  }
  return expected;
}

/** The reported errors, shaped like the expectations (hints only compared where the corpus states one). */
function actual(errors: readonly SpecError[], expected: readonly Expected[]): Expected[] {
  return errors.map((error, index) => ({
    line: error.line,
    path: error.path,
    message: error.message,
    ...(expected[index]?.hint !== undefined && error.hint !== undefined ? { hint: error.hint } : {}),
  }));
}

const files = readdirSync(DIR)
  .filter((file) => file.endsWith('.yaml'))
  .sort();

describe('invalid-spec corpus', () => {
  it('holds at least 20 specs, each stating its expected errors', () => {
    assert.ok(files.length >= 20, `only ${files.length} files`);
    for (const file of files)
      assert.ok(
        parseExpectations(readFileSync(join(DIR, file), 'utf8')).length > 0,
        `${file} states no expectation`,
      );
  });

  for (const file of files) {
    it(file, () => {
      const text = readFileSync(join(DIR, file), 'utf8');
      const expected = parseExpectations(text);
      const result = checkSpecText(text, file);
      assert.equal(result.ok, false, `${file} was accepted`);
      if (result.ok) return;
      assert.ok(result.errors.every((e) => e.file === file));
      assert.deepEqual(actual(result.errors, expected), expected);
    });
  }

  it('duplicate-agents/: the same agent in two files is reported at the second', async () => {
    const dir = join(DIR, 'duplicate-agents');
    const first = join(dir, 'first.yaml');
    const second = join(dir, 'second.yaml');
    for (const file of [first, second])
      assert.equal(checkSpecText(readFileSync(file, 'utf8'), file).ok, true);
    const { errors } = await readSpecs([first, second]);
    const expected = parseExpectations(readFileSync(second, 'utf8'));
    assert.deepEqual(
      errors.map((e) => ({ file: e.file, line: e.line, path: e.path, message: e.message, hint: e.hint })),
      expected.map((e) => ({ file: second, ...e, message: e.message.replace('<first>', first) })),
    );
  });
});

describe('parseExpectations', () => {
  it('reads expects and attaches hints to the expect above', () => {
    assert.deepEqual(
      parseExpectations(
        '# about\n# expect: 3: /a/b: bad: really\n#   hint: fix it\n# expect: 4: /: x\nkind: A',
      ),
      [
        { line: 3, path: '/a/b', message: 'bad: really', hint: 'fix it' },
        { line: 4, path: '/', message: 'x' },
      ],
    );
  });
});
