/**
 * `spec.observability` with `spec.sandboxes` (issue 33): the sandbox manager exports its spans through the
 * broker's `otlp` route as a caller of that route alone — its config's `telemetry` block (exact, and taken by the
 * manager's own schema), its broker token mounted, the NetworkPolicies letting it reach the broker — while the
 * sandbox pods get no telemetry: no route, no `telemetry` in their server configs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { explainAgent, formatExplainReport } from '../../constructs/src/explain.ts';
import { planAgent } from '../../constructs/src/plan.ts';
import { renderAgent } from '../../constructs/src/render.ts';
import type { ToolyardAgent } from '../../schema/src/types.generated.ts';
import { parseBrokerConfig } from '../../toolchain-server/broker/config.ts';
import { parseSandboxManagerConfig } from '../../toolchain-server/sandbox-manager/config.ts';
import { sandboxAgent } from '../chart/sandbox-specs.ts';
import { find, type Json, podSpecOf } from './fixtures.ts';

const COLLECTOR = 'http://otel-collector.observability.svc:4318';

function withObservability(agent: ToolyardAgent, enabled: boolean): ToolyardAgent {
  return {
    ...agent,
    spec: {
      ...agent.spec,
      observability: {
        enabled,
        endpoint: {
          url: COLLECTOR,
          collectorPodLabels: { 'app.kubernetes.io/name': 'opentelemetry-collector' },
        },
        sampling: { ratio: 0.25 },
      },
    },
  };
}

const configOf = (objects: readonly Json[], name: string): Json =>
  JSON.parse((find(objects as never, 'ConfigMap', name) as Json).data['config.json']);

describe('spec.observability with sandboxes', () => {
  const objects = renderAgent(withObservability(sandboxAgent(), true)).objects as readonly Json[];

  it("renders the manager's telemetry block: the broker's otlp route, its broker token, the sampling", () => {
    const raw = configOf(objects, 'analyst-sandboxes');
    assert.deepEqual(raw.telemetry, {
      endpoint: 'http://analyst-broker.agents.svc:8480/otlp',
      tokenFile: '/etc/toolyard/broker/token',
      sampleRatio: 0.25,
      resource: {
        'toolyard.agent': 'analyst',
        'k8s.namespace.name': 'agents',
        'k8s.container.name': 'sandbox-manager',
      },
    });
    const parsed = parseSandboxManagerConfig(raw);
    assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.issues));
  });

  it('makes the manager a broker caller of the otlp route alone, with its token mounted', () => {
    const broker = parseBrokerConfig(configOf(objects, 'analyst-broker'));
    assert.ok(broker.ok, JSON.stringify(!broker.ok && broker.issues));
    const manager = broker.config.callers.find((c) => c.name === 'sandboxes');
    assert.deepEqual(
      { routes: manager?.routes, egress: manager?.egress, openPorts: manager?.openPorts },
      { routes: ['otlp'], egress: [], openPorts: [] },
    );
    const pod = podSpecOf(objects as never, 'analyst-sandboxes');
    const mount = pod.containers[0].volumeMounts.find((m: Json) => m.mountPath === '/etc/toolyard/broker');
    const volume = pod.volumes.find((v: Json) => v.name === mount?.name);
    assert.deepEqual(volume?.secret?.items, [{ key: 'sandboxes', mode: 0o440, path: 'token' }]);
  });

  it('lets the manager reach the broker, and the broker admit it (NetworkPolicies)', () => {
    const policy = (name: string) => find(objects as never, 'NetworkPolicy', name) as Json;
    const brokerPort = (rule: Json) => rule.ports?.some((p: Json) => p.port === 8480);
    const managerEgress = policy('analyst-sandboxes').spec.egress as Json[];
    assert.ok(
      managerEgress.some(
        (rule) =>
          brokerPort(rule) &&
          rule.to?.some(
            (t: Json) => t.podSelector?.matchLabels?.['app.kubernetes.io/component'] === 'broker',
          ),
      ),
      JSON.stringify(managerEgress),
    );
    const brokerIngress = policy('analyst-broker').spec.ingress as Json[];
    assert.ok(
      brokerIngress.some(
        (rule) =>
          brokerPort(rule) &&
          rule.from?.some(
            (f: Json) => f.podSelector?.matchLabels?.['app.kubernetes.io/component'] === 'sandboxes',
          ),
      ),
      JSON.stringify(brokerIngress),
    );
  });

  it('gives the sandboxes no telemetry: no otlp route for their callers, no telemetry in their configs', () => {
    const broker = parseBrokerConfig(configOf(objects, 'analyst-broker'));
    assert.ok(broker.ok);
    const sandboxCallers = broker.config.callers.filter((c) => c.name.startsWith('sandbox-'));
    assert.deepEqual(
      sandboxCallers.map((c) => [c.name, c.routes]),
      [['sandbox-python', []]],
      'the template with egress by name is a caller, of no route',
    );
    for (const template of ['python', 'offline']) {
      const server = configOf(objects, `analyst-sandbox-${template}`);
      assert.equal(server.telemetry, undefined, template);
    }
  });

  it("scrapes the manager's /metrics: a port of the metrics Service, admitted from scrapeFrom alone", () => {
    const scraped = withObservability(sandboxAgent(), true);
    const spec = scraped.spec as unknown as Json;
    spec.observability.metrics = {
      scrapeFrom: [{ namespace: 'monitoring', podLabels: { app: 'prometheus' } }],
    };
    const rendered = renderAgent(scraped).objects as readonly Json[];
    const manager = configOf(rendered, 'analyst-sandboxes');
    const port: number = manager.health.port;
    const service = find(rendered as never, 'Service', 'analyst-metrics') as Json;
    assert.ok(
      service.spec.ports.some((p: Json) => p.port === port && p.targetPort === `health-${port}`),
      JSON.stringify(service.spec.ports),
    );
    const policy = find(rendered as never, 'NetworkPolicy', 'analyst-sandboxes') as Json;
    const scrapeRules = policy.spec.ingress.filter((rule: Json) =>
      rule.from.some((peer: Json) => peer.podSelector?.matchLabels?.app === 'prometheus'),
    );
    assert.deepEqual(
      scrapeRules.map((rule: Json) => rule.ports),
      [[{ port, protocol: 'TCP' }]],
    );
    // Without scrapeFrom no scraper is admitted.
    const plain = find(objects as never, 'NetworkPolicy', 'analyst-sandboxes') as Json;
    assert.equal(plain.spec.ingress.length, 1);
  });

  it('explain lists the manager among the emitters, and its key in the tokens Secret command', () => {
    const text = formatExplainReport(explainAgent(planAgent(withObservability(sandboxAgent(), true))));
    assert.match(text, /sandbox manager.*traces/);
    assert.match(text, /--from-literal=sandboxes=/);
  });

  it('renders none of it with observability off', () => {
    const off = renderAgent(withObservability(sandboxAgent(), false)).objects as readonly Json[];
    assert.equal(configOf(off, 'analyst-sandboxes').telemetry, undefined);
    const broker = configOf(off, 'analyst-broker');
    assert.ok(!broker.callers.some((c: Json) => c.name === 'sandboxes'));
    const pod = podSpecOf(off as never, 'analyst-sandboxes');
    assert.ok(!pod.containers[0].volumeMounts.some((m: Json) => m.mountPath === '/etc/toolyard/broker'));
  });
});
