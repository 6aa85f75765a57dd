/**
 * The slice runner behind synth, site and diff on worker threads: outputs in slice order, which thread computes
 * which slice, empty and single slices, and every way a slice fails (its own error, a crashed worker, a worker
 * that ends without answering) rejecting the run — without an unhandled rejection left behind.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { moduloSlices } from '../../cli/src/worker-slices.ts';
import { REPO_ROOT } from '../support/golden.ts';
import { thisThreadFirst, workersOnly } from '../support/worker-slices-fixture.ts';

const MAIN_THREAD = 0;
const temp = mkdtempSync(join(tmpdir(), 'toolyard-worker-slices-'));
after(() => rmSync(temp, { recursive: true, force: true }));

describe('moduloSlices', () => {
  it('gives slice i every item whose index is i modulo the count, in order; extra slices are empty', () => {
    assert.deepEqual(moduloSlices([0, 1, 2, 3, 4, 5, 6], 3), [
      [0, 3, 6],
      [1, 4],
      [2, 5],
    ]);
    assert.deepEqual(moduloSlices(['a'], 3), [['a'], [], []]);
    assert.deepEqual(moduloSlices([], 2), [[], []]);
  });
});

describe('workerSlices', () => {
  it('this thread computes the first slice, a worker each of the others; outputs come back in slice order', async () => {
    const outputs = await thisThreadFirst.run([[1, 2], [3], [], [4, 5]]);
    assert.deepEqual(
      outputs.map((o) => o.values),
      [[2, 4], [6], [], [8, 10]],
    );
    assert.equal(outputs[0]!.thread, MAIN_THREAD);
    const workers = outputs.slice(1).map((o) => o.thread);
    assert.ok(!workers.includes(MAIN_THREAD), `workers ran on ${workers}`);
    assert.equal(new Set(workers).size, 3, 'one worker per slice');
  });

  it('one slice runs in this thread alone; no slices, no work', async () => {
    assert.deepEqual(await thisThreadFirst.run([[7]]), [{ thread: MAIN_THREAD, values: [14] }]);
    assert.deepEqual(await thisThreadFirst.run([]), []);
    assert.deepEqual(await workersOnly.run([]), []);
  });

  it('without this thread, every slice (an empty one too) runs on its own worker, outputs in slice order', async () => {
    const outputs = await workersOnly.run([[1], [], [2, 3]]);
    assert.deepEqual(
      outputs.map((o) => o.values),
      [[2], [], [4, 6]],
    );
    const threads = outputs.map((o) => o.thread);
    assert.ok(!threads.includes(MAIN_THREAD), `slices ran on ${threads}`);
    assert.equal(new Set(threads).size, 3);
  });

  it("a slice's own error rejects the run with its message, from a worker or from this thread", async () => {
    await assert.rejects(thisThreadFirst.run([[1], [2, 'throw in a worker']]), {
      message: 'cannot double item "throw in a worker"',
    });
    await assert.rejects(workersOnly.run([['throw in a worker'], [1]]), {
      message: 'cannot double item "throw in a worker"',
    });
    await assert.rejects(thisThreadFirst.run([['throw here'], [1]]), {
      message: 'cannot double item "throw here"',
    });
  });

  it('a worker that crashes, or ends without answering, rejects the run with the computation named', async () => {
    await assert.rejects(thisThreadFirst.run([[1], ['crash']]), {
      message: 'doubling worker exited with code 3',
    });
    await assert.rejects(workersOnly.run([[1], ['crash']]), {
      message: 'doubling-on-workers worker exited with code 3',
    });
    await assert.rejects(
      thisThreadFirst.run([[1], ['quit']]),
      /^Error: doubling worker exited without a result/,
    );
  });

  it("a worker failing after this thread's slice threw leaves no unhandled rejection behind", () => {
    // In a process of its own, which lives until the crashing worker has ended: an unhandled rejection of
    // that worker's promise would fail it (exit 1) with the worker's error on stderr.
    const fixture = pathToFileURL(join(REPO_ROOT, 'test/support/worker-slices-fixture.ts')).href;
    const script = join(temp, 'throw-here-and-crash.mjs');
    writeFileSync(
      script,
      `const { thisThreadFirst } = await import(${JSON.stringify(fixture)});
await thisThreadFirst.run([['throw here'], ['crash']]).catch((error) => console.log(error.message));
`,
    );
    const child = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(child.stderr, '');
    assert.equal(child.stdout, 'cannot double item "throw here"\n');
    assert.equal(child.status, 0);
  });
});
