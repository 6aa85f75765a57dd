/**
 * Real agent CLIs through the real broker. Stock Claude Code, Codex CLI and Gemini CLI run with their plain
 * headless commands in the emulated backend container as rendered for a spec with the broker on (uid 65532,
 * read-only root, kubelet volume layout, the rendered client configs) inside the `agent` network namespace,
 * whose only reachable address is the broker's. The broker runs as its rendered pod (`toolyard-broker` bundle,
 * its config ConfigMap, the provider keys and the gateway token in its own Secret volumes) in the `broker`
 * namespace; the fake provider APIs and an external MCP gateway (`gateways[].url`) serve the real names over
 * HTTPS (test CA) in the `upstream` namespace, which only the broker's namespace reaches, and answer 401
 * unless the real key (or the gateway's bearer token) arrives.
 *
 * For each CLI it proves: the model's answer comes back and the gateway's tool runs, both through the broker;
 * every request upstream carries the real key and none carries a broker token; while the CLI waits for the
 * model, no model key, no gateway token and no other backend's broker token exists in any process
 * environment in the agent namespace, in any file of the CLI's mount namespace (walked as root, the stand-in
 * image's host system directories aside), or anywhere a process of the container's uid can read (files and
 * /proc): the CLI's only credential is its own broker token. The workspace's planted files (MCP servers,
 * hooks, git hooks, and each CLI's own base-URL, key and key-helper settings pointing at a canary next to the
 * CLI) change nothing; a control shows Claude Code's planted `apiKeyHelper` runs without toolyard's pin. A
 * direct connection from the agent namespace to an upstream address fails, while the broker's namespace
 * reaches it.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CLAUDE_API_KEY_HELPER } from '../../constructs/src/claude-code-config.ts';
import { renderAgent } from '../../constructs/src/render.ts';
import type { ToolyardAgent } from '../../schema/src/types.generated.ts';
import { requireBackendClis } from '../backends/backend-clis.ts';
import { startFakeAnthropic } from '../backends/fake-anthropic.ts';
import { type FakeGateway, startFakeGateway } from '../backends/fake-gateway.ts';
import { startFakeGemini } from '../backends/fake-gemini.ts';
import { type FakeApi, type FakeApiListener, ModelScript } from '../backends/fake-model.ts';
import { startFakeOpenAi } from '../backends/fake-openai.ts';
import { markers, plantWorkspace, WORKSPACE } from '../backends/planted-workspace.ts';
import {
  canEmulatePods,
  PodVolumes,
  renderedPod,
  runContainer,
  startContainer,
} from '../backends/pod-emulation.ts';
import { makeTestCa, type TestCa } from '../broker/tls-fixture.ts';
import {
  type AuditLine,
  type BrokerProcess,
  brokerMissing,
  eventually,
  startBrokerPod,
} from './broker-process.ts';
import { plantBrokerBypass } from './planted-bypass.ts';
import { BROKER_AGENT_SIDE, BrokerTopology } from './topology.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const AGENT = 'e2e';
const NAMESPACE = 'agents';
const BROKER_SERVICE = `${AGENT}-broker.${NAMESPACE}.svc`;
const _BROKER_PORT = 8480;
const TOKENS_SECRET = `${AGENT}-broker-tokens`;
const MODEL_KEYS = 'model-keys';
const GATEWAY_HOST = 'mcp.tickets.example.com';
const GATEWAY_SECRET = 'tickets-token';
const CLI_TIMEOUT_MS = 120_000;
/** The stand-in image: the host's system directories (read-only), which cannot hold a value made at test time. */
const IMAGE_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

type StartFake = (script: ModelScript, listener?: FakeApiListener) => Promise<FakeApi>;

interface Provider {
  readonly backend: string;
  /** The broker route toolyard renders for the backend. */
  readonly route: string;
  /** The key of the provider key in the test's `model-keys` Secret. */
  readonly keyName: string;
  readonly host: string;
  /** Where the provider wants its key, and where the CLI puts the key it holds (the broker token). */
  readonly header: string;
  readonly prefix: string;
  readonly tokenVar: string;
  readonly argv: readonly string[];
  readonly start: StartFake;
}

