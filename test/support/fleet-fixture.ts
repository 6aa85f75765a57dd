/**
 * A fleet on disk: every example plus generated specs (test/support/spec-generator.ts, renamed `gen-<n>` so
 * names are unique), in a directory tree with a subdirectory per namespace, as a GitOps repository keeps them.
 * The site tests, the browser tests and bench/fleet build from it.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { EXAMPLES_DIR } from './golden.ts';
import { generateSpec } from './spec-generator.ts';

export const FLEET_SEED = 20260101;

/**
 * Writes the fleet into `dir` (created); returns the number of agents. `examples` shape: the further agents are
 * the examples again, renamed `<example>-<n>` (bench/synth's shape); `generated`: specs of the generator.
 */
export function writeFleet(
  dir: string,
  generated: number,
  seed = FLEET_SEED,
  shape: 'generated' | 'examples' = 'generated',
): number {
  mkdirSync(join(dir, 'examples'), { recursive: true });
  const examples = readdirSync(EXAMPLES_DIR).filter((f) => f.endsWith('.yaml'));
  for (const file of examples) copyFileSync(join(EXAMPLES_DIR, file), join(dir, 'examples', file));
  if (shape === 'examples') {
    const texts = examples.map((f) => readFileSync(join(EXAMPLES_DIR, f), 'utf8'));
    mkdirSync(join(dir, 'copies'), { recursive: true });
    for (let i = 0; i < generated; i++) {
      const text = texts[i % texts.length]!;
      const name = /^ {2}name: (\S+)$/m.exec(text)![1]!;
      writeFileSync(
        join(dir, 'copies', `${name}-${i}.yaml`),
        text.replace(/^ {2}name: \S+$/m, `  name: ${name}-${i}`),
      );
    }
    return examples.length + generated;
  }
  for (let i = 0; i < generated; i++) {
    const spec = generateSpec(seed + i);
    spec.metadata.name = `gen-${i}`;
    const namespace = spec.metadata.namespace ?? 'default';
    mkdirSync(join(dir, namespace), { recursive: true });
    writeFileSync(join(dir, namespace, `gen-${i}.yaml`), stringify(spec));
  }
  return examples.length + generated;
}
