import { parseArgs } from 'node:util';
import { formatSpecError } from '../../../schema/src/load.ts';
import type { Io } from '../io.ts';
import { readSpecs } from '../read-specs.ts';
import { UsageError } from '../usage-error.ts';

export const validateUsage = `Usage: toolyard validate <spec|directory…>

Checks Agent specs against the JSON Schema and toolyard's semantic checks, in one pass: the semantic
checks run on what the schema accepted, so every problem is reported at once. A directory stands for
every *.yaml/*.yml file with "kind: Agent" below it.
Exits 0 when every spec is valid; 1 with every error as file:line: /json/path: message.`;

export async function validateCommand(argv: readonly string[], io: Io): Promise<number> {
  const { positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: {} });
  if (positionals.length === 0) throw new UsageError('validate needs at least one spec file or directory');
  const { specs, errors } = await readSpecs(positionals);
  for (const error of errors) io.stderr(formatSpecError(error));
  if (errors.length > 0) {
    io.stderr(`${errors.length} error(s); nothing is valid until all are fixed.`);
    return 1;
  }
  for (const spec of specs) io.stdout(`${spec.file}: agent "${spec.agent.metadata.name}" is valid`);
  return 0;
}