const PROVIDERS: readonly Provider[] = [
  {
    backend: 'claude',
    route: 'model-claude',
    keyName: 'anthropic',
    host: 'api.anthropic.com',
    header: 'x-api-key',
    prefix: '',
    tokenVar: 'ANTHROPIC_API_KEY',
    argv: ['claude', '-p', 'Say hello through the broker.'],
    start: startFakeAnthropic,
  },
  {
    backend: 'codex',
    route: 'model-codex',
    keyName: 'openai',
    host: 'api.openai.com',
    header: 'authorization',
    prefix: 'Bearer ',
    tokenVar: 'OPENAI_API_KEY',
    argv: ['codex', 'exec', 'Say hello through the broker.'],
    start: startFakeOpenAi,
  },
  {
    backend: 'gemini',
    route: 'model-gemini',
    keyName: 'gemini',
    host: 'generativelanguage.googleapis.com',
    header: 'x-goog-api-key',
    prefix: '',
    tokenVar: 'GEMINI_API_KEY',
    argv: ['gemini', '-p', 'Say hello through the broker.'],
    start: startFakeGemini,
  },
];

const random = (label: string) =>
  `${label}-${Math.random().toString(36).slice(2, 14)}${Math.random().toString(36).slice(2, 10)}`;

interface ScanResult {
  readonly found: readonly { label: string; path: string }[];
  readonly files: number;
  readonly processes: number;
  readonly environs: number;
}

interface Observation {
  /** Per process in the agent namespace: its pid, whether it holds the backend's token, secrets found. */
  readonly environs: { pid: number; ownToken: boolean; found: string[] }[];
  readonly hostFiles: ScanResult;
  readonly container: ScanResult;
}

function runScanner(argv: readonly string[], input: unknown): Promise<ScanResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0] as string, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8');
    });
    child.on('close', (code) => {
      try {
        resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '') as ScanResult);
      } catch {
        reject(new Error(`secret scan exited ${code}: ${out}\n${err}`));
      }
    });
    child.stdin.end(JSON.stringify(input));
  });
}

