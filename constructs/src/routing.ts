/**
 * Which toolchain handles a command, and why: the same routing hints (`handles`) the toolchain servers
 * report in `describe_toolchain`, plus what each would run it as.
 */
import type { AgentPlan, PlannedToolchain } from './plan.ts';

/** The binaries behind each structured preset. */
export const PRESET_COMMANDS: Readonly<Record<string, readonly string[]>> = {
  go: ['go'],
  python: ['pytest', 'ruff'],
  cargo: ['cargo'],
  node: ['npm', 'tsc'],
  terraform: ['terraform'],
  helm: ['helm'],
};

export interface RouteCandidate {
  readonly toolchain: string;
  readonly reasons: readonly string[];
  /** How the toolchain server would accept the command, or why it would refuse it. */
  readonly runsAs: string;
  /** Where it runs: a sidecar of the agent pod, or the toolchain's own pod (`placement: pod`). */
  readonly runsIn: string;
}

export interface Route {
  readonly command: readonly string[];
  /** First candidate handles it; later ones could too (spec order breaks ties). */
  readonly candidates: readonly RouteCandidate[];
}

export function routeCommand(plan: AgentPlan, commandLine: string): Route {
  const command = commandLine.trim().split(/\s+/).filter(Boolean);
  const binary = command[0] ?? '';
  const candidates: RouteCandidate[] = [];
  for (const toolchain of plan.toolchains) {
    const reasons: string[] = [];
    if (toolchain.handles.commands.includes(binary)) reasons.push(`handles.commands lists "${binary}"`);
    const presets = toolchain.presets.filter((p) => PRESET_COMMANDS[p]?.includes(binary));
    if (presets.length > 0)
      reasons.push(`preset ${presets.map((p) => `"${p}"`).join(', ')} wraps "${binary}"`);
    if (toolchain.mode === 'exec' && toolchain.allowedCommands.includes(binary))
      reasons.push(`tools.allowedCommands lists "${binary}"`);
    if (reasons.length > 0)
      candidates.push({
        toolchain: toolchain.name,
        reasons,
        runsAs: runsAs(toolchain, binary, presets),
        runsIn: runsIn(plan, toolchain),
      });
  }
  return { command, candidates };
}

function runsIn(plan: AgentPlan, toolchain: PlannedToolchain): string {
  if (plan.broker.enabled) {
    const where = toolchain.pod
      ? `its own pod ${toolchain.pod.objectName} at ${toolchain.url}`
      : `sidecar ${toolchain.containerName} of pod ${plan.names.workload}`;
    return `${where}, egress by name through the broker: ${egressByName(toolchain)}`;
  }
  if (!toolchain.pod)
    return `sidecar ${toolchain.containerName} of pod ${plan.names.workload}, sharing its network (egress ${toolchain.egress} asked for)`;
  return `its own pod ${toolchain.pod.objectName} at ${toolchain.url}, egress exactly ${toolchain.egress}`;
}

function egressByName(toolchain: PlannedToolchain): string {
  const egress = toolchain.namedEgress;
  if (egress.kind === 'none') return 'none';
  if (egress.kind === 'open') return 'any public host';
  return egress.entries.map((e) => `${e.host}:${e.ports.join(',')}`).join(', ') || 'none';
}

function runsAs(toolchain: PlannedToolchain, binary: string, presets: readonly string[]): string {
  const parts: string[] = [];
  if (presets.length > 0) parts.push(`structured tools of preset ${presets.join(', ')}`);
  if (toolchain.mode === 'exec' && toolchain.allowedCommands.includes(binary)) parts.push('exec_allowed');
  if (parts.length === 0)
    return `nothing yet: "${binary}" is a routing hint only; add a preset that wraps it, or mode: exec with "${binary}" in allowedCommands`;
  return parts.join(' or ');
}
