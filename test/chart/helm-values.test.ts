/**
 * Helm's values merging (test/chart/helm-values.ts), on cases whose outcome Helm documents or its code
 * determines, and the real Helm 3 and Helm 4 giving the same merged values for each (rendered by `toJson .Values`).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { helmValues, mergeMaps } from './helm-values.ts';
import { HELM_MAJORS, type HelmMajor, helmTemplate } from './support.ts';

type Json = Record<string, unknown>;

interface Case {
  readonly name: string;
  readonly defaults: Json;
  readonly files: readonly Json[];
  readonly expected: Json;
}

const CASES: readonly Case[] = [
  {
    name: 'maps merge deeply; a key the user leaves out keeps its default',
    defaults: { a: { b: 1, c: { d: 2, e: 3 } }, f: 'x' },
    files: [{ a: { c: { d: 9 } } }],
    expected: { a: { b: 1, c: { d: 9, e: 3 } }, f: 'x' },
  },
  {
    name: 'null deletes a defaulted key, at any depth',
    defaults: { sc: { runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } } },
    files: [{ sc: { runAsUser: null, seccompProfile: null } }],
    expected: { sc: { runAsGroup: 65532 } },
  },
  {
    name: 'null deletes a whole defaulted map, also at the top level',
    defaults: { a: { b: 1 }, c: 2 },
    files: [{ a: null }],
    expected: { c: 2 },
  },
  {
    name: 'null stays where the defaults have no such key',
    defaults: { a: { b: 1 } },
    files: [{ a: { x: null }, y: null }],
    expected: { a: { b: 1, x: null }, y: null },
  },
  {
    name: 'lists replace, never merge',
    defaults: { list: [1, 2, 3], env: [{ name: 'A', value: '1' }] },
    files: [{ list: [9], env: [] }],
    expected: { list: [9], env: [] },
  },
  {
    name: 'a null inside a list is data, not a deletion',
    defaults: { list: [1] },
    files: [{ list: [null, { k: null }] }],
    expected: { list: [null, { k: null }] },
  },
  {
    name: 'a scalar over a default map, and a map over a default scalar: the user value stands',
    defaults: { a: { b: 1 }, s: 'text' },
    files: [{ a: 'flat', s: { now: 'a map' } }],
    expected: { a: 'flat', s: { now: 'a map' } },
  },
  {
    name: 'files merge in order: later wins, maps merge across files, a later null undoes an earlier map',
    defaults: { a: { b: 1, c: 2 }, d: { e: 1 } },
    files: [
      { a: { b: 5 }, d: { e: 7, f: 8 } },
      { a: { c: 6 }, d: null },
    ],
    expected: { a: { b: 5, c: 6 } },
  },
  {
    name: 'a later map replaces an earlier scalar and merges with the defaults',
    defaults: { a: { b: 1, c: 2 } },
    files: [{ a: 'x' }, { a: { b: 3 } }],
    expected: { a: { b: 3, c: 2 } },
  },
  {
    name: 'empty maps and false/0/"" are values, not deletions',
    defaults: { a: { b: 1 }, on: true, n: 3, s: 'x' },
    files: [{ a: {}, on: false, n: 0, s: '' }],
    expected: { a: { b: 1 }, on: false, n: 0, s: '' },
  },
];

function realHelmValues(helm: HelmMajor, defaults: Json, files: readonly Json[]): Json {
  const dir = join(mkdtempSync(join(tmpdir(), 'toolyard-merge-')), 'merge');
  mkdirSync(join(dir, 'templates'), { recursive: true });
  writeFileSync(join(dir, 'Chart.yaml'), 'apiVersion: v2\nname: merge\nversion: 1.0.0\n');
  // YAML 1.1, as the chart generator writes values.yaml: Go's parser reads unquoted on/n/yes as booleans.
  writeFileSync(join(dir, 'values.yaml'), stringify(defaults, { version: '1.1' }));
  const out = helmTemplate(dir, {
    helm,
    release: 'r',
    namespace: 'n',
    values: [...files],
    printValues: true,
  });
  assert.ok(out.ok, out.stderr);
  return JSON.parse(out.stdout) as Json;
}

describe("Helm's values merging", () => {
  for (const c of CASES) {
    it(c.name, () => {
      const defaults = structuredClone(c.defaults);
      const files = structuredClone(c.files);
      assert.deepEqual(helmValues(defaults, ...files), c.expected, 'test support');
      assert.deepEqual(defaults, c.defaults, 'defaults are not modified');
      assert.deepEqual(files, c.files, 'user files are not modified');
      for (const helm of HELM_MAJORS)
        assert.deepEqual(realHelmValues(helm, c.defaults, c.files), c.expected, `Helm ${helm}`);
    });
  }

  it('mergeMaps is associative over files (as Helm applies them one by one)', () => {
    const a = { x: { y: 1, z: [1] } };
    const b = { x: { z: [2], w: null } };
    const c = { x: { w: { deep: true } } };
    assert.deepEqual(mergeMaps(mergeMaps(a, b), c), mergeMaps(a, mergeMaps(b, c)));
  });
});
