/**
 * The Grafana dashboard of a chart (`dashboards/<agent>.json`, with `spec.observability` on): what an SRE team
 * asks of an agent — model tokens in and out and the cost estimate per backend, tool calls by toolchain and
 * outcome, refusals by rule, call and broker latency — from the metrics the toolchain servers and the broker
 * export (labelled `agent` and `toolchain` by their configs' `metricsLabels`). Typed by `@grafana/schema`
 * (the TypeScript of Grafana's own dashboard schema), so a field Grafana does not know does not compile; the
 * test checks every metric a query names is exported. Pure: the site can run it.
 */
import type { Dashboard, Panel } from '@grafana/schema';
import type { AgentPlan } from '../../constructs/src/plan.ts';

/** The dashboard schema version these panels are written for. */
export const DASHBOARD_SCHEMA_VERSION = 41;

/** The dashboard's datasource variable, as Grafana writes a variable reference (`${name}`). */
const DATASOURCE = { type: 'prometheus', uid: ['$', '{datasource}'].join('') };
const AGENT = 'agent=~"$agent"';

interface PanelSpec {
  readonly title: string;
  readonly description: string;
  readonly type: 'timeseries' | 'stat' | 'table';
  readonly unit: string;
  readonly targets: readonly { readonly expr: string; readonly legend: string }[];
  readonly width?: number;
}

const PANELS: readonly PanelSpec[] = [
  {
    title: 'Model tokens by backend',
    description: 'Provider-reported tokens per second through the broker, by backend (caller) and type.',
    type: 'timeseries',
    unit: 'short',
    targets: [
      {
        expr: `sum by (agent, caller, type) (rate(toolyard_broker_tokens_total{${AGENT}}[$__rate_interval]))`,
        legend: '{{agent}} {{caller}} {{type}}',
      },
    ],
  },
  {
    title: 'Estimated model cost',
    description:
      "USD over the time range, by backend: provider-reported tokens times spec.observability.metrics.pricing (an estimate, not the provider's bill).",
    type: 'stat',
    unit: 'currencyUSD',
    targets: [
      {
        expr: `sum by (agent, caller) (increase(toolyard_broker_cost_usd_total{${AGENT}}[$__range]))`,
        legend: '{{agent}} {{caller}}',
      },
    ],
  },
  {
    title: 'Tool calls by toolchain and outcome',
    description: 'Calls per second: ok, nonzero, denied, error, timeout, cancelled, busy.',
    type: 'timeseries',
    unit: 'reqps',
    targets: [
      {
        expr: `sum by (agent, toolchain, outcome) (rate(toolyard_tool_calls_total{${AGENT}}[$__rate_interval]))`,
        legend: '{{toolchain}} {{outcome}}',
      },
    ],
  },
  {
    title: 'Refusals by rule',
    description: 'Calls the policy refused over the time range, by toolchain and rule.',
    type: 'table',
    unit: 'short',
    targets: [
      {
        expr: `sum by (agent, toolchain, rule) (increase(toolyard_policy_denials_total{${AGENT}}[$__range]))`,
        legend: '{{toolchain}} {{rule}}',
      },
    ],
  },
  {
    title: 'Tool call latency',
    description: 'p50 and p95 of tool call duration (queueing included), by toolchain.',
    type: 'timeseries',
    unit: 's',
    targets: [0.5, 0.95].map((q) => ({
      expr: `histogram_quantile(${q}, sum by (le, toolchain) (rate(toolyard_tool_call_duration_seconds_bucket{${AGENT}}[$__rate_interval])))`,
      legend: `{{toolchain}} p${q * 100}`,
    })),
  },
  {
    title: 'Broker latency by route',
    description: 'p95 of model and gateway requests through the broker, to the last byte (streams included).',
    type: 'timeseries',
    unit: 's',
    targets: [
      {
        expr: `histogram_quantile(0.95, sum by (le, target) (rate(toolyard_broker_request_duration_seconds_bucket{${AGENT},kind="route"}[$__rate_interval])))`,
        legend: '{{target}} p95',
      },
    ],
  },
  {
    title: 'Broker requests by decision',
    description: 'Requests and tunnels per second by caller and decision (allowed, denied, error).',
    type: 'timeseries',
    unit: 'reqps',
    targets: [
      {
        expr: `sum by (caller, kind, decision) (rate(toolyard_broker_requests_total{${AGENT}}[$__rate_interval]))`,
        legend: '{{caller}} {{kind}} {{decision}}',
      },
    ],
  },
  {
    title: 'Truncations and timeouts',
    description: 'Calls whose output went over the cap, and calls the timeout killed, by toolchain.',
    type: 'timeseries',
    unit: 'short',
    targets: [
      {
        expr: `sum by (toolchain) (increase(toolyard_output_truncations_total{${AGENT}}[$__rate_interval]))`,
        legend: '{{toolchain}} truncated',
      },
      {
        expr: `sum by (toolchain) (increase(toolyard_timeouts_total{${AGENT}}[$__rate_interval]))`,
        legend: '{{toolchain}} timed out',
      },
    ],
  },
];

