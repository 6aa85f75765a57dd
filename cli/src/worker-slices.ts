/**
 * One computation over slices of its input, on worker threads. The module that defines the computation is
 * also each worker's entry: `workerSlices` called at its top level computes the worker's slice and posts the
 * result back when the module is loaded by a worker started for it, and returns the runner that starts those
 * workers when the module is loaded anywhere else.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

export interface SliceComputation<Input, Output> {
  /** Tells a worker which computation is its own, and names it in errors ("synth worker exited with code 1"). */
  readonly name: string;
  /** The file of the module that calls `workerSlices`: what each worker loads to compute its slice. */
  readonly module: string;
  /** Whether this thread computes the first slice while workers compute the others; else a worker each. */
  readonly thisThreadTakesFirstSlice: boolean;
  readonly compute: (slice: Input) => Output;
}

export interface SliceRunner<Input, Output> {
  /**
   * Each slice's output, in slice order. Rejects with a slice's own error (thrown in this thread or in a
   * worker), or when a worker exits with a non-zero code or without a result.
   */
  run(slices: readonly Input[]): Promise<Output[]>;
}

/** What a worker started by a `SliceRunner` receives. */
interface SliceWorkerData<Input> {
  readonly toolyardSlice: string;
  readonly slice: Input;
}

/** `count` slices of `items`, slice `i` holding every item whose index is `i` modulo `count` (some may be empty). */
export function moduloSlices<T>(items: readonly T[], count: number): T[][] {
  return Array.from({ length: count }, (_, i) => items.filter((_, j) => j % count === i));
}

/**
 * The runner of `computation`, to call once at the top level of the module named by `computation.module`; in
 * a worker started for this computation, it computes the worker's slice and posts its output first.
 */
export function workerSlices<Input, Output>(
  computation: SliceComputation<Input, Output>,
): SliceRunner<Input, Output> {
  const data = isMainThread ? undefined : (workerData as SliceWorkerData<Input> | undefined);
  if (data?.toolyardSlice === computation.name) parentPort!.postMessage(computation.compute(data.slice));
  return { run: (slices) => runSlices(computation, slices) };
}

async function runSlices<Input, Output>(
  computation: SliceComputation<Input, Output>,
  slices: readonly Input[],
): Promise<Output[]> {
  if (!computation.thisThreadTakesFirstSlice || slices.length === 0)
    return Promise.all(slices.map((slice) => inWorker(computation, slice)));
  const [first, ...rest] = slices as [Input, ...Input[]];
  const others = Promise.all(rest.map((slice) => inWorker(computation, slice)));
  // Awaited below: its rejection handler is attached before this thread is busy with its own slice, so a
  // worker's failure is not an unhandled rejection should this thread's slice throw first.
  others.catch(() => undefined);
  const own = computation.compute(first);
  return [own, ...(await others)];
}

function inWorker<Input, Output>(
  computation: SliceComputation<Input, Output>,
  slice: Input,
): Promise<Output> {
  return new Promise<Output>((resolve, reject) => {
    const data: SliceWorkerData<Input> = { toolyardSlice: computation.name, slice };
    const worker = new Worker(computation.module, { workerData: data });
    let answered = false;
    worker.once('message', (output: Output) => {
      answered = true;
      resolve(output);
    });
    worker.once('error', reject);
    // Node delivers a worker's messages before its 'exit'; settling twice is a no-op after 'error'.
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`${computation.name} worker exited with code ${code}`));
      else if (!answered)
        reject(new Error(`${computation.name} worker exited without a result (${computation.module})`));
    });
  });
}
