/**
 * Two slice runners for test/cli/worker-slices.test.ts, over one computation that doubles numbers and fails
 * on command: this module is the workers' entry, as the CLI's slice modules are.
 */
import { fileURLToPath } from 'node:url';
import { threadId } from 'node:worker_threads';
import { workerSlices } from '../../cli/src/worker-slices.ts';

/**
 * A number is doubled; `throw <why>` throws an error naming the item; `crash` ends the worker with code 3;
 * `quit` ends it with code 0 before it answers (only ever in a worker's slice: they end this process too).
 */
export type Item = number | `throw ${string}` | 'crash' | 'quit';

export interface Doubled {
  /** The thread that computed the slice: 0 is the main thread. */
  readonly thread: number;
  readonly values: readonly number[];
}

function double(slice: readonly Item[]): Doubled {
  const values = slice.map((item) => {
    if (typeof item === 'number') return item * 2;
    if (item === 'crash') process.exit(3);
    if (item === 'quit') process.exit(0);
    throw new Error(`cannot double item "${item}"`);
  });
  return { thread: threadId, values };
}

const SELF = fileURLToPath(import.meta.url);

export const thisThreadFirst = workerSlices<readonly Item[], Doubled>({
  name: 'doubling',
  module: SELF,
  thisThreadTakesFirstSlice: true,
  compute: double,
});

export const workersOnly = workerSlices<readonly Item[], Doubled>({
  name: 'doubling-on-workers',
  module: SELF,
  thisThreadTakesFirstSlice: false,
  compute: double,
});