describe('real agent CLIs through the real broker, holding no model key', { timeout: 10 * 60_000 }, () => {
  let dir: string;
  let ca: TestCa | undefined;
  let topology: BrokerTopology | undefined;
  let broker: BrokerProcess | undefined;
  let volumes: PodVolumes;
  let workspace: string;
  let caFile: string;
  let publicCaDir: string;
  let canaryUrl: string;
  const canaryRequests: string[] = [];
  let closeCanary: () => void = () => {};
  const keys = new Map(PROVIDERS.map((p) => [p.route, random(`real-${p.keyName}-key`)]));
  const tokens = new Map(PROVIDERS.map((p) => [p.backend, random(`broker-token-${p.backend}`)]));
  const apis = new Map<string, FakeApi>();
  // An external gateway (gateways[].url) the broker reaches with its bearer token; each model calls its tool.
  const gatewayToken = random('gateway-token');
  const gatewayAnswer = random('gateway-answer');
  let gateway: FakeGateway | undefined;
  const scripts = new Map(
    PROVIDERS.map((p) => [
      p.backend,
      new ModelScript(
        [{ tool: /tickets.*lookup_ticket$/, args: { id: 'T-1' }, expect: gatewayAnswer }],
        random(`answer-${p.backend}`),
      ),
    ]),
  );
  const observations = new Map<string, Promise<Observation>>();
  const observing = new Map<string, () => Promise<Observation>>();
  let imageMounts: Record<string, string>;
  let secrets: ReadonlyMap<string, Record<string, string>>;

  /** Every credential a backend container must not hold: the model keys and the other backends' tokens. */
  const forbidden = (provider: Provider): Record<string, string> =>
    Object.fromEntries([
      ...[...keys].map(([route, key]) => [`${route} key`, key]),
      ['gateway token', gatewayToken],
      ...[...tokens]
        .filter(([backend]) => backend !== provider.backend)
        .map(([b, t]) => [`${b}'s broker token`, t]),
    ]);

  before(async () => {
    const reason = canEmulatePods() ?? brokerMissing();
    if (reason) throw new Error(reason);
    const cliDir = requireBackendClis();
    dir = mkdtempSync(join(tmpdir(), 'toolyard-broker-clis-'));
    topology = new BrokerTopology();
    ca = makeTestCa();
    caFile = ca.caFile;
    // The CA certificate alone, readable by the container's uid (the fixture's directory is private).
    publicCaDir = join(dir, 'ca-public');
    mkdirSync(publicCaDir);
    writeFileSync(join(publicCaDir, 'ca.pem'), ca.ca);

    for (const provider of PROVIDERS) {
      const site = await topology.site(ca, [provider.host]);
      const api = await provider.start(scripts.get(provider.backend) as ModelScript, {
        ...site,
        credential: { header: provider.header, value: `${provider.prefix}${keys.get(provider.route)}` },
        // The first request of a run waits while the test looks into the container the CLI runs in.
        gate: () => {
          const observe = observing.get(provider.backend);
          if (!observe) return Promise.resolve();
          let pending = observations.get(provider.backend);
          if (!pending) {
            pending = observe();
            observations.set(provider.backend, pending);
          }
          return pending.then(() => undefined);
        },
      });
      apis.set(provider.backend, api);
    }

    // A canary next to the CLIs (the agent namespace's own loopback): where every planted URL points.
    const canarySocket = await topology.namespaces.listen('agent', '127.0.0.1', 0);
    const canary = createHttpServer((request, response) => {
      canaryRequests.push(`${request.method} ${request.url} ${JSON.stringify(request.headers)}`);
      // A quick refusal, so a CLI that follows a planted URL gives up at once.
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'canary' } }),
      );
    });
    canarySocket.on('connection', (socket) => canary.emit('connection', socket));
    canaryUrl = `http://127.0.0.1:${(canarySocket.address() as AddressInfo).port}`;
    closeCanary = () => canarySocket.close();

    const spec: ToolyardAgent = {
      apiVersion: 'toolyard.dev/v1alpha1',
      kind: 'Agent',
      metadata: { name: AGENT, namespace: NAMESPACE },
      spec: {
        workspace: { mountPath: WORKSPACE },
        backends: [
          {
            name: 'claude',
            type: 'claude',
            image: { repository: 'example/claude-code', tag: '2.1.330' },
            port: 8080,
            env: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
            model: { apiKeySecret: { name: MODEL_KEYS, key: 'anthropic' } },
          },
          {
            name: 'codex',
            type: 'openai',
            image: { repository: 'example/codex', tag: '0.169.0' },
            port: 8081,
            model: { apiKeySecret: { name: MODEL_KEYS, key: 'openai' } },
            // A model Codex has no metadata for gets plain function tools, which the fake speaks.
            settings: { model: 'toolyard-fake-model', analytics: { enabled: false } },
          },
          {
            name: 'gemini',
            type: 'gemini',
            image: { repository: 'example/gemini-cli', tag: '0.61.0' },
            port: 8082,
            model: { apiKeySecret: { name: MODEL_KEYS, key: 'gemini' } },
            settings: { privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } },
          },
        ],
        gateways: [
          {
            name: 'tickets',
            url: `https://${GATEWAY_HOST}/mcp`,
            auth: { bearerTokenSecret: { name: GATEWAY_SECRET, key: 'token' } },
          },
        ],
      },
    };
    const objects = renderAgent(spec).objects;
    gateway = await startFakeGateway({
      token: gatewayToken,
      toolName: 'lookup_ticket',
      answer: gatewayAnswer,
      listener: await topology.site(ca, [GATEWAY_HOST]),
    });
    secrets = new Map([
      [GATEWAY_SECRET, { token: gatewayToken }],
      [TOKENS_SECRET, Object.fromEntries(tokens)],
      [MODEL_KEYS, Object.fromEntries(PROVIDERS.map((p) => [p.keyName, keys.get(p.route) as string]))],
    ]);
    broker = await startBrokerPod({ topology, objects, secrets, caPem: ca.ca, dir });
    const { pod, configMaps } = renderedPod(objects, AGENT);
    volumes = new PodVolumes(join(dir, 'volumes'), pod, configMaps, secrets);
    workspace = volumes.hostPath('workspace');
    execFileSync('git', ['init', '-q', workspace]);
    plantWorkspace(workspace, `${canaryUrl}/mcp`);
    plantBrokerBypass(workspace, canaryUrl);
    execFileSync('chown', ['-R', '65532:65532', ...readdirSync(workspace).map((f) => join(workspace, f))]);
    imageMounts = {
      '/opt/backend-clis': cliDir,
      '/opt/node/bin': dirname(process.execPath),
      '/opt/toolyard-test': HERE,
    };
  });

  after(async () => {
    await broker?.stop();
    await Promise.all([...apis.values()].map((api) => api.close()));
    closeCanary();
    await gateway?.close();
    topology?.remove();
    ca?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const containerOptions = (provider: Provider) => ({
    cwd: WORKSPACE,
    imageMounts,
    imageEnv: {
      PATH: '/opt/backend-clis/node_modules/.bin:/opt/node/bin:/usr/local/bin:/usr/bin:/bin',
      NO_COLOR: '1',
    },
    secretEnv: volumes.secretEnv(provider.backend),
    hosts: [`${BROKER_AGENT_SIDE} ${BROKER_SERVICE}`],
    netns: topology!.namespaces.exec('agent', []),
    timeoutMs: CLI_TIMEOUT_MS,
  });

  /**
   * Ends what a CLI left running in the agent namespace after its main process exited (a container runtime ends
   * a container's processes with it; the emulation's unshare does not), so the next container sees none.
   */
  const endStragglers = () => {
    for (const pid of topology!.namespaces.pids('agent'))
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
  };

  /** What the container holds while its CLI waits for the model's first answer. */
  const observe = async (provider: Provider): Promise<Observation> => {
    const own = `${provider.tokenVar}=${tokens.get(provider.backend)}`;
    const secrets = forbidden(provider);
    const environs: Observation['environs'] = [];
    for (const pid of topology!.namespaces.pids('agent')) {
      let environ: string;
      try {
        environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
      } catch {
        continue;
      }
      const vars = environ.split('\0');
      environs.push({
        pid,
        ownToken: vars.includes(own),
        found: Object.entries(secrets).flatMap(([label, value]) => (environ.includes(value) ? [label] : [])),
      });
    }
    const cli = environs.find((e) => e.ownToken);
    const skip = [...IMAGE_DIRS, ...Object.keys(imageMounts)];
    const scanner = [process.execPath, join(HERE, 'secret-scan.ts')];
    const hostFiles = cli
      ? await runScanner(scanner, { secrets, skip, root: `/proc/${cli.pid}/root`, procs: false })
      : { found: [], files: 0, processes: 0, environs: 0 };
    const started = startContainer(volumes, provider.backend, {
      ...containerOptions(provider),
      argv: ['node', '/opt/toolyard-test/secret-scan.ts'],
    });
    started.child.stdin?.end(JSON.stringify({ secrets, skip }));
    const result = await started.done;
    let container: ScanResult;
    try {
      container = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '') as ScanResult;
    } catch {
      throw new Error(`the in-container scan failed: ${result.stdout}\n${result.stderr}`);
    }
    return { environs, hostFiles, container };
  };

  for (const provider of PROVIDERS) {
    it(`${provider.backend}: answers through the broker with the real key upstream; holds only its broker token; planted settings change nothing`, async () => {
      const api = apis.get(provider.backend) as FakeApi;
      const script = scripts.get(provider.backend) as ModelScript;
      const seen = api.requests.length;
      const auditBefore = broker!.audit().length;
      const canaryBefore = canaryRequests.length;
      observing.set(provider.backend, () => observe(provider));
      const result = await runContainer(volumes, provider.backend, {
        ...containerOptions(provider),
        argv: provider.argv,
      });
      observing.delete(provider.backend);
      endStragglers();
      const context = `exit ${result.code}\nstdout: ${result.stdout.slice(-2000)}\nstderr: ${result.stderr.slice(-3000)}\nupstream: ${JSON.stringify(api.requests.slice(seen).map((r) => `${r.method} ${r.path} ${r.status}`))}\nbroker: ${broker!.output().slice(-3000)}`;
      assert.equal(result.code, 0, context);
      assert.match(result.stdout, new RegExp(script.finalText), context);
      // The gateway's tool ran through the broker, which added the gateway's token.
      assert.deepEqual(script.problems(), [], context);
      assert.ok(gateway!.requests.length > 0 && gateway!.requests.every((r) => r.authorized), context);

      // Upstream: every request came through the broker with the real key, none with a broker token.
      const requests = api.requests.slice(seen);
      assert.ok(requests.length > 0, context);
      for (const request of requests) {
        assert.equal(request.headers[provider.header], `${provider.prefix}${keys.get(provider.route)}`);
        const headers = JSON.stringify(request.headers);
        for (const token of tokens.values())
          assert.ok(!headers.includes(token), 'a broker token reached upstream');
      }
      // The audit names the caller and route, and carries the token usage the provider reported in the stream.
      const audit = () => broker!.audit().slice(auditBefore);
      const modelLine = (l: AuditLine) =>
        l['caller'] === provider.backend && l['route'] === provider.route && l['decision'] === 'allowed';
      assert.ok(
        await eventually(() => audit().some(modelLine)),
        `no allowed ${provider.route} route: ${JSON.stringify(audit())}`,
      );
      assert.ok(
        audit().some((l) => modelLine(l) && l['usage'] !== null && typeof l['usage'] === 'object'),
        `no ${provider.route} audit line with the provider's usage: ${JSON.stringify(audit().filter(modelLine))}`,
      );
      assert.ok(audit().some((l) => l['caller'] === provider.backend && l['route'] === 'gateway-tickets'));

      // The container while the CLI ran.
      const observation = await observations.get(provider.backend);
      assert.ok(observation, 'the CLI reached upstream without the container being observed');
      assert.ok(
        observation.environs.some((e) => e.ownToken),
        `no process in the agent namespace holds ${provider.tokenVar}=<its broker token>: ${JSON.stringify(observation.environs)}`,
      );
      for (const e of observation.environs) assert.deepEqual(e.found, [], `process ${e.pid}'s environment`);
      assert.deepEqual(observation.hostFiles.found, [], "files of the CLI's mount namespace");
      assert.ok(observation.hostFiles.files > 0, 'the walk of the CLI mount namespace found no file');
      assert.deepEqual(observation.container.found, [], 'what the container uid can read');
      assert.ok(observation.container.environs > 0, 'the in-container scan read no process environment');

      // The planted workspace: nothing ran, nothing reached the canary.
      const ran = markers(workspace);
      for (const name of ran) rmSync(join(workspace, name));
      assert.deepEqual(ran, [], `planted commands ran\n${context}`);
      assert.deepEqual(canaryRequests.slice(canaryBefore), [], 'a planted URL was contacted');
    });
  }

  /**
   * Runs Claude Code with the rendered managed settings minus `drop`; returns the markers and canary hits.
   * (Without `env`, claude -p 2.1.330 did not follow the planted `env.ANTHROPIC_BASE_URL` either within 15 s:
   * that pin is kept as defense in depth, with no control here.)
   */
  const claudeWithout = async (drop: string, timeoutMs: number) => {
    const provider = PROVIDERS[0] as Provider;
    // Through `..data`, as a ConfigMap update lands.
    const file = join(volumes.hostPath('claude-mcp'), '..data', 'managed-settings.json');
    const original = readFileSync(file, 'utf8');
    const { [drop]: _dropped, ...unpinned } = JSON.parse(original) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify(unpinned));
    const canaryBefore = canaryRequests.length;
    (scripts.get(provider.backend) as ModelScript).restart([]);
    try {
      await runContainer(volumes, provider.backend, {
        ...containerOptions(provider),
        argv: provider.argv,
        timeoutMs,
      });
    } finally {
      writeFileSync(file, original);
      endStragglers();
    }
    const ran = markers(workspace);
    for (const name of ran) rmSync(join(workspace, name));
    return { ran, canary: canaryRequests.slice(canaryBefore) };
  };

  it('control: without the rendered apiKeyHelper pin, Claude Code runs the planted helper', async () => {
    const rendered = JSON.parse(
      readFileSync(join(volumes.hostPath('claude-mcp'), '..data', 'managed-settings.json'), 'utf8'),
    ) as Record<string, unknown>;
    assert.equal(rendered['apiKeyHelper'], CLAUDE_API_KEY_HELPER);
    const { ran } = await claudeWithout('apiKeyHelper', CLI_TIMEOUT_MS);
    assert.ok(ran.includes('.planted-claude-api-key-helper'), `the planted helper did not run: ${ran}`);
  });

  it('a direct connection from the agent namespace to an upstream address fails; the broker namespace reaches it', async () => {
    const address = topology!.addressOf('api.anthropic.com');
    // Asynchronously: the upstream's listener lives in this process, whose event loop must keep running.
    const probe = async (argv: readonly string[]) =>
      (await promisify(execFile)(argv[0] as string, argv.slice(1), { encoding: 'utf8' })).stdout;
    const probeArgs = [join(HERE, 'connect-probe.ts'), address, '443', 'api.anthropic.com', caFile];
    const fromBroker = JSON.parse(
      await probe(topology!.namespaces.exec('broker', [process.execPath, ...probeArgs])),
    );
    assert.deepEqual(fromBroker, { ok: true }, 'control: the broker namespace reaches the upstream');
    const provider = PROVIDERS[0] as Provider;
    const fromAgent = await runContainer(volumes, provider.backend, {
      ...containerOptions(provider),
      imageMounts: { ...imageMounts, '/opt/toolyard-ca': publicCaDir },
      argv: [
        'node',
        '/opt/toolyard-test/connect-probe.ts',
        address,
        '443',
        'api.anthropic.com',
        '/opt/toolyard-ca/ca.pem',
      ],
    });
    const outcome = JSON.parse(fromAgent.stdout.trim() || '{}') as { ok?: boolean; code?: string };
    assert.equal(outcome.ok, false, `${fromAgent.stdout}${fromAgent.stderr}`);
    assert.match(String(outcome.code), /EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|ECONNREFUSED/);
  });

  it("the broker's output carries no key and no token", () => {
    const output = broker?.output() ?? '';
    for (const value of [...keys.values(), ...tokens.values()]) assert.ok(!output.includes(value));
  });
});