/**
 * Each panel type's options as Grafana's panel schema requires them (its defaults): the Grafana Foundation SDK's
 * strict decoder, generated from those schemas, refuses a panel without them (test/grafana/dashboard-schema.test.ts).
 */
const PANEL_OPTIONS: Readonly<Record<PanelSpec['type'], Readonly<Record<string, unknown>>>> = {
  timeseries: {
    legend: { showLegend: true, displayMode: 'list', placement: 'bottom', calcs: [] },
    tooltip: { mode: 'multi', sort: 'desc' },
  },
  stat: {
    reduceOptions: { values: false, calcs: ['lastNotNull'], fields: '' },
    orientation: 'auto',
    textMode: 'auto',
    wideLayout: true,
    colorMode: 'value',
    graphMode: 'none',
    justifyMode: 'auto',
    showPercentChange: false,
    percentChangeColorMode: 'standard',
  },
  table: { showHeader: true, frameIndex: 0 },
};

function panel(spec: PanelSpec, index: number): Panel {
  const width = spec.width ?? 12;
  return {
    id: index + 1,
    type: spec.type,
    title: spec.title,
    description: spec.description,
    datasource: DATASOURCE,
    gridPos: { h: 8, w: width, x: (index % 2) * 12, y: Math.floor(index / 2) * 8 },
    fieldConfig: { defaults: { unit: spec.unit }, overrides: [] },
    options: structuredClone(PANEL_OPTIONS[spec.type]),
    targets: spec.targets.map((t, i) => ({
      refId: String.fromCharCode(65 + i),
      datasource: DATASOURCE,
      expr: t.expr,
      legendFormat: t.legend,
    })),
    transparent: false,
    repeatDirection: 'h',
  };
}

export function agentDashboard(plan: AgentPlan): Dashboard {
  return {
    uid: `toolyard-${plan.name}`.slice(0, 40),
    title: `toolyard: ${plan.name}`,
    description: `Model usage and cost, tool calls, refusals and latency of agent ${plan.name} (generated by toolyard).`,
    tags: ['toolyard', 'agents'],
    editable: true,
    graphTooltip: 1,
    schemaVersion: DASHBOARD_SCHEMA_VERSION,
    time: { from: 'now-6h', to: 'now' },
    refresh: '1m',
    timezone: 'browser',
    links: [],
    annotations: { list: [] },
    templating: {
      list: [
        {
          name: 'datasource',
          label: 'Prometheus',
          type: 'datasource',
          query: 'prometheus',
          hide: 0,
        },
        {
          name: 'agent',
          label: 'Agent',
          type: 'query',
          datasource: DATASOURCE,
          query: 'label_values(toolyard_broker_requests_total, agent)',
          current: { text: plan.name, value: plan.name },
          includeAll: true,
          multi: true,
          refresh: 2,
          hide: 0,
        },
      ],
    },
    panels: PANELS.map(panel),
  };
}

export function agentDashboardJson(plan: AgentPlan): string {
  return `${JSON.stringify(agentDashboard(plan), null, 2)}\n`;
}
