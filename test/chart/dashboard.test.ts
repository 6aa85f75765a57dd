/**
 * The Grafana dashboard of a chart with `spec.observability` (charts/<agent>/dashboards/<agent>.json): built
 * typed by `@grafana/schema` (Grafana's dashboard schema as TypeScript: a field it does not know fails the
 * typecheck), its panels of plugin types that schema defines, and every metric a query names exported by the
 * toolchain server or the broker — with a control that an unknown metric is caught.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { agentDashboardJson, DASHBOARD_SCHEMA_VERSION } from '../../chart-generator/src/dashboard.ts';
import { planAgent } from '../../constructs/src/plan.ts';
import { loadSpecText } from '../../schema/src/load.ts';
import { BROKER_METRICS } from '../../toolchain-server/broker/metrics.ts';
import { METRIC_NAMES } from '../../toolchain-server/src/metrics.ts';
import { dashboardExprs, dashboardScrapeProblems, seriesUses } from '../support/dashboard-scrape.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const EXPORTED = new Set<string>([...METRIC_NAMES, ...Object.keys(BROKER_METRICS)]);

/** Metric names a PromQL expression reads (histogram series by their base name). */
function metricsOf(expr: string): string[] {
  return [...expr.matchAll(/\btoolyard_[a-z_]+/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, ''));
}

function unexported(dashboard: { panels: { targets: { expr: string }[] }[] }): string[] {
  return dashboard.panels
    .flatMap((p) => p.targets.flatMap((t) => metricsOf(t.expr)))
    .filter((m) => !EXPORTED.has(m));
}

describe('the Grafana dashboard of a chart', () => {
  const file = join(ROOT, 'charts', 'reviewer', 'dashboards', 'reviewer.json');
  const dashboard = JSON.parse(readFileSync(file, 'utf8'));

  it('is generated for the example with observability, and is what the generator writes', () => {
    const path = join(ROOT, 'examples', 'polyglot-reviewer.yaml');
    const loaded = loadSpecText(readFileSync(path, 'utf8'), path);
    assert.ok(loaded.ok);
    const plan = planAgent(loaded.specs[0]!.agent);
    assert.equal(readFileSync(file, 'utf8'), agentDashboardJson(plan));
    assert.equal(
      existsSync(join(ROOT, 'charts', 'operator', 'dashboards')),
      false,
      'no observability, no dashboard',
    );
  });

  it('uses only panel types Grafana schema defines, at the schema version the panels are written for', () => {
    const schemaDir = dirname(createRequire(import.meta.url).resolve('@grafana/schema'));
    const plugins = new Set(readdirSync(join(schemaDir, 'raw', 'composable')));
    assert.equal(dashboard.schemaVersion, DASHBOARD_SCHEMA_VERSION);
    for (const panel of dashboard.panels) assert.ok(plugins.has(panel.type), `${panel.title}: ${panel.type}`);
    assert.ok(dashboard.panels.length >= 8);
    assert.deepEqual(
      dashboard.templating.list.map((v: { name: string }) => v.name),
      ['datasource', 'agent'],
    );
  });

  it('names only metrics the toolchain server and the broker export (an unknown one is caught)', () => {
    assert.deepEqual(unexported(dashboard), []);
    const names = new Set(
      dashboard.panels.flatMap((p: { targets: { expr: string }[] }) =>
        p.targets.flatMap((t) => metricsOf(t.expr)),
      ),
    );
    for (const wanted of [
      'toolyard_broker_tokens_total',
      'toolyard_broker_cost_usd_total',
      'toolyard_tool_calls_total',
      'toolyard_policy_denials_total',
      'toolyard_tool_call_duration_seconds',
    ])
      assert.ok(names.has(wanted), wanted);
    // Control: a query naming a metric nobody exports is reported.
    assert.deepEqual(
      unexported({ panels: [{ targets: [{ expr: 'rate(toolyard_tool_callz_total[5m])' }] }] }),
      ['toolyard_tool_callz_total'],
    );
  });

  it('is checked against real scrapes by series and label (test/otel/cli-traces.test.ts), and that check can fail', () => {
    const exprs = dashboardExprs(dashboard);
    assert.ok(
      exprs.some((e) => e.startsWith('sum by (agent) (toolyard_broker_requests_total)')),
      'the agent variable',
    );
    assert.deepEqual(
      seriesUses(
        'sum by (le, toolchain) (rate(toolyard_tool_call_duration_seconds_bucket{agent=~"$agent"}[5m]))',
      ),
      [
        {
          series: 'toolyard_tool_call_duration_seconds_bucket',
          family: 'toolyard_tool_call_duration_seconds',
          labels: ['agent', 'le', 'toolchain'],
        },
      ],
    );
    const scrape = [
      '# TYPE toolyard_tool_calls_total counter',
      'toolyard_tool_calls_total{agent="a",toolchain="node",tool="exec",outcome="ok"} 1',
      '# TYPE toolyard_timeouts_total counter',
    ].join('\n');
    const expr = 'sum by (agent, toolchain, outcome) (rate(toolyard_tool_calls_total{agent=~"$agent"}[5m]))';
    assert.deepEqual(dashboardScrapeProblems([expr], [scrape]), []);
    // Controls: a label no sample has, a family not exported, a series that must have samples and has none.
    assert.deepEqual(dashboardScrapeProblems(['sum by (rule) (toolyard_tool_calls_total)'], [scrape]), [
      'toolyard_tool_calls_total: no sample has the label rule',
    ]);
    assert.deepEqual(dashboardScrapeProblems(['toolyard_tool_callz_total'], [scrape]), [
      'toolyard_tool_callz_total: not exported (no # TYPE line)',
    ]);
    assert.deepEqual(dashboardScrapeProblems(['toolyard_timeouts_total'], [scrape]), []);
    assert.deepEqual(
      dashboardScrapeProblems(['toolyard_timeouts_total'], [scrape], new Set(['toolyard_timeouts_total'])),
      ['toolyard_timeouts_total: no sample'],
    );
  });
});
