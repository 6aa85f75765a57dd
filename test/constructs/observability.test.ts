/**
 * `spec.observability` rendered (docs/observability.md): off by default; on, every backend and toolchain is a
 * caller of the broker's otlp route, which forwards to the collector with its credential; the toolchain server
 * configs (parsed by the server's own schema) and the broker's config export through it; each CLI's managed
 * settings export there with content logging pinned off; the broker's NetworkPolicy reaches an in-cluster
 * collector; the checks name the field and what to do.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { explainAgent, formatExplainReport } from '../../constructs/src/explain.ts';
import { planAgent } from '../../constructs/src/plan.ts';
import { checkAgentPlan } from '../../constructs/src/semantic-checks.ts';
import type { AgentSpec } from '../../schema/src/types.generated.ts';
import { parseBrokerConfig } from '../../toolchain-server/broker/config.ts';
import { parseToolchainServerConfig } from '../../toolchain-server/src/config.ts';
import { find, type Json, minimalAgent, modelKey, objectsOf, podSpecOf, rustToolchain } from './fixtures.ts';

const COLLECTOR = 'http://otel-collector.observability.svc:4318';

function spec(observability: AgentSpec['observability'], extra: Partial<AgentSpec> = {}): Partial<AgentSpec> {
  return {
    backends: [
      { name: 'claude', type: 'claude', image: { repository: 'c', tag: '1' }, port: 8080, model: modelKey },
      { name: 'codex', type: 'openai', image: { repository: 'o', tag: '1' }, port: 8081, model: modelKey },
      { name: 'gemini', type: 'gemini', image: { repository: 'g', tag: '1' }, port: 8082, model: modelKey },
    ],
    toolchains: [
      rustToolchain,
      {
        ...rustToolchain,
        name: 'far',
        port: 8703,
        placement: 'pod',
        auth: { bearerTokenSecret: { name: 'far-token', key: 'token' } },
      },
    ],
    workspace: { volume: { persistentVolumeClaim: { storage: '1Gi', accessModes: ['ReadWriteMany'] } } },
    observability,
    ...extra,
  };
}

const on = {
  enabled: true,
  endpoint: { url: COLLECTOR, collectorPodLabels: { 'app.kubernetes.io/name': 'opentelemetry-collector' } },
};

function configMapData(objects: ReturnType<typeof objectsOf>, name: string): Record<string, string> {
  return (find(objects, 'ConfigMap', name) as Json).data;
}

describe('spec.observability', () => {
  it('is off by default: no otlp route, no telemetry in any config', () => {
    const objects = objectsOf(minimalAgent(spec(undefined)));
    const broker = JSON.parse(configMapData(objects, 'tiny-broker')['config.json'] as string);
    assert.deepEqual(
      broker.routes.map((r: Json) => r.name),
      ['model-claude', 'model-codex', 'model-gemini'],
    );
    assert.equal(broker.telemetry, undefined);
    assert.doesNotMatch(JSON.stringify(objects), /OTEL_|otlp|"telemetry"/);
  });

  it('routes every emitter through the broker otlp route to the collector', () => {
    const agent = minimalAgent(spec(on));
    const objects = objectsOf(agent);
    const broker = parseBrokerConfig(
      JSON.parse(configMapData(objects, 'tiny-broker')['config.json'] as string),
    );
    assert.ok(broker.ok, JSON.stringify(!broker.ok && broker.issues));
    const route = broker.config.routes.find((r) => r.name === 'otlp');
    assert.deepEqual(
      { kind: route?.kind, upstream: route?.upstream, insecureHttp: route?.insecureHttp },
      { kind: 'telemetry', upstream: COLLECTOR, insecureHttp: true },
    );
    assert.equal(broker.config.telemetry?.route, 'otlp');
    assert.equal(broker.config.telemetry?.resource['toolyard.agent'], 'tiny');
    for (const caller of broker.config.callers) assert.ok(caller.routes.includes('otlp'), caller.name);
    assert.deepEqual(
      broker.config.callers.map((c) => c.name),
      ['claude', 'codex', 'gemini', 'toolchain-rust', 'toolchain-far'],
    );
    // Both toolchain servers export through the route with their broker token, and serve /metrics on the probe port.
    for (const name of ['tiny-toolchain-rust', 'tiny-toolchain-far']) {
      const server = parseToolchainServerConfig(
        JSON.parse(configMapData(objects, name)['config.json'] as string),
      );
      assert.ok(server.ok, JSON.stringify(!server.ok && server.issues));
      assert.equal(server.config.telemetry?.endpoint, 'http://tiny-broker.agents.svc:8480/otlp');
      assert.equal(server.config.telemetry?.tokenFile, '/etc/toolyard/broker/token');
      assert.equal(server.config.health?.metrics, true);
    }
    // The toolchain pod without egress now reaches the broker (and DNS), and mounts its broker token.
    const far = podSpecOf(objects, 'tiny-toolchain-far');
    assert.ok(far.containers[0].volumeMounts.some((m: Json) => m.mountPath === '/etc/toolyard/broker'));
    const farPolicy = find(objects, 'NetworkPolicy', 'tiny-toolchain-far') as Json;
    assert.ok(JSON.stringify(farPolicy.spec.egress).includes('"app.kubernetes.io/component":"broker"'));
    // The broker reaches the collector's pods in their namespace, on the URL's port.
    const brokerPolicy = find(objects, 'NetworkPolicy', 'tiny-broker') as Json;
    assert.ok(
      brokerPolicy.spec.egress.some(
        (rule: Json) =>
          rule.ports?.[0]?.port === 4318 &&
          rule.to?.[0]?.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === 'observability' &&
          rule.to?.[0]?.podSelector?.matchLabels?.['app.kubernetes.io/name'] === 'opentelemetry-collector',
      ),
    );
  });

  it('sets each CLI to export through the route, with content logging off and the token by reference', () => {
    const objects = objectsOf(minimalAgent(spec({ ...on, protocol: 'http/json', export: { logs: true } })));
    const data = configMapData(objects, 'tiny-mcp-clients');
    const claude = JSON.parse(data['claude.managed-settings.json'] as string);
    assert.equal(claude.env.OTEL_EXPORTER_OTLP_ENDPOINT, 'http://tiny-broker.agents.svc:8480/otlp');
    assert.equal(claude.env.OTEL_EXPORTER_OTLP_PROTOCOL, 'http/json');
    assert.equal(claude.env.OTEL_LOGS_EXPORTER, 'otlp');
    assert.equal(claude.env.CLAUDE_CODE_PROPAGATE_TRACEPARENT, '1');
    assert.equal(claude.env.OTEL_LOG_TOOL_DETAILS, '0');
    assert.equal(claude.env.ANTHROPIC_BASE_URL, 'http://tiny-broker.agents.svc:8480/model-claude');
    assert.match(data['codex.config.toml'] as string, /\[otel\][^[]*log_user_prompt = false/);
    assert.match(
      data['codex.config.toml'] as string,
      /\[otel\.trace_exporter\.otlp-http\]\nendpoint = "http:\/\/tiny-broker\.agents\.svc:8480\/otlp\/v1\/traces"\nprotocol = "json"/,
    );
    const gemini = JSON.parse(data['gemini.settings.json'] as string);
    assert.deepEqual(gemini.telemetry, {
      enabled: true,
      target: 'local',
      otlpEndpoint: 'http://tiny-broker.agents.svc:8480/otlp',
      otlpProtocol: 'http',
      useCollector: false,
      traces: true,
      logPrompts: false,
    });
    // The export credential: the container's own broker token, by $(VAR) expansion after it is defined.
    const env = podSpecOf(objects, 'tiny').containers.find((c: Json) => c.name === 'codex').env as Json[];
    const token = env.findIndex((e) => e.name === 'TOOLYARD_BROKER_TOKEN');
    const headers = env.findIndex((e) => e.name === 'OTEL_EXPORTER_OTLP_HEADERS');
    assert.ok(token >= 0 && headers > token);
    assert.equal(env[headers].value, 'Authorization=Bearer $(TOOLYARD_BROKER_TOKEN)');
    // A spec may not set the generated telemetry keys itself.
    const clash = checkAgentPlan(
      planAgent(
        minimalAgent(
          spec(on, {
            backends: [
              {
                name: 'gemini',
                type: 'gemini',
                image: { repository: 'g', tag: '1' },
                port: 8082,
                model: modelKey,
                settings: { telemetry: { logPrompts: true } },
              },
            ],
          }),
        ),
      ),
    );
    assert.ok(
      clash.some((p) => p.path.endsWith('/settings/telemetry/logPrompts')),
      JSON.stringify(clash),
    );
  });

  it('renders the metrics Service (annotated, or with a ServiceMonitor) and lets only the scrapers in', () => {
    const annotated = objectsOf(minimalAgent(spec(on)));
    const service = find(annotated, 'Service', 'tiny-metrics') as Json;
    assert.equal(service.metadata.annotations['prometheus.io/scrape'], 'true');
    assert.deepEqual(service.spec.selector, { 'toolyard.dev/agent': 'tiny' });
    assert.deepEqual(
      service.spec.ports.map((p: Json) => `${p.name}:${p.port}->${p.targetPort}`),
      ['health-9702:9702->health-9702', 'health-9703:9703->health-9703', 'broker-health:9480->health'],
    );
    assert.ok(!annotated.some((o) => o.kind === 'ServiceMonitor'));
    const monitored = objectsOf(
      minimalAgent(
        spec({
          ...on,
          metrics: {
            scrape: 'serviceMonitor',
            scrapeFrom: [{ namespace: 'monitoring', podLabels: { app: 'prometheus' } }],
          },
        }),
      ),
    );
    const monitor = find(monitored, 'ServiceMonitor', 'tiny-metrics') as Json;
    assert.deepEqual(
      monitor.spec.endpoints.map((e: Json) => e.port),
      ['health-9702', 'health-9703', 'broker-health'],
    );
    assert.equal((find(monitored, 'Service', 'tiny-metrics') as Json).metadata.annotations, undefined);
    const agentPolicy = find(monitored, 'NetworkPolicy', 'tiny') as Json;
    const scrape = agentPolicy.spec.ingress.find(
      (r: Json) => r.from[0].namespaceSelector?.matchLabels['kubernetes.io/metadata.name'] === 'monitoring',
    );
    assert.deepEqual(scrape.ports, [{ port: 9702, protocol: 'TCP' }]);
    // Without scrapeFrom no policy admits a scraper.
    assert.ok(!JSON.stringify(find(annotated, 'NetworkPolicy', 'tiny-broker')).includes('9480'));
  });

  it('explain says which component emits what, with which trace context, and where it goes', () => {
    const text = formatExplainReport(explainAgent(planAgent(minimalAgent(spec(on)))));
    assert.match(text, /^Observability: OTLP to http:\/\/otel-collector\.observability\.svc:4318$/m);
    assert.match(text, /through: http:\/\/tiny-broker\.agents\.svc:8480\/otlp \(the broker's otlp route/);
    assert.match(
      text,
      /backend gemini \(gemini\): traces, metrics \(OTLP\), logs \(OTLP\)\n +propagates no trace context/,
    );
    assert.match(text, /toolchain rust: traces, \/metrics \(Prometheus\)/);
    assert.match(text, /metrics: prometheus\.io\/scrape annotations on Service tiny-metrics/);
    assert.doesNotMatch(
      formatExplainReport(explainAgent(planAgent(minimalAgent(spec(undefined))))),
      /Observability/,
    );
  });

  it('keeps the collector credential in the broker alone', () => {
    const objects = objectsOf(
      minimalAgent(
        spec({
          enabled: true,
          endpoint: {
            url: 'https://api.honeycomb.io',
            credential: {
              secretKeyRef: { name: 'otlp-key', key: 'key' },
              header: 'x-honeycomb-team',
              prefix: '',
            },
          },
        }),
      ),
    );
    const broker = JSON.parse(configMapData(objects, 'tiny-broker')['config.json'] as string);
    const route = broker.routes.find((r: Json) => r.name === 'otlp');
    assert.deepEqual(route.credential, {
      file: '/etc/toolyard/broker/keys/otlp/key',
      header: 'x-honeycomb-team',
      prefix: '',
    });
    const mounts = objects
      .filter((o) => JSON.stringify(o).includes('"otlp-key"'))
      .map((o) => `${o.kind}/${o.metadata.name}`);
    assert.deepEqual(mounts, ['Deployment/tiny-broker']);
  });

  it('checks: endpoint, broker, https, port, collector labels, pricing and team labels, each naming the field', () => {
    const problems = (s: Partial<AgentSpec>, labels?: Record<string, string>) => {
      const agent = minimalAgent(s);
      if (labels) agent.metadata.labels = labels;
      return checkAgentPlan(planAgent(agent)).map((p) => `${p.path}: ${p.message}`);
    };
    assert.deepEqual(problems(spec({ enabled: true })), [
      '/spec/observability/endpoint: observability is enabled but has no endpoint',
    ]);
    assert.ok(
      problems(
        spec(on, {
          broker: { enabled: false },
          acknowledgedWarnings: [{ warning: 'broker-disabled', reason: 'test' }],
        }),
      ).includes(
        '/spec/observability/enabled: observability needs the broker: every span, metric and log leaves the agent through its otlp route',
      ),
    );
    assert.deepEqual(problems(spec({ enabled: true, endpoint: { url: 'http://otlp.example.com:4318' } })), [
      '/spec/observability/endpoint/url: http://otlp.example.com:4318 is outside the cluster and not https: telemetry would cross the internet in clear text',
      '/spec/observability/endpoint/url: the broker may not open port 4318 to public addresses (broker.egressPorts: 443)',
    ]);
    assert.deepEqual(problems(spec({ enabled: true, endpoint: { url: COLLECTOR } })), [
      "/spec/observability/endpoint/collectorPodLabels: otel-collector.observability.svc is a collector in the cluster, and the broker's NetworkPolicy must name its pods to reach it",
    ]);
    assert.deepEqual(
      problems(
        spec({
          enabled: true,
          endpoint: { url: 'https://otlp.example.com', collectorPodLabels: { a: 'b' } },
        }),
      ),
      [
        '/spec/observability/endpoint/collectorPodLabels: collectorPodLabels is for an in-cluster collector (a <service>.<namespace>.svc URL) only',
      ],
    );
    assert.deepEqual(
      problems(
        spec({ ...on, metrics: { pricing: { claud: { input: 1, output: 2 } } }, teamLabels: ['team'] }),
        { tier: 'x' },
      ),
      [
        '/spec/observability/metrics/pricing/claud: "claud" is not a backend of agent "tiny" (did you mean "claude"?)',
        '/spec/observability/teamLabels/0: metadata.labels has no "team" to copy into the resource attributes',
      ],
    );
    assert.deepEqual(problems(spec(on)), []);
  });
});
