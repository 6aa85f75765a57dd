/**
 * The renderer writes the broker's config.json as Go's encoding/json does (constructs/src/go-json.ts), so that a
 * chart can build the same bytes with `mustToPrettyJson`: proved against the real Helm 3 and Helm 4 on data
 * that tells the two apart from `JSON.stringify` (key order by code point, `<>&` and U+2028/2029 escaped).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compareCodePoints, goPrettyJson } from '../../constructs/src/go-json.ts';
import { HELM_MAJORS, runHelm } from './support.ts';

const DATA = {
  z: 1,
  a: [],
  é: {},
  Z: '<b>&amp;\u2028\u2029"\\\t\n\r\b\f\u0001 😀 ünï',
  '😀': [true, false, null, -5, 0, 1.5, 443, 65535],
  '\uff5e': 'a BMP character above the surrogates: after é, before 😀',
  ab: { b: [{ y: 1, x: 2 }], a: '', 'a-b': 'x', a_b: 'y', A: 'z' },
  'https://x/?a=1&b=<2>': ['}}', '{{ .Values }}'],
};

function helmPrettyJson(major: 3 | 4, data: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolyard-go-json-'));
  mkdirSync(join(dir, 'templates'));
  writeFileSync(join(dir, 'Chart.yaml'), 'apiVersion: v2\nname: gojson\nversion: 0.1.0\n');
  writeFileSync(join(dir, 'templates', 'json.yaml'), '{{ .Values.data | mustToPrettyJson }}\n');
  writeFileSync(join(dir, 'values.json'), JSON.stringify({ data }));
  const out = runHelm(major, [
    'template',
    'x',
    dir,
    '-f',
    join(dir, 'values.json'),
    '--show-only',
    'templates/json.yaml',
  ]);
  assert.ok(out.ok, out.stderr);
  return out.stdout.replace(/^---\n# Source: [^\n]*\n/, '').replace(/\n$/, '');
}

describe('goPrettyJson writes JSON as Go (Helm) does', () => {
  for (const major of HELM_MAJORS)
    it(`equals Helm ${major}'s mustToPrettyJson byte for byte`, () => {
      const helm = helmPrettyJson(major, DATA);
      assert.equal(goPrettyJson(DATA), helm);
      // The control: JSON.stringify's text is not Go's.
      assert.notEqual(JSON.stringify(DATA, null, 2), helm);
    });

  it('sorts keys by code point (= UTF-8 bytes), not by UTF-16 unit', () => {
    assert.ok(compareCodePoints('\uff5e', '😀') < 0);
    assert.ok('\uff5e' > '😀', 'the control: UTF-16 order says otherwise');
    assert.ok(compareCodePoints('a', 'ab') < 0 && compareCodePoints('b', 'ab') > 0);
    assert.equal(compareCodePoints('x', 'x'), 0);
  });

  it('refuses what has no JSON form instead of writing something else', () => {
    assert.throws(() => goPrettyJson({ a: Number.NaN }), /\$\.a: NaN has no JSON form/);
    assert.throws(() => goPrettyJson({ a: [() => 1] } as never), /\$\.a\[0\]: a function/);
  });
});
