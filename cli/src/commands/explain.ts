import { parseArgs } from 'node:util';
import { explainAgent, formatExplainReport } from '../../../constructs/src/explain.ts';
import { planAgent } from '../../../constructs/src/plan.ts';
import { routeCommand } from '../../../constructs/src/routing.ts';
import { agentWarnings } from '../../../constructs/src/warnings.ts';
import { formatSpecError } from '../../../schema/src/load.ts';
import type { Io } from '../io.ts';
import { readSpecs } from '../read-specs.ts';
import { UsageError } from '../usage-error.ts';

export const explainUsage = `Usage: toolyard explain <spec> [--command "cargo test"]

Prints what toolyard generates for an agent and why: per pod its containers, effective egress and mounted
credentials, and what each ServiceAccount can do. With --command, which toolchain handles that command and why
(from handles, presets and allowedCommands), or that none does.`;

export async function explainCommand(argv: readonly string[], io: Io): Promise<number> {
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { command: { type: 'string' } },
  });
  if (positionals.length !== 1) throw new UsageError('explain takes exactly one spec file');
  const { specs, errors } = await readSpecs(positionals);
  if (errors.length > 0) {
    for (const error of errors) io.stderr(formatSpecError(error));
    return 1;
  }
  for (const spec of specs) {
    const plan = planAgent(spec.agent);
    if (values.command !== undefined) {
      io.stdout(formatRoute(routeCommand(plan, values.command)));
      continue;
    }
    io.stdout(formatExplainReport(explainAgent(plan)));
    const { warnings, acknowledged } = agentWarnings(plan);
    if (warnings.length > 0) {
      io.stdout('Warnings:');
      for (const w of warnings) io.stdout(`  ${w.path}: ${w.message}`);
    }
    if (acknowledged.length > 0) {
      io.stdout('Acknowledged warnings (spec.acknowledgedWarnings):');
      for (const w of acknowledged) io.stdout(`  ${w.path}: ${w.message}\n    reason: ${w.reason}`);
    }
  }
  return 0;
}

function formatRoute(route: ReturnType<typeof routeCommand>): string {
  const command = route.command.join(' ');
  if (route.candidates.length === 0) {
    return `"${command}": no toolchain handles "${route.command[0] ?? ''}" (no handles.commands, preset or allowedCommands entry names it)`;
  }
  const [first, ...others] = route.candidates;
  const lines = [
    `"${command}" → toolchain "${first!.toolchain}" because ${first!.reasons.join('; ')}`,
    `  runs as: ${first!.runsAs}`,
    `  runs in: ${first!.runsIn}`,
  ];
  for (const other of others) {
    lines.push(
      `  also possible: toolchain "${other.toolchain}" (${other.reasons.join('; ')}); the first listed in the spec wins`,
    );
  }
  return lines.join('\n');
}
