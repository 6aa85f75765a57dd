/**
 * `renderAgent(spec)`: the pure, isomorphic renderer. Same code in the CLI, `cdk8s synth`, the chart
 * generator and the browser. No file system, no process, no network.
 */
import { App, Chart, Yaml } from 'cdk8s';
import type { ToolyardAgent } from '../../schema/src/types.generated.ts';
import { Agent } from './agent.ts';
import type { RenderWarning } from './effective-egress.ts';
import { manifestYaml } from './manifest-yaml.ts';
import type { AgentPlan } from './plan.ts';
import type { AcknowledgedWarning } from './warnings.ts';

/** A rendered Kubernetes object, as plain JSON. */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

export interface RenderResult {
  readonly plan: AgentPlan;
  readonly objects: readonly KubeObject[];
  readonly warnings: readonly RenderWarning[];
  /** Warnings the spec accepts on purpose, with their reasons; not printed as warnings. */
  readonly acknowledgedWarnings: readonly AcknowledgedWarning[];
}

/**
 * Renders one agent. Throws `AgentSpecError` with every problem when the spec is invalid. `checkedPlan`: the
 * plan `checkAgentDocument` (or `checkSpecText`) made for this very agent, so it is not checked twice.
 */
export function renderAgent(agent: ToolyardAgent, checkedPlan?: AgentPlan): RenderResult {
  // An explicit outdir keeps cdk8s from reading process.env, so this runs unchanged in a browser.
  const app = new App({ outdir: 'dist' });
  const chart = new Chart(app, agent.metadata.name, { disableResourceNameHashes: true });
  const construct = new Agent(chart, 'agent', {
    metadata: agent.metadata,
    spec: agent.spec,
    ...(checkedPlan ? { checkedPlan } : {}),
  });
  const objects = chart.toJson() as KubeObject[];
  return {
    plan: construct.plan,
    objects,
    warnings: construct.warnings,
    acknowledgedWarnings: construct.acknowledgedWarnings,
  };
}

/**
 * Multi-document YAML, byte-for-byte deterministic for a given spec, and byte-for-byte what `cdk8s synth`
 * writes for the same chart (cdk8s's own serializer: YAML 1.1, so `on`/`yes` strings stay quoted).
 */
export function toYamlDocuments(objects: readonly KubeObject[]): string {
  // The specialised writer produces the same bytes much faster; the general one handles what it does not.
  return objects.map((object) => manifestYaml(object) ?? Yaml.stringify(object)).join('---\n');
}

export function renderAgentYaml(agent: ToolyardAgent): { yaml: string; warnings: readonly RenderWarning[] } {
  const result = renderAgent(agent);
  return { yaml: toYamlDocuments(result.objects), warnings: result.warnings };
}
