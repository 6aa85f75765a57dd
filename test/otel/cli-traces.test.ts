/**
 * One trace per agent action, in a real OTLP backend (docs/observability.md). Jaeger v2, built from its Go
 * module (test/otel/jaeger.ts), runs as the in-cluster collector `otel-collector.observability.svc:4318` in the
 * upstream network namespace; the real broker (its rendered pod) forwards every export to it through its otlp
 * route; the real toolchain server runs as the rendered sidecar in the agent namespace; stock Claude Code and
 * Codex run with their plain headless commands in the rendered backend containers, with the rendered managed
 * settings, against scripted fake model APIs behind the broker. Each CLI makes a tool call (`exec_allowed`
 * `echo <canary>` on the toolchain) and the test reads the toolchain server's audit line for its trace id, then
 * asks Jaeger's query API for that trace: it holds the CLI's own spans, the toolchain server's call span with
 * the routing reason (`local-execution`) and its process span, and the broker's model-route span (`model`) —
 * one trace. Gemini CLI propagates no trace context: its spans arrive, correlated by its session id, not
 * joined. No span attribute or resource of any trace holds a model key, a broker token, the prompt or the
 * canary the tool call carried.
 *
 * A tool call that reaches the broker: Claude Code calls `run_code`, whose program calls the `tickets` gateway
 * (an external MCP server behind the broker's gateway route, its token in the broker alone) and this toolchain's
 * own tool, which refuses a command. One trace holds the CLI's spans, the run_code call, the program, the
 * proxied call (`external-authority`, client) and below it the broker's gateway-route span
 * (`external-authority`); the gateway got that trace's context. Then every series and label the rendered Grafana
 * dashboard reads is checked against the broker's and the toolchain server's real `/metrics` after the runs.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { agentDashboard } from '../../chart-generator/src/dashboard.ts';
import { planAgent } from '../../constructs/src/plan.ts';
import { type KubeObject, renderAgent } from '../../constructs/src/render.ts';
import type { ToolyardAgent } from '../../schema/src/types.generated.ts';
import { requireBackendClis } from '../backends/backend-clis.ts';
import { type FakeGateway, startFakeGateway } from '../backends/fake-gateway.ts';
import { type FakeApi, ModelScript } from '../backends/fake-model.ts';
import {
  canEmulatePods,
  installServerBundle,
  PodVolumes,
  renderedPod,
  runContainer,
  type StartedContainer,
  startContainer,
} from '../backends/pod-emulation.ts';
import { makeTestCa, type TestCa } from '../broker/tls-fixture.ts';
import {
  type BrokerProcess,
  brokerMissing,
  eventually,
  startBrokerPod,
} from '../broker-e2e/broker-process.ts';
import { BROKER_AGENT_SIDE, BrokerTopology } from '../broker-e2e/topology.ts';
import { dashboardExprs, dashboardScrapeProblems } from '../support/dashboard-scrape.ts';
import { type Jaeger, jaegerMissing, type StoredSpan, startJaeger } from './jaeger.ts';
import {
  AGENT,
  BROKER_SERVICE,
  CLIS,
  type Cli,
  COLLECTOR,
  COLLECTOR_ADDRESS,
  GATEWAY_HOST,
  GATEWAY_SECRET,
  random,
  tracedAgentSpec,
  WORKSPACE,
} from './traced-agent.ts';

const run = promisify(execFile);

describe('one trace per agent action, in Jaeger', { timeout: 15 * 60_000 }, () => {
  let dir: string;
  let ca: TestCa | undefined;
  let topology: BrokerTopology | undefined;
  let broker: BrokerProcess | undefined;
  let jaeger: Jaeger | undefined;
  let gateway: FakeGateway | undefined;
  let objects: readonly KubeObject[];
  let spec: ToolyardAgent;
  let volumes: PodVolumes;
  let toolchain: StartedContainer | undefined;
  let toolchainOut = '';
  let imageMounts: Record<string, string>;
  const apis = new Map<string, FakeApi>();
  const keys = new Map(CLIS.map((c) => [c.backend, random(`real-${c.keyName}-key`)]));
  const tokens = new Map(
    [...CLIS.map((c) => c.backend), 'toolchain-node'].map((n) => [n, random(`broker-token-${n}`)]),
  );
  const canaries = new Map(CLIS.map((c) => [c.backend, random(`canary-${c.backend}`)]));
  const prompts = new Map(CLIS.map((c) => [c.backend, `Run the toolchain ${random('prompt')}.`]));
  const gatewayToken = random('gateway-token');
  const gatewayAnswer = random('gateway-answer');
  const ticketCanary = random('canary-ticket');
  const codePrompt = `Ask the tickets gateway through run_code ${random('prompt')}.`;
  const scripts = new Map(
    CLIS.map((c) => [
      c.backend,
      new ModelScript(
        [
          {
            tool: c.tool,
            args: { command: ['echo', canaries.get(c.backend)] },
            expect: canaries.get(c.backend) as string,
          },
        ],
        random(`answer-${c.backend}`),
      ),
    ]),
  );
  let secrets: ReadonlyMap<string, Record<string, string>>;

  before(async () => {
    const reason = canEmulatePods() ?? brokerMissing() ?? jaegerMissing();
    if (reason) throw new Error(reason);
    const cliDir = requireBackendClis();
    dir = mkdtempSync(join(tmpdir(), 'toolyard-cli-traces-'));
    topology = new BrokerTopology();
    ca = makeTestCa();
    for (const cli of CLIS) {
      const site = await topology.site(ca, [cli.host]);
      apis.set(
        cli.backend,
        await cli.start(scripts.get(cli.backend) as ModelScript, {
          ...site,
          credential: { header: cli.header, value: `${cli.prefix}${keys.get(cli.backend)}` },
        }),
      );
    }
    // The collector: Jaeger in the upstream namespace, found by the broker under its Service name.
    topology.host([COLLECTOR], COLLECTOR_ADDRESS);
    const namespaces = topology.namespaces;
    jaeger = await startJaeger({
      host: COLLECTOR_ADDRESS,
      otlpPort: 4318,
      queryPort: 16686,
      exec: namespaces.exec('upstream', []),
      get: async (url) => (await run('ip', namespaces.exec('upstream', ['curl', '-s', url]).slice(1))).stdout,
    });

    gateway = await startFakeGateway({
      token: gatewayToken,
      toolName: 'lookup_ticket',
      answer: gatewayAnswer,
      listener: await topology.site(ca, [GATEWAY_HOST]),
    });
    spec = tracedAgentSpec();
    objects = renderAgent(spec).objects;
    secrets = new Map([
      [GATEWAY_SECRET, { token: gatewayToken }],
      [`${AGENT}-broker-tokens`, Object.fromEntries(tokens)],
      ['model-keys', Object.fromEntries(CLIS.map((c) => [c.keyName, keys.get(c.backend) as string]))],
    ]);
    broker = await startBrokerPod({ topology, objects, secrets, caPem: ca.ca, dir });
    const { pod, configMaps } = renderedPod(objects, AGENT);
    volumes = new PodVolumes(join(dir, 'volumes'), pod, configMaps, secrets);
    const workspace = volumes.hostPath('workspace');
    execFileSync('git', ['init', '-q', workspace]);
    execFileSync('chown', ['-R', '65532:65532', ...readdirSync(workspace).map((f) => join(workspace, f))]);
    // Node, the server and its helpers (toolyard-confine, toolyard-codebox for run_code), as the image holds them.
    installServerBundle(volumes);
    imageMounts = { '/opt/backend-clis': cliDir, '/opt/node/bin': dirname(process.execPath) };
    toolchain = startContainer(volumes, 'toolchain-node', {
      imageEnv: { PATH: '/usr/local/bin:/usr/bin:/bin' },
      hosts: [`${BROKER_AGENT_SIDE} ${BROKER_SERVICE}`],
      netns: namespaces.exec('agent', []),
    });
    toolchain.child.stdout?.on('data', (chunk: Buffer) => {
      toolchainOut += chunk.toString('utf8');
    });
    const started = await eventually(() => toolchainOut.includes('"event":"listening"'), 30_000);
    assert.ok(started, `the toolchain server did not start: ${toolchainOut}`);
  });

  after(async () => {
    if (toolchain?.child.pid)
      try {
        process.kill(-toolchain.child.pid, 'SIGTERM');
      } catch {}
    await broker?.stop();
    await jaeger?.stop();
    await gateway?.close();
    await Promise.all([...apis.values()].map((api) => api.close()));
    topology?.remove();
    ca?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Every value that must never be in a trace: keys, tokens, every prompt and canary. */
  const forbidden = () => [
    ...keys.values(),
    ...tokens.values(),
    ...canaries.values(),
    ...prompts.values(),
    gatewayToken,
    ticketCanary,
    codePrompt,
  ];

  const auditTraces = (): string[] =>
    toolchainOut
      .split('\n')
      .filter((l) => l.includes('"event":"audit"'))
      .map((l) => (JSON.parse(l) as { trace?: string | null }).trace ?? '')
      .filter(Boolean);

  /** Runs the CLI's plain headless command in its backend container, as rendered. */
  const runCli = async (cli: Cli, prompt: string) => {
    const result = await runContainer(volumes, cli.backend, {
      argv: cli.argv(prompt),
      cwd: WORKSPACE,
      imageMounts,
      imageEnv: {
        PATH: '/opt/backend-clis/node_modules/.bin:/opt/node/bin:/usr/local/bin:/usr/bin:/bin',
        NO_COLOR: '1',
      },
      secretEnv: volumes.secretEnv(cli.backend),
      hosts: [`${BROKER_AGENT_SIDE} ${BROKER_SERVICE}`],
      netns: topology!.namespaces.exec('agent', []),
      timeoutMs: 180_000,
    });
    const context = `exit ${result.code}\nstdout: ${result.stdout.slice(-1500)}\nstderr: ${result.stderr.slice(-2500)}\nbroker: ${broker!.output().slice(-2500)}\ntoolchain: ${toolchainOut.slice(-1500)}`;
    return { result, context };
  };

  /** The stored trace, once `complete` holds of it (spans arrive in batches) or after 30 s. */
  const storedTrace = async (traceId: string, complete: (spans: StoredSpan[]) => boolean) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const spans = await jaeger!.trace(traceId);
      if (complete(spans) || Date.now() > deadline) return spans;
      await new Promise((r) => setTimeout(r, 500));
    }
  };

  for (const cli of CLIS) {
    it(`${cli.backend}: the CLI's spans, the toolchain call with its routing reason and the broker's model span${cli.propagates ? ' make one trace' : ' arrive, correlated by session'}`, async () => {
      const before = auditTraces().length;
      const prompt = prompts.get(cli.backend) as string;
      const { result, context } = await runCli(cli, prompt);
      const script = scripts.get(cli.backend) as ModelScript;
      assert.equal(result.code, 0, context);
      assert.deepEqual(script.problems(), [], context);
      const traceId = auditTraces().slice(before).at(-1);
      assert.ok(traceId, `the tool call's audit line has no trace id\n${context}`);
      // Each component exports in its own batches: wait for the call and process spans, and with a CLI that
      // propagates, the broker's span and the call's parent.
      const spans = await storedTrace(traceId, (found) => {
        const call = found.find((s) => s.name === 'tools/call exec_allowed' && s.kind === 2);
        return (
          call !== undefined &&
          found.some((s) => s.name === 'exec echo') &&
          (!cli.propagates ||
            (found.some((s) => s.service === 'toolyard-broker') &&
              found.some((s) => s.spanId === call.parentSpanId)))
        );
      });
      const summary = JSON.stringify(spans.map((s) => `${s.service}: ${s.name} (${s.kind})`));
      const call = spans.find(
        (s) => s.service === 'toolyard-toolchain-server' && s.name === 'tools/call exec_allowed',
      );
      assert.ok(call, `no toolchain call span in trace ${traceId}: ${summary}`);
      assert.equal(call.kind, 2);
      assert.equal(call.attributes['toolyard.class'], 'local-execution');
      assert.equal(
        call.attributes['toolyard.routing.reason'],
        'command echo matched toolchain node handles.commands; command echo is in toolchain node tools.allowedCommands',
      );
      assert.equal(call.resource['toolyard.agent'], AGENT);
      assert.equal(call.resource.team, 'platform');
      assert.ok(
        spans.some((s) => s.name === 'exec echo' && s.parentSpanId === call.spanId),
        summary,
      );
      if (cli.propagates) {
        const model = spans.find(
          (s) =>
            s.service === 'toolyard-broker' &&
            s.attributes['toolyard.broker.route'] === `model-${cli.backend}`,
        );
        assert.ok(model, `no broker model span in trace ${traceId}: ${summary}`);
        assert.equal(model.attributes['toolyard.class'], 'model');
        assert.equal(model.kind, 2);
        const own = spans.filter((s) => cli.service.test(s.service));
        assert.ok(own.length > 0, `no ${cli.backend} span in trace ${traceId}: ${summary}`);
        // The toolchain call's parent is a span the CLI exported (its tool or MCP client span): joined, not
        // merely sharing a trace id.
        const parent = spans.find((s) => s.spanId === call.parentSpanId);
        assert.ok(
          parent && cli.service.test(parent.service),
          `parent of the call: ${parent?.service} ${summary}`,
        );
      } else {
        // No propagation: the call starts its own trace; the CLI's spans are in Jaeger under its own service,
        // each with its session id to correlate by.
        assert.equal(call.parentSpanId, undefined, summary);
        const ids = await jaeger!.traceIds('gemini-cli');
        assert.ok(ids.length > 0, 'no gemini-cli trace in Jaeger');
        const own = await jaeger!.trace(ids[0] as string);
        assert.ok(
          own.some((s) => typeof s.resource['session.id'] === 'string'),
          JSON.stringify(own.slice(0, 2)),
        );
        const text = JSON.stringify(own);
        for (const secret of forbidden())
          assert.ok(!text.includes(secret), `a gemini-cli trace holds ${secret.slice(0, 12)}…`);
      }
      // Control: the canary did reach the command (the audit line's argv has it): its absence above means something.
      assert.ok(toolchainOut.includes(canaries.get(cli.backend) as string));
      const text = JSON.stringify(spans);
      for (const secret of forbidden())
        assert.ok(!text.includes(secret), `trace ${traceId} holds ${secret.slice(0, 12)}…`);
    });
  }

  it("claude: run_code's program calls the gateway through the broker; the proxied call and the broker's gateway span join the CLI's trace", async () => {
    const cli = CLIS[0] as Cli;
    const script = scripts.get(cli.backend) as ModelScript;
    const code = [
      `const ticket = await mcp_tickets.lookup_ticket({ id: ${JSON.stringify(ticketCanary)} });`,
      // This toolchain's own tool refuses a command it does not allow: a refusal by rule, for the dashboard's panel.
      "const refused = await mcp_node.exec_allowed({ command: ['uname'] }).then((r) => 'result ' + r.isError, (e) => 'error ' + e.code);",
      "console.log('ticket=' + ticket.text + ' refused=' + refused);",
    ].join('\n');
    script.restart([
      {
        tool: /^mcp__toolchain-node__run_code$/,
        args: { language: 'javascript', code },
        expect: gatewayAnswer,
      },
    ]);
    const before = auditTraces().length;
    const { result, context } = await runCli(cli, codePrompt);
    assert.equal(result.code, 0, context);
    assert.deepEqual(script.problems(), [], context);
    const traceId = auditTraces().slice(before).at(-1);
    assert.ok(traceId, `run_code's audit line has no trace id\n${context}`);
    const brokerGatewaySpan = (s: StoredSpan) =>
      s.service === 'toolyard-broker' && s.attributes['toolyard.broker.route'] === 'gateway-tickets';
    // Each component exports in its own batches: wait for the broker's, the CLI's and the toolchain's spans.
    const wanted = ['tools/call run_code', 'run_code javascript', 'tools/call lookup_ticket'];
    const spans = await storedTrace(
      traceId,
      (found) =>
        found.some(brokerGatewaySpan) &&
        found.some((s) => cli.service.test(s.service)) &&
        wanted.every((name) => found.some((s) => s.name === name)),
    );
    const summary = JSON.stringify(
      spans.map((s) => `${s.service}: ${s.name} (${s.kind}) ${s.spanId}<-${s.parentSpanId}`),
    );
    const toolchainSpan = (name: string, kind: number) =>
      spans.find((s) => s.service === 'toolyard-toolchain-server' && s.name === name && s.kind === kind);
    const runCall = toolchainSpan('tools/call run_code', 2);
    const program = toolchainSpan('run_code javascript', 1);
    const proxied = toolchainSpan('tools/call lookup_ticket', 3);
    const upstream = spans.find(brokerGatewaySpan);
    assert.ok(runCall && program && proxied && upstream, summary);
    const parent = spans.find((s) => s.spanId === runCall.parentSpanId);
    assert.ok(
      parent && cli.service.test(parent.service),
      `run_code's parent is no span of the CLI's: ${summary}`,
    );
    assert.equal(runCall.attributes['toolyard.class'], 'local-execution');
    assert.equal(program.parentSpanId, runCall.spanId, summary);
    assert.equal(proxied.parentSpanId, program.spanId, summary);
    assert.equal(proxied.attributes['toolyard.class'], 'external-authority');
    assert.equal(proxied.attributes['toolyard.code_mode.server'], 'tickets');
    // The broker's span of the gateway route is the proxied call's child: the authority is in the same trace.
    assert.equal(upstream.parentSpanId, proxied.spanId, summary);
    assert.equal(upstream.kind, 2);
    assert.equal(upstream.attributes['toolyard.class'], 'external-authority');
    assert.equal(upstream.attributes['server.address'], GATEWAY_HOST);
    assert.equal(upstream.attributes['toolyard.broker.caller'], 'toolchain-node');
    // The gateway got the broker span as its parent, and its own token (set by the broker).
    const call = gateway!.requests.filter((r) => r.method === 'tools/call').at(-1);
    assert.equal(call?.traceparent, `00-${traceId}-${upstream.spanId}-01`);
    assert.equal(call?.authorized, true);
    // The refusal inside the program: a server span of this toolchain with its rule, and no process ran.
    const refusal = spans.find(
      (s) =>
        s.name === 'tools/call exec_allowed' &&
        s.kind === 2 &&
        s.attributes['toolyard.decision'] === 'denied',
    );
    assert.ok(refusal && typeof refusal.attributes['toolyard.rule'] === 'string', summary);
    assert.ok(!spans.some((s) => s.name === 'exec uname'), summary);
    // Control: the canary reached the gateway as the call's argument; no span holds it, the code or a token.
    assert.ok(gateway!.calls.some((c) => JSON.stringify(c).includes(ticketCanary)));
    const text = JSON.stringify(spans);
    for (const secret of [...forbidden(), 'lookup_ticket({'])
      assert.ok(!text.includes(secret), `trace ${traceId} holds ${secret.slice(0, 12)}…`);
  });

  it('no trace of any service holds a key, a token, a prompt or a canary', async () => {
    const services = ['toolyard-toolchain-server', 'toolyard-broker'];
    const text: string[] = [];
    for (const service of services)
      for (const id of await jaeger!.traceIds(service)) text.push(JSON.stringify(await jaeger!.trace(id)));
    assert.ok(text.length > 0);
    const all = text.join('\n');
    for (const secret of forbidden())
      assert.ok(!all.includes(secret), `a stored trace holds ${secret.slice(0, 12)}…`);
  });

  it('no log record or metric the CLIs exported holds a key, a token, a prompt or a canary', async () => {
    const printed = jaeger!.output();
    // Control: log records of each CLI did arrive through the broker's otlp route (each resource is printed
    // with its service name), and metrics too.
    const records = printed.split('ResourceLog #').slice(1);
    const logsOf = (cli: Cli) =>
      records.some(
        (r) =>
          r.includes('LogRecord #') && cli.service.test(/service\.name: Str\(([^)]*)\)/.exec(r)?.[1] ?? ''),
      );
    // Codex's log events carry tool arguments and output (a canary was there): toolyard never exports them.
    for (const cli of CLIS)
      assert.equal(logsOf(cli), cli.backend !== 'codex', `log records of ${cli.backend} at the collector`);
    assert.match(printed, /ResourceMetrics #/);
    for (const secret of forbidden())
      assert.ok(!printed.includes(secret), `an exported log record or metric holds ${secret.slice(0, 12)}…`);
  });

  it("every series and label the rendered dashboard reads is in the broker's and the toolchain server's /metrics", async () => {
    const configOf = (name: string) => {
      const map = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === name) as
        | { data?: Record<string, string> }
        | undefined;
      const json = Object.values(map?.data ?? {}).find((v) => v.trimStart().startsWith('{'));
      assert.ok(json, `ConfigMap ${name} holds no JSON config`);
      return JSON.parse(json) as { health: { port: number } };
    };
    const scrape = async (namespace: 'broker' | 'agent', port: number) =>
      (
        await run(
          'ip',
          topology!.namespaces.exec(namespace, ['curl', '-sf', `http://127.0.0.1:${port}/metrics`]).slice(1),
        )
      ).stdout;
    const texts = [
      await scrape('broker', configOf(`${AGENT}-broker`).health.port),
      await scrape('agent', configOf(`${AGENT}-toolchain-node`).health.port),
    ];
    const exprs = dashboardExprs(agentDashboard(planAgent(spec)));
    assert.ok(exprs.length >= 10, `${exprs.length} queries`);
    // What the runs above made: model tokens and cost, tool calls, a refusal, latencies, broker requests.
    const made = new Set([
      'toolyard_broker_tokens_total',
      'toolyard_broker_cost_usd_total',
      'toolyard_tool_calls_total',
      'toolyard_policy_denials_total',
      'toolyard_tool_call_duration_seconds',
      'toolyard_broker_request_duration_seconds',
      'toolyard_broker_requests_total',
    ]);
    assert.deepEqual(dashboardScrapeProblems(exprs, texts, made), [], texts.join('\n').slice(0, 6000));
    // Every sample carries the agent, whatever the scrape discovery adds.
    for (const line of texts.join('\n').split('\n'))
      if (line.startsWith('toolyard_')) assert.match(line, new RegExp(`agent="${AGENT}"`), line);
  });
});
