/** All-or-nothing output: every file is staged next to its target, then renamed into place. */
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface OutputFile {
  readonly path: string;
  readonly content: string | Uint8Array;
}

/** File operations in flight at once: enough to keep the thread pool busy, few enough to stay light. */
const IN_FLIGHT = 16;

/** Runs `task` over `items` with at most `IN_FLIGHT` running at once; rejects with the first failure. */
async function eachInFlight<T>(
  items: readonly T[],
  task: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (failure === undefined && next < items.length) {
      const index = next++;
      try {
        await task(items[index]!, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, items.length) }, lane));
  if (failure) throw failure.error;
}

export async function writeFilesAtomically(files: readonly OutputFile[]): Promise<void> {
  for (const directory of new Set(files.map((file) => dirname(file.path))))
    await mkdir(directory, { recursive: true });
  const temp = (file: OutputFile) => `${file.path}.tmp-${process.pid}`;
  const staged = new Set<string>();
  try {
    await eachInFlight(files, async (file) => {
      staged.add(temp(file));
      await writeFile(temp(file), file.content);
    });
  } catch (error) {
    await Promise.all([...staged].map((path) => rm(path, { force: true })));
    throw error;
  }
  await eachInFlight(files, (file) => rename(temp(file), file.path));
}
