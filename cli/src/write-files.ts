/** All-or-nothing output: every file is staged next to its target, then renamed into place. */
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface OutputFile {
  readonly path: string;
  readonly content: string | Uint8Array;
}

export async function writeFilesAtomically(files: readonly OutputFile[]): Promise<void> {
  const staged: string[] = [];
  try {
    for (const file of files) {
      await mkdir(dirname(file.path), { recursive: true });
      const temp = `${file.path}.tmp-${process.pid}`;
      await writeFile(temp, file.content);
      staged.push(temp);
    }
  } catch (error) {
    await Promise.all(staged.map((temp) => rm(temp, { force: true })));
    throw error;
  }
  for (const [index, file] of files.entries()) await rename(staged[index]!, file.path);
}
