/**
 * Every chart's Grafana dashboard loads in Grafana's schema validator: the Grafana Foundation SDK's strict
 * decoder and constraints, generated from Grafana's dashboard and panel schemas (test/grafana/dashboard-validator.ts,
 * built by `npm run otel:build`). The dashboards in charts/ and the one of a spec with every panel type are
 * checked; controls: an unknown field, a panel without its options and a wrong type are refused.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { agentDashboardJson } from '../../chart-generator/src/dashboard.ts';
import { planAgent } from '../../constructs/src/plan.ts';
import { loadSpecText } from '../../schema/src/load.ts';
import { exampleFiles, REPO_ROOT } from '../support/golden.ts';
import { dashboardSchemaProblems, requireDashboardValidator } from './dashboard-validator.ts';

describe("the charts' dashboards in Grafana's schema", () => {
  let validator: string;
  before(() => {
    validator = requireDashboardValidator();
  });

  const chartDashboards = () =>
    readdirSync(join(REPO_ROOT, 'charts')).flatMap((chart) => {
      const dir = join(REPO_ROOT, 'charts', chart, 'dashboards');
      return existsSync(dir) ? readdirSync(dir).map((f) => join(dir, f)) : [];
    });

  it("every dashboard in charts/ is taken by Grafana's schema", () => {
    const files = chartDashboards();
    assert.ok(files.length > 0, 'no chart has a dashboard');
    for (const file of files)
      assert.deepEqual(dashboardSchemaProblems(validator, readFileSync(file, 'utf8')), [], file);
  });

  it('so is the dashboard the generator makes of every example', () => {
    for (const path of exampleFiles()) {
      const loaded = loadSpecText(readFileSync(join(REPO_ROOT, path), 'utf8'), path);
      assert.ok(loaded.ok, path);
      for (const { agent } of loaded.specs) {
        const json = agentDashboardJson(planAgent(agent));
        assert.deepEqual(dashboardSchemaProblems(validator, json), [], path);
      }
    }
  });

  it('controls: an unknown field, a panel without its options, a wrong type are refused', () => {
    const [file] = chartDashboards();
    const good = JSON.parse(readFileSync(file as string, 'utf8'));
    const bogus = { ...good, bogus: 1 };
    assert.match(
      dashboardSchemaProblems(validator, JSON.stringify(bogus)).join('\n'),
      /unexpected field 'bogus'/,
    );
    const bare = structuredClone(good);
    bare.panels[0].options = {};
    assert.match(
      dashboardSchemaProblems(validator, JSON.stringify(bare)).join('\n'),
      /panels\[0\]\.options\.legend: required field is missing/,
    );
    const wrong = { ...good, schemaVersion: 'forty-one' };
    assert.notDeepEqual(dashboardSchemaProblems(validator, JSON.stringify(wrong)), []);
  });
});
