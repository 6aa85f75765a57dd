/**
 * The spec files behind command-line paths. A file is taken as given. A directory is searched recursively
 * (skipping `node_modules` and dot-directories) for `*.yaml` and `*.yml` files whose top level says
 * `kind: Agent`, so a directory of specs, charts and rendered manifests yields only the specs.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SpecError } from '../../schema/src/load.ts';

const SPEC_FILE = /\.ya?ml$/;
/** A top-level `kind: Agent` line in any document of the file. */
const AGENT_KIND = /^kind:[ \t]*(["']?)Agent\1[ \t]*(#.*)?$/m;
const SKIPPED_DIRECTORIES = (name: string) => name === 'node_modules' || name.startsWith('.');

/** Whether a file found below a directory (a `/`-separated relative path) may be a spec, by its name alone. */
export function mayBeSpecFile(relativePath: string): boolean {
  const parts = relativePath.split('/');
  return SPEC_FILE.test(parts.at(-1) ?? '') && !parts.slice(0, -1).some(SKIPPED_DIRECTORIES);
}

/** How many documents of a file's text declare an Agent (top-level `kind: Agent` lines). */
export function agentCount(text: string): number {
  return [...text.matchAll(new RegExp(AGENT_KIND.source, 'gm'))].length;
}

/** Whether a file's text declares an Agent (a top-level `kind: Agent` in any of its documents). */
export function declaresAgent(text: string): boolean {
  return AGENT_KIND.test(text);
}

export interface SpecFiles {
  readonly files: readonly string[];
  readonly errors: readonly SpecError[];
}

async function agentSpecsUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const found: string[] = [];
  for (const entry of entries) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES(entry.name)) found.push(...(await agentSpecsUnder(path)));
    } else if (entry.isFile() && SPEC_FILE.test(entry.name)) {
      if (AGENT_KIND.test(await readFile(path, 'utf8'))) found.push(path);
    }
  }
  return found;
}

/** Files as given, directories expanded; a directory without any Agent spec is an error. */
export async function specFiles(paths: readonly string[]): Promise<SpecFiles> {
  const files: string[] = [];
  const errors: SpecError[] = [];
  for (const path of paths) {
    const isDirectory = await stat(path).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDirectory) {
      files.push(path);
      continue;
    }
    const found = await agentSpecsUnder(path);
    if (found.length === 0) {
      errors.push({
        file: path,
        line: 0,
        path: '/',
        message: 'no Agent spec in this directory',
        hint: 'specs are *.yaml or *.yml files with a top-level "kind: Agent", found in subdirectories too',
      });
    }
    files.push(...found);
  }
  return { files: [...new Set(files)], errors };
}
