import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AgentSpecError } from '../../../constructs/src/agent-spec-error.ts';
import { renderAgent, toYamlDocuments } from '../../../constructs/src/render.ts';
import { formatSpecError } from '../../../schema/src/load.ts';
import type { Io } from '../io.ts';
import { readSpecs } from '../read-specs.ts';
import { UsageError } from '../usage-error.ts';
import { type OutputFile, writeFilesAtomically } from '../write-files.ts';

export const synthUsage = `Usage: toolyard synth <spec…> [-o DIR] [--stdout]

Renders each Agent to DIR/<metadata.name>.k8s.yaml (default DIR: dist), one multi-document file per agent,
byte-for-byte deterministic. On any invalid input nothing is written and the exit code is 1.
Warnings (e.g. a toolchain sharing more egress than it asked for) go to stderr.

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
  if (positionals.length === 0) throw new UsageError('synth needs at least one spec file');
  const { specs, errors } = await readSpecs(positionals);
  if (errors.length > 0) {
    for (const error of errors) io.stderr(formatSpecError(error));
    io.stderr(`${errors.length} error(s); nothing was written.`);
    return 1;
  }
  const outputs: OutputFile[] = [];
  for (const spec of specs) {
    let rendered: ReturnType<typeof renderAgent>;
    try {
      rendered = renderAgent(spec.agent);
    } catch (error) {
      if (!(error instanceof AgentSpecError)) throw error;
      for (const p of error.problems)
        io.stderr(formatSpecError({ ...p, file: spec.file, line: spec.lineOf(p.path) }));
      io.stderr('nothing was written.');
      return 1;
    }
    for (const warning of rendered.warnings) {
      io.stderr(`warning: ${spec.file}:${spec.lineOf(warning.path)}: ${warning.path}: ${warning.message}`);
    }
    outputs.push({
      path: join(values.output, `${spec.agent.metadata.name}.k8s.yaml`),
      content: toYamlDocuments(rendered.objects),
    });
  }
  if (values.stdout) {
    io.stdout(outputs.map((o) => o.content).join('---\n'));
    return 0;
  }
  await writeFilesAtomically(outputs);
  for (const output of outputs) io.stderr(`wrote ${output.path}`);
  return 0;
}
