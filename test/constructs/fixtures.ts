/** Small specs for construct tests: a minimal agent and builders for the parts under test. */

import { type KubeObject, renderAgent } from '../../constructs/src/render.ts';
import type { AgentSpec, ToolyardAgent } from '../../schema/src/types.generated.ts';

export function minimalAgent(spec: Partial<AgentSpec> = {}, name = 'tiny'): ToolyardAgent {
  return {
    apiVersion: 'toolyard.dev/v1alpha1',
    kind: 'Agent',
    metadata: { name, namespace: 'agents' },
    spec: {
      backends: [
        {
          name: 'claude',
          type: 'claude',
          image: { repository: 'ghcr.io/example/claude', tag: '1.0.0' },
          port: 8080,
          model: { apiKeySecret: { name: 'claude-credentials', key: 'api-key' } },
        },
      ],
      ...spec,
    },
  };
}

/** The model key every claude/openai/gemini backend needs while the broker is on (the default). */
export const modelKey = { apiKeySecret: { name: 'model-credentials', key: 'api-key' } };

/** `spec` with the broker off and its warning acknowledged: the pre-broker shape (CIDR egress, keys in backends). */
export function brokerOff(spec: Partial<AgentSpec> = {}): Partial<AgentSpec> {
  return {
    ...spec,
    broker: { enabled: false },
    acknowledgedWarnings: [
      ...(spec.acknowledgedWarnings ?? []),
      { warning: 'broker-disabled', reason: 'tests the CIDR rules of the pre-broker shape' },
    ],
  };
}

export const rustToolchain = {
  name: 'rust',
  image: { repository: 'docker.io/library/rust', tag: '1.83' },
  port: 8702,
  tools: { mode: 'exec' as const, presets: ['cargo' as const], allowedCommands: ['cargo'] },
};

export function objectsOf(agent: ToolyardAgent): readonly KubeObject[] {
  return renderAgent(agent).objects;
}

export function find(objects: readonly KubeObject[], kind: string, name: string): KubeObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found)
    throw new Error(
      `no ${kind} ${name} among ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`,
    );
  return found;
}

// biome-ignore lint/suspicious/noExplicitAny: test helper that walks arbitrary rendered JSON
export type Json = any;

export function podSpecOf(objects: readonly KubeObject[], name: string): Json {
  const workload = objects.find(
    (o) => (o.kind === 'Deployment' || o.kind === 'StatefulSet') && o.metadata.name === name,
  ) as Json;
  if (!workload) throw new Error(`no workload ${name}`);
  return workload.spec.template.spec;
}

export function labelsFor(agent: string, component: string): Record<string, string> {
  return {
    'app.kubernetes.io/component': component,
    'app.kubernetes.io/instance': agent,
    'app.kubernetes.io/managed-by': 'toolyard',
    'app.kubernetes.io/name': agent,
    'app.kubernetes.io/part-of': 'toolyard',
    'toolyard.dev/agent': agent,
  };
}
