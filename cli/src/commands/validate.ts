import { parseArgs } from 'node:util';
import { planAgent } from '../../../constructs/src/plan.ts';
import { agentWarnings } from '../../../constructs/src/warnings.ts';
import { formatSpecError } from '../../../schema/src/load.ts';
import { count } from '../counts.ts';
import { describeSharedClaim, fleetCacheUses, sharedClaims } from '../fleet/fleet-caches.ts';
import type { Io } from '../io.ts';
import { readSpecs } from '../read-specs.ts';
import { formatWarning } from '../render-specs.ts';
import { UsageError } from '../usage-error.ts';

export const validateUsage = `Usage: toolyard validate <spec|directory…> [--strict]

Checks Agent specs against the JSON Schema and toolyard's semantic checks, in one pass: the semantic
checks run on what the schema accepted, so every problem is reported at once. Then prints the warnings that
synth, explain and the playground show (e.g. a toolchain sharing more egress than it asked for), except the
ones a spec acknowledges with a reason (spec.acknowledgedWarnings); an acknowledgement that matches no
warning is itself a warning. A directory stands for every *.yaml/*.yml file below it that looks like a
toolyard spec: "kind: Agent", or a near miss (a misspelt kind or apiVersion), which is an error. Across the
specs, an existing claim several agents mount as a cache is listed with who writes and who reads it, and a
build cache two agents write (or a download cache written without verification or a fetch phase) is an error.

Exit codes: 0 every spec is valid (warnings are printed, on stderr, and pass); 1 an error, or with --strict
a warning; 2 a usage error.

Options:
      --strict   fail on warnings too (exit 1): the CI gate. Fix a warning, or acknowledge it in the spec`;

export async function validateCommand(argv: readonly string[], io: Io): Promise<number> {
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { strict: { type: 'boolean', default: false } },
  });
  if (positionals.length === 0) throw new UsageError('validate needs at least one spec file or directory');
  const { specs, errors } = await readSpecs(positionals);
  for (const error of errors) io.stderr(formatSpecError(error));
  if (errors.length > 0) {
    io.stderr(`${count(errors.length, 'error')}; nothing is valid until all are fixed.`);
    return 1;
  }
  let total = 0;
  for (const spec of specs) {
    const { warnings, acknowledged } = agentWarnings(planAgent(spec.agent));
    for (const warning of warnings) io.stderr(formatWarning(spec, warning));
    total += warnings.length;
    const accepted =
      acknowledged.length > 0 ? ` (${count(acknowledged.length, 'acknowledged warning')})` : '';
    io.stdout(
      `${spec.file}: agent "${spec.agent.metadata.name}" is valid, ${count(warnings.length, 'warning')}${accepted}`,
    );
  }
  // Existing claims several agents mount as caches: who reads, who writes (docs/caches.md).
  for (const shared of sharedClaims(specs.flatMap((s) => fleetCacheUses(s.plan))))
    for (const line of describeSharedClaim(shared)) io.stdout(line);
  if (total > 0 && values.strict) {
    io.stderr(
      `${count(total, 'warning')}; --strict fails on warnings: fix each, or acknowledge it with a reason in spec.acknowledgedWarnings`,
    );
    return 1;
  }
  return 0;
}
