/** All-or-nothing output: every file is staged next to its target, then renamed into place. */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdir, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

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

/**
 * A staging directory inside `output` (`.toolyard-staging-<pid>`: the same file system, so a rename moves a file
 * into place, and no more write access than the output itself needs): a command writes its files there as they
 * are made, so no file waits in memory, and moves them into `output` only once every spec has proved valid.
 * `discard` removes it whatever happened, and the output directory (and parents) too when they were made for
 * the staging and are still empty, so invalid input leaves nothing behind.
 */
export class StagingDirectory {
  readonly path: string;
  private readonly output: string;
  /** The output and its parents that did not exist yet, deepest first: made for the staging. */
  private readonly madeForStaging: string[] = [];
  private readonly files: string[] = [];

  constructor(output: string) {
    this.output = output;
    for (let dir = resolve(output); !existsSync(dir) && dirname(dir) !== dir; dir = dirname(dir))
      this.madeForStaging.push(dir);
    this.path = join(output, `.toolyard-staging-${process.pid}`);
  }

  /** Writes files (paths relative to the output) into the staging directory, synchronously: for a worker. */
  static writeSync(stagingPath: string, files: readonly OutputFile[]): string[] {
    const made = new Set<string>();
    for (const file of files) {
      const target = join(stagingPath, file.path);
      const directory = dirname(target);
      if (!made.has(directory)) {
        mkdirSync(directory, { recursive: true });
        made.add(directory);
      }
      writeFileSync(target, file.content);
    }
    return files.map((file) => file.path);
  }

  /** Records files staged by anyone (a worker), relative to the output. */
  add(relativePaths: readonly string[]): void {
    this.files.push(...relativePaths);
  }

  get count(): number {
    return this.files.length;
  }

  /** Moves every staged file into the output, replacing files of an earlier build. */
  async commit(): Promise<void> {
    for (const directory of new Set(this.files.map((file) => dirname(join(this.output, file)))))
      await mkdir(directory, { recursive: true });
    await eachInFlight(this.files, (file) => rename(join(this.path, file), join(this.output, file)));
  }

  async discard(): Promise<void> {
    await rm(this.path, { recursive: true, force: true });
    // Made only to hold the staging directory: removed again unless something was moved into them.
    for (const dir of this.madeForStaging)
      if (
        !(await rmdir(dir).then(
          () => true,
          () => false,
        ))
      )
        break;
  }
}
