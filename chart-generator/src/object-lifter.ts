/**
 * What the pod-template, cache and broker-config lifters need of the chart builder: the plan, the chart's helper
 * names, each component's values, host rewriting and the builder's own transform of nested fields. `ChartBuilder`
 * implements it; the lifters depend on this shape, not on the builder, so they import no circle with it.
 */
import type { AgentPlan, PodToolchain } from '../../constructs/src/plan.ts';
import type { KubeObject } from '../../constructs/src/render.ts';
import type { ComponentValues } from './component-values.ts';
import type { EntryNode } from './template-yaml.ts';

export type Path = readonly (string | number)[];
export type Json = Readonly<Record<string, unknown>>;

export interface ObjectLifter {
  readonly plan: AgentPlan;
  /** The chart's name: the prefix of its named templates. */
  readonly chart: string;
  /** A string with the rendered Service host names replaced by their release-dependent templates. */
  rewriteHosts(text: string): unknown;
  /** A named template of the chart, quoted for `include`. */
  helper(name: string): string;
  componentValues(component: string): ComponentValues;
  toolchainOf(component: string): PodToolchain | undefined;
  metadataEntry(
    object: KubeObject,
    meta: Json,
    component: string,
    role: 'object' | 'pod' | 'claim',
    path: Path,
  ): EntryNode;
  transform(object: KubeObject, value: unknown, path: Path, component: string): unknown;
}
