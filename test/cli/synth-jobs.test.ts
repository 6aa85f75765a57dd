/**
 * `toolyard synth` on worker threads (`--jobs`) writes the same files and prints the same problems and warnings,
 * in the same order, as one thread, and as `--stdout` (which renders file by file in this thread); on invalid
 * input it leaves neither output (nor the parents made for it) nor staging directory behind.
 */
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { main } from '../../cli/src/main.ts';
import { REPO_ROOT } from '../support/golden.ts';
import { captureIo } from './capture-io.ts';

const temp = mkdtempSync(join(tmpdir(), 'toolyard-synth-jobs-'));
after(() => rmSync(temp, { recursive: true, force: true }));
const example = (name: string) => readFileSync(join(REPO_ROOT, 'examples', `${name}.yaml`), 'utf8');
const invalid = (name: string) =>
  readFileSync(join(REPO_ROOT, 'test', 'invalid-specs', `${name}.yaml`), 'utf8');
const renamed = (text: string, name: string) => text.replace(/^ {2}name: \S+$/m, `  name: ${name}`);
const warned = (name: string) =>
  `${renamed(example('cluster-operator'), name)}  broker: { enabled: false }\n`;

async function synth(...argv: string[]) {
  const io = captureIo();
  const code = await main(['synth', ...argv], io);
  return {
    code,
    err: io.err.filter((line) => !line.startsWith('wrote ')),
    wrote: io.err.filter((l) => l.startsWith('wrote ')),
  };
}

describe('synth --jobs', () => {
  it('reports problems across slices exactly as one thread and --stdout do, and writes nothing', async () => {
    const dir = join(temp, 'bad');
    mkdirSync(dir);
    const texts = [
      warned('a0'),
      invalid('port-collision'),
      renamed(example('web-infra'), 'a2'),
      invalid('bad-yaml'),
      renamed(example('web-infra'), 'a0'),
      warned('a5'),
      invalid('reserved-env'),
    ];
    for (const [i, text] of texts.entries()) writeFileSync(join(dir, `f${i}.yaml`), text);
    const missing = join(temp, 'missing.yaml');
    const one = await synth(dir, missing, '-o', join(temp, 'nested', 'out-bad'), '--jobs', '1');
    const three = await synth(dir, missing, '-o', join(temp, 'nested', 'out-bad'), '--jobs', '3');
    const stdout = await synth(dir, missing, '--stdout');
    assert.equal(one.code, 1);
    assert.equal(three.code, 1);
    assert.deepEqual(three.err, one.err);
    assert.deepEqual(one.err, stdout.err);
    assert.match(
      one.err.join('\n'),
      /missing\.yaml: not found[\s\S]*f1\.yaml[\s\S]*f3\.yaml[\s\S]*f6\.yaml[\s\S]*f4\.yaml:\d+: \/metadata\/name: agent "a0" is also defined/,
    );
    assert.equal(
      existsSync(join(temp, 'nested')),
      false,
      'the output and the parents made for it are removed',
    );
  });

  it('writes the same bytes and prints the same warnings in file order on any number of threads', async () => {
    const dir = join(temp, 'good');
    mkdirSync(dir);
    for (let i = 0; i < 7; i++)
      writeFileSync(
        join(dir, `f${i}.yaml`),
        i % 3 === 0 ? warned(`w${i}`) : renamed(example('web-infra'), `p${i}`),
      );
    const one = await synth(dir, '-o', join(temp, 'out-1'), '--jobs', '1');
    const three = await synth(dir, '-o', join(temp, 'out-3'), '--jobs', '3');
    const stdout = await synth(dir, '--stdout');
    assert.equal(one.code, 0);
    assert.equal(three.code, 0);
    assert.ok(one.err.filter((l) => l.startsWith('warning:')).length >= 3, 'warnings printed');
    assert.deepEqual(three.err, one.err);
    assert.deepEqual(one.err, stdout.err);
    assert.deepEqual(
      three.wrote.map((l) => l.replace('out-3', 'out-1')),
      one.wrote,
    );
    const files = readdirSync(join(temp, 'out-1')).sort();
    assert.equal(files.length, 7);
    assert.deepEqual(readdirSync(join(temp, 'out-3')).sort(), files);
    for (const file of files)
      assert.equal(
        readFileSync(join(temp, 'out-3', file), 'utf8'),
        readFileSync(join(temp, 'out-1', file), 'utf8'),
      );
    assert.deepEqual(
      readdirSync(temp).filter((n) => n.includes('staging')),
      [],
    );
  });
});
