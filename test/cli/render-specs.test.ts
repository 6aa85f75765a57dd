/**
 * `renderSpecs` checks and renders file by file (a file's parsed YAML is garbage once it is done), yet reports
 * exactly what checking every file first and rendering afterwards reports (`readSpecs` + `renderCheckedSpecs`):
 * the same problems in the same order, warnings only when everything is valid, the same lines.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readSpecs } from '../../cli/src/read-specs.ts';
import { renderCheckedSpecs, renderSpecs } from '../../cli/src/render-specs.ts';
import { REPO_ROOT } from '../support/golden.ts';
import { captureIo } from './capture-io.ts';

const temp = mkdtempSync(join(tmpdir(), 'toolyard-render-specs-'));
after(() => rmSync(temp, { recursive: true, force: true }));
const example = (name: string) => readFileSync(join(REPO_ROOT, 'examples', `${name}.yaml`), 'utf8');
const renamed = (text: string, name: string) => text.replace(/^ {2}name: \S+$/m, `  name: ${name}`);
/** cluster-operator with the broker off: its helm sidecar shares egress, an unacknowledged warning. */
const warned = (name: string) =>
  `${renamed(example('cluster-operator'), name)}  broker: { enabled: false }\n`;

async function both(paths: string[]) {
  const streamed = captureIo();
  const streamedResult = await renderSpecs(paths, streamed);
  const reference = captureIo();
  const referenceResult = renderCheckedSpecs(await readSpecs(paths), reference);
  return { streamed, streamedResult, reference, referenceResult };
}

describe('renderSpecs, file by file', () => {
  it('reports read, check and duplicate-name problems in the same order and words, and no warnings', async () => {
    const dir = join(temp, 'bad');
    mkdirSync(dir);
    writeFileSync(join(dir, 'a.yaml'), warned('alpha'));
    writeFileSync(
      join(dir, 'b.yaml'),
      readFileSync(join(REPO_ROOT, 'test', 'invalid-specs', 'port-collision.yaml')),
    );
    writeFileSync(join(dir, 'c.yaml'), renamed(example('web-infra'), 'alpha'));
    writeFileSync(
      join(dir, 'd.yaml'),
      readFileSync(join(REPO_ROOT, 'test', 'invalid-specs', 'bad-yaml.yaml')),
    );
    const { streamed, streamedResult, reference, referenceResult } = await both([
      dir,
      join(temp, 'missing.yaml'),
    ]);
    assert.equal(streamedResult, undefined);
    assert.equal(referenceResult, undefined);
    assert.deepEqual(streamed.err, reference.err);
    assert.match(
      streamed.stderrText(),
      /missing\.yaml: not found[\s\S]*b\.yaml:\d+[\s\S]*c\.yaml:\d+: \/metadata\/name: agent "alpha" is also defined/,
    );
    assert.doesNotMatch(streamed.stderrText(), /^warning/m, 'no warnings while anything is invalid');
  });

  it('prints the same warnings with the same lines, and renders the same objects, when all is valid', async () => {
    const dir = join(temp, 'good');
    mkdirSync(dir);
    writeFileSync(join(dir, 'a.yaml'), warned('alpha'));
    writeFileSync(join(dir, 'b.yaml'), `${example('web-infra')}---\n${warned('beta')}`);
    const { streamed, streamedResult, reference, referenceResult } = await both([dir]);
    assert.ok(streamedResult && referenceResult);
    assert.equal(
      streamed.err.filter((line) => line.startsWith('warning:')).length >= 2,
      true,
      'warnings printed',
    );
    assert.deepEqual(streamed.err, reference.err);
    assert.deepEqual(
      streamedResult.map((r) => r.rendered.objects),
      referenceResult.map((r) => r.rendered.objects),
    );
    // A released spec finds its lines by parsing its text again: the same lines, in every document.
    for (const [i, { spec }] of streamedResult.entries())
      for (const pointer of ['/metadata/name', '/spec/backends/0/image', '/spec/nope', ''])
        assert.equal(
          spec.lineOf(pointer),
          referenceResult[i]!.spec.lineOf(pointer),
          `${spec.file} ${pointer}`,
        );
  });
});
