/**
 * Why this toolchain runs a command, as its span says it (`toolyard.routing.*`): the routing hints of the
 * config — `handles.commands`, the presets' binaries, `tools.allowedCommands` in exec mode — read the way
 * `toolyard explain --command` reads them before deployment (constructs/src/routing.ts), so the trace shows
 * at run time what explain predicted: `command cargo matched toolchain rust handles.commands`.
 */
import type { ToolchainServerConfig } from './config.ts';
import { presetBinaries } from './tools/presets.ts';

export interface RoutingReason {
  /** `matched`: a hint of this toolchain names the command. `direct`: none does; the client chose it. */
  readonly decision: 'matched' | 'direct';
  readonly reason: string;
}

type RoutingConfig = Pick<ToolchainServerConfig, 'name' | 'handles' | 'tools'>;

/** Reasons per command, computed once per config: a call pays one map lookup. */
export class RoutingReasons {
  private readonly cache = new Map<string, RoutingReason>();
  private readonly config: RoutingConfig;

  constructor(config: RoutingConfig) {
    this.config = config;
  }

  of(command: string): RoutingReason {
    let reason = this.cache.get(command);
    if (!reason) {
      reason = routingReason(this.config, command);
      if (this.cache.size < 256) this.cache.set(command, reason);
    }
    return reason;
  }
}

export function routingReason(config: RoutingConfig, command: string): RoutingReason {
  const name = config.name;
  const reasons: string[] = [];
  if (config.handles.commands.includes(command))
    reasons.push(`command ${command} matched toolchain ${name} handles.commands`);
  const presets = config.tools.presets.filter((p) => presetBinaries(p, true).required.includes(command));
  if (presets.length > 0)
    reasons.push(`command ${command} is run by preset ${presets.join(', ')} of toolchain ${name}`);
  if (config.tools.mode === 'exec' && config.tools.allowedCommands.includes(command))
    reasons.push(`command ${command} is in toolchain ${name} tools.allowedCommands`);
  if (reasons.length === 0)
    return {
      decision: 'direct',
      reason: `no routing hint of toolchain ${name} names command ${command}; the client called this toolchain directly`,
    };
  return { decision: 'matched', reason: reasons.join('; ') };
}
