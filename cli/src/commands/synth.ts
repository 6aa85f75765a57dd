import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { toYamlDocuments } from '../../../constructs/src/render.ts';
import type { Io } from '../io.ts';
import { renderSpecs } from '../render-specs.ts';
import { UsageError } from '../usage-error.ts';
import { type OutputFile, writeFilesAtomically } from '../write-files.ts';

export const synthUsage = `Usage: toolyard synth <spec|directory…> [-o DIR] [--stdout]

Renders each Agent to DIR/<metadata.name>.k8s.yaml (default DIR: dist), one multi-document file per agent,
byte-for-byte deterministic. A directory stands for every *.yaml/*.yml file with "kind: Agent" below it.
On any invalid input nothing is written and the exit code is 1. Warnings (e.g. a toolchain sharing more
egress than it asked for) go to stderr, unless the spec acknowledges them (spec.acknowledgedWarnings).

Options:
  -o, --output DIR   output directory (default: dist)
      --stdout       print the YAML to stdout instead of writing files`;

export async function synthCommand(argv: readonly string[], io: Io): Promise<number> {
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o', default: 'dist' },
      stdout: { type: 'boolean', default: false },
    },
  });
  if (positionals.length === 0) throw new UsageError('synth needs at least one spec file or directory');
  // Each agent's YAML is made as soon as it is rendered, so its objects need not wait for the others.
  const outputs = await renderSpecs<OutputFile>(positionals, io, ({ spec, rendered }) => ({
    path: join(values.output, `${spec.agent.metadata.name}.k8s.yaml`),
    content: toYamlDocuments(rendered.objects),
  }));
  if (!outputs) return 1;
  if (values.stdout) {
    io.stdout(outputs.map((o) => o.content).join('---\n'));
    return 0;
  }
  await writeFilesAtomically(outputs);
  for (const output of outputs) io.stderr(`wrote ${output.path}`);
  return 0;
}
