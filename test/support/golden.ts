/**
 * The golden files: every `examples/*.yaml` rendered exactly as `toolyard synth` writes it
 * (checkSpecText → renderAgent → toYamlDocuments) to `test/golden/<metadata.name>.k8s.yaml`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkSpecText } from '../../constructs/src/check-spec-text.ts';
import { renderAgent, toYamlDocuments } from '../../constructs/src/render.ts';
import { formatSpecError } from '../../schema/src/load.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const EXAMPLES_DIR = join(REPO_ROOT, 'examples');
export const GOLDEN_DIR = join(REPO_ROOT, 'test', 'golden');
export const GOLDEN_SUFFIX = '.k8s.yaml';

/** `examples/*.yaml`, sorted, as paths relative to the repo root (how the CLI would be called). */
export function exampleFiles(): string[] {
  return readdirSync(EXAMPLES_DIR)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file) => join('examples', file));
}

/** Golden file name → content, for every example. Throws when an example is invalid. */
export function renderGoldenFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const example of exampleFiles()) {
    const result = checkSpecText(readFileSync(join(REPO_ROOT, example), 'utf8'), example);
    if (!result.ok)
      throw new Error(`${example} is invalid:\n${result.errors.map(formatSpecError).join('\n')}`);
    for (const spec of result.specs) {
      const name = `${spec.agent.metadata.name}${GOLDEN_SUFFIX}`;
      if (files.has(name))
        throw new Error(`${example}: agent "${spec.agent.metadata.name}" is defined twice`);
      files.set(name, toYamlDocuments(renderAgent(spec.agent).objects));
    }
  }
  return files;
}

/** Golden file names currently on disk. */
export function goldenFilesOnDisk(dir: string = GOLDEN_DIR): string[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith(GOLDEN_SUFFIX))
    .sort();
}
