/**
 * The fleet site's agent page shows what `toolyard explain` says of observability: the endpoint, the route it
 * goes through, and each component with what it emits and what it does with trace context; nothing when off.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { agentObservabilitySection } from '../../cli/src/fleet/fleet-site/agent-observability.ts';
import { explainAgent } from '../../constructs/src/explain.ts';
import { planAgent } from '../../constructs/src/plan.ts';
import { loadSpecText } from '../../schema/src/load.ts';
import { REPO_ROOT } from '../support/golden.ts';

function exampleAgent(file: string) {
  const path = join(REPO_ROOT, 'examples', file);
  const loaded = loadSpecText(readFileSync(path, 'utf8'), path);
  assert.ok(loaded.ok, file);
  return loaded.specs[0]!.agent;
}

describe("the fleet site's observability section", () => {
  it('lists the endpoint, the broker route and every emitter explain reports, with its trace context', () => {
    const agent = exampleAgent('polyglot-reviewer.yaml');
    const report = explainAgent(planAgent(agent));
    assert.ok(report.observability, 'the example has observability');
    const page = String(agentObservabilitySection(report));
    assert.match(page, /<h2>Observability<\/h2>/);
    assert.ok(page.includes(`<code>${report.observability.endpoint}</code>`), page);
    const rows = [...page.matchAll(/<tr><td>([^<]*)<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><\/tr>/g)];
    assert.equal(rows.length, report.observability.emitters.length);
    assert.ok(rows.length >= 3, 'backends, toolchains and the broker');
    for (const toolchain of agent.spec.toolchains ?? [])
      assert.ok(
        rows.some((r) => r[1]?.includes(toolchain.name)),
        `toolchain ${toolchain.name} is listed`,
      );
    assert.ok(
      rows.some((r) => /broker/.test(r[1] ?? '')),
      'the broker is listed',
    );
    assert.ok(
      rows.every((r) => (r[3] ?? '').trim().length > 0),
      'each says what it does with trace context',
    );
  });

  it('is absent for an agent without observability', () => {
    const report = explainAgent(planAgent(exampleAgent('web-infra.yaml')));
    assert.equal(report.observability, undefined);
    assert.equal(String(agentObservabilitySection(report)), '');
  });
});
