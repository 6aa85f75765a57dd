/**
 * The schema's `default` annotations (what editors and the docs show) and the renderer's defaults
 * (constructs/src/defaults.ts) must be the same values: render a sparse spec as is, and again with ajv filling
 * in every schema default, and require identical output.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { renderAgent, toYamlDocuments } from '../../constructs/src/render.ts';
import type { ToolyardAgent } from '../../schema/src/types.generated.ts';
import { agentSchema } from '../../schema/src/validator.ts';
import { minimalAgent } from './fixtures.ts';

function withSchemaDefaults(agent: ToolyardAgent): ToolyardAgent {
  const ajv = new Ajv({ useDefaults: true, strict: false });
  const filled = structuredClone(agent);
  assert.ok(ajv.validate(agentSchema, filled), JSON.stringify(ajv.errors));
  return filled;
}

const sparse: ToolyardAgent[] = [
  minimalAgent(),
  // The broker's settings, and egress by name, with every default left out.
  minimalAgent({
    broker: {},
    toolchains: [
      {
        name: 'rust',
        image: { repository: 'rust', tag: '1' },
        port: 8702,
        tools: { presets: ['cargo'] },
        network: { egress: { ecosystems: ['crates'] } },
      },
    ],
  }),
  minimalAgent({
    toolchains: [
      { name: 'rust', image: { repository: 'rust', tag: '1' }, port: 8702, tools: { presets: ['cargo'] } },
    ],
    gateways: [
      {
        name: 'k8s',
        image: { repository: 'k', tag: '1' },
        port: 8000,
        authority: { kubernetes: { preset: 'read-only' } },
      },
      { name: 'gh', url: 'https://gh.example/mcp', auth: { bearerTokenSecret: { name: 't', key: 'k' } } },
    ],
    // No default (issue 32): a pod with Kubernetes authority needs the control plane's addresses.
    networkPolicy: { apiServerEgress: { cidrs: ['10.96.0.1/32'], ports: [443] } },
  }),
  minimalAgent({
    workspace: { volume: { persistentVolumeClaim: { storage: '1Gi' } } },
    rbac: { preset: 'read-only' },
    networkPolicy: { apiServerEgress: { cidrs: ['10.96.0.1/32'], ports: [443] } },
  }),
];

describe('schema defaults', () => {
  for (const agent of sparse) {
    it(`match the renderer's defaults (${JSON.stringify(agent.spec).slice(0, 60)}…)`, () => {
      const filled = withSchemaDefaults(agent);
      assert.notDeepEqual(filled, agent, 'ajv filled in nothing: the test would prove nothing');
      assert.equal(toYamlDocuments(renderAgent(filled).objects), toYamlDocuments(renderAgent(agent).objects));
    });
  }
});
