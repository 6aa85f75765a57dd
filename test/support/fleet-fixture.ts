/**
 * A fleet on disk: every example plus generated specs (test/support/spec-generator.ts, renamed `gen-<n>` so
 * names are unique), in a directory tree with a subdirectory per namespace, as a GitOps repository keeps them.
 * The site tests, the browser tests and bench/fleet build from it.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import type { ToolyardAgent } from '../../schema/src/types.generated.ts';
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
  shareGoModuleCache(join(dir, 'examples'));
  for (let i = 0; i < generated; i++) {
    const spec = generateSpec(seed + i);
    spec.metadata.name = `gen-${i}`;
    const namespace = spec.metadata.namespace ?? 'default';
    mkdirSync(join(dir, namespace), { recursive: true });
    writeFileSync(join(dir, namespace, `gen-${i}.yaml`), stringify(spec));
  }
  return examples.length + generated;
}

/** The team's existing claim of Go modules, shared: the reviewer's fetch calls fill it, web-infra reads it. */
export const SHARED_CACHE_CLAIM = 'team-gomod';

/**
 * Generated specs never share an existing claim between two agents (test/support/cache-generator.ts): the
 * fleet's copies of two examples in one namespace do. The reviewer's `gomod` cache moves to the claim
 * (written by its fetch calls only, as the sharing rules require of a Go cache), and web-infra's node toolchain
 * mounts it read-only.
 */
function shareGoModuleCache(dir: string): void {
  const volume = { persistentVolumeClaim: { claimName: SHARED_CACHE_CLAIM, readWriteMany: true } };
  const edit = (file: string, change: (spec: ToolyardAgent['spec']) => void) => {
    const agent = parse(readFileSync(join(dir, file), 'utf8')) as ToolyardAgent;
    change(agent.spec);
    writeFileSync(join(dir, file), stringify(agent));
  };
  edit('polyglot-reviewer.yaml', (spec) => {
    const caches = spec.workspace?.caches ?? [];
    spec.workspace = {
      ...spec.workspace,
      caches: caches.map((c) => (c.name === 'gomod' ? { ...c, volume } : c)),
    };
  });
  edit('web-infra.yaml', (spec) => {
    spec.workspace = { ...spec.workspace, caches: [{ name: 'gomod', ecosystem: 'go', volume }] };
    spec.toolchains = spec.toolchains?.map((t) =>
      t.name === 'node' ? { ...t, caches: [{ name: 'gomod', access: 'read-only' }] } : t,
    );
  });
}
