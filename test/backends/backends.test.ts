/**
 * The contract, end to end: stock Claude Code, Codex CLI and Gemini CLI (pinned, from npm), started with their
 * plain headless commands in an emulation of the backend container exactly as rendered (env, volume mounts laid
 * out as the kubelet lays them out, uid 65532, read-only root), find the generated config, are offered the
 * toolchain's tools and the gateway's, and call them without an approval. A fake model API per CLI (its own
 * wire format, on 127.0.0.1) calls `exec_allowed` with `echo NONCE` on the real toolchain server (started from
 * the rendered sidecar config, as the sidecar runs it) and the gateway's tool (behind a bearer token, reached by
 * its Service host name), and checks that both results carry their nonces; a second gateway with
 * `preApproved: false` must not run its tool.
 *
 * The workspace holds what code in a toolchain could plant: `.mcp.json`, `.claude/`, `.codex/`, `.gemini/`
 * settings with MCP servers, hooks and commands, and `.git/hooks` plus an fsmonitor in `.git/config`. Each CLI
 * must ignore all of it: the planted server is never contacted and no planted command leaves its marker.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { renderAgent } from '../../constructs/src/render.ts';
import type { ToolyardAgent } from '../../schema/src/types.generated.ts';
import { freePort } from '../support/free-port.ts';
import { requireBackendClis } from './backend-clis.ts';
import { type FakeGateway, startFakeGateway } from './fake-gateway.ts';
import { type FakeApi, ModelScript } from './fake-model.ts';
import { markers, plantedGeminiSettings, plantWorkspace, WORKSPACE } from './planted-workspace.ts';
import {
  canEmulatePods,
  installServerBundle,
  PodVolumes,
  renderedPod,
  runContainer,
  type StartedServer,
  startServer,
} from './pod-emulation.ts';
import { MODEL_SECRET_ENV, runStockCli, STOCK_CLIS, type StockCli, specBackends } from './stock-clis.ts';

const AGENT = 'e2e';
const NAMESPACE = 'agents';
const GATEWAY = 'tickets';
const GATEWAY_TOKEN = 'gateway-token-for-the-e2e-test';
/** A gateway whose tools may not run without an approval (`preApproved: false`). */
const WITHHELD = 'deploys';
const CLI_TIMEOUT_MS = 120_000;

function nonce(label: string): string {
  return `${label}-NONCE-${Math.random().toString(36).slice(2, 12)}`;
}

const PROMPT = 'Run the toolchain and the gateway.';

interface Backend {
  readonly name: string;
  readonly cli: StockCli;
  readonly script: ModelScript;
  api?: FakeApi;
}

const backendSecrets = {
  ...MODEL_SECRET_ENV,
  [`TOOLYARD_GATEWAY_${GATEWAY.toUpperCase()}_TOKEN`]: GATEWAY_TOKEN,
};

describe('stock agent CLIs in the backend container as rendered', { timeout: 10 * 60_000 }, () => {
  let base: string;
  let volumes: PodVolumes;
  let workspace: string;
  let cliDir: string;
  let toolchain: StartedServer;
  let gateway: FakeGateway;
  let withheld: FakeGateway;
  let canary: FakeGateway;
  let imageMounts: Record<string, string>;
  const toolchainNonce = nonce('toolchain');
  const gatewayNonce = nonce('gateway');
  const withheldNonce = nonce('withheld');
  const toolchainCall = (tool: RegExp) => ({
    tool,
    args: { command: ['echo', toolchainNonce] },
    expect: toolchainNonce,
  });
  const gatewayCall = { tool: /tickets.*lookup_ticket$/, args: { id: 'T-1' }, expect: gatewayNonce };
  const withheldCall = {
    tool: /deploys.*trigger_deploy$/,
    args: { id: 'T-1' },
    expect: withheldNonce,
    withheld: true,
  };
  const plan = (tool: RegExp) => [toolchainCall(tool), gatewayCall, withheldCall];
  const backends: Backend[] = [STOCK_CLIS.claude, STOCK_CLIS.codex, STOCK_CLIS.gemini].map((cli) => ({
    name: cli.name,
    cli,
    script: new ModelScript(plan(cli.tool('toolchain-node', 'exec_allowed'))),
  }));

  before(async () => {
    const reason = canEmulatePods();
    if (reason) throw new Error(reason);
    cliDir = requireBackendClis();
    for (const backend of backends) backend.api = await backend.cli.startApi(backend.script);
    const ports = {
      toolchain: await freePort(),
      health: await freePort(),
      gateway: await freePort(),
      withheld: await freePort(),
    };
    gateway = await startFakeGateway({
      token: GATEWAY_TOKEN,
      toolName: 'lookup_ticket',
      answer: gatewayNonce,
      port: ports.gateway,
    });
    withheld = await startFakeGateway({
      toolName: 'trigger_deploy',
      answer: withheldNonce,
      port: ports.withheld,
    });
    canary = await startFakeGateway({ toolName: 'planted_tool', answer: 'planted' });
    const spec: ToolyardAgent = {
      apiVersion: 'toolyard.dev/v1alpha1',
      kind: 'Agent',
      metadata: { name: AGENT, namespace: NAMESPACE },
      spec: {
        workspace: { mountPath: WORKSPACE },
        // The pre-broker shape: keys in the backends, model APIs called directly. The broker's own end-to-end
        // proof (real CLIs through the real broker) is test/broker-e2e/backends-broker.test.ts.
        broker: { enabled: false },
        acknowledgedWarnings: [{ warning: 'broker-disabled', reason: 'calls the fake model APIs directly' }],
        backends: specBackends(backends.map((b) => [b.cli, b.api as FakeApi])),
        toolchains: [
          {
            name: 'node',
            image: { repository: 'docker.io/library/node', tag: '24' },
            port: ports.toolchain,
            healthPort: ports.health,
            tools: { mode: 'exec', allowedCommands: ['echo', 'sleep'] },
          },
        ],
        gateways: [
          {
            name: GATEWAY,
            image: { repository: 'example/tickets-mcp', tag: '1.0.0' },
            port: ports.gateway,
            auth: { bearerTokenSecret: { name: 'tickets-token', key: 'token' } },
          },
          {
            name: WITHHELD,
            image: { repository: 'example/deploys-mcp', tag: '1.0.0' },
            port: ports.withheld,
            preApproved: false,
          },
        ],
      },
    };
    const { pod, configMaps } = renderedPod(renderAgent(spec).objects);
    base = mkdtempSync(join(tmpdir(), 'toolyard-backends-'));
    volumes = new PodVolumes(join(base, 'volumes'), pod, configMaps);

    installServerBundle(volumes);

    // The workspace is a git checkout (codex exec requires one), owned by the pod's uid like anything a
    // toolchain writes, and it holds the planted files.
    workspace = volumes.hostPath('workspace');
    execFileSync('git', ['init', '-q', workspace]);
    plantWorkspace(workspace, `http://127.0.0.1:${canary.port}/mcp`);
    execFileSync('chown', ['-R', '65532:65532', ...readdirSync(workspace).map((f) => join(workspace, f))]);

    imageMounts = { '/opt/backend-clis': cliDir, '/opt/node/bin': join(process.execPath, '..') };
    toolchain = await startServer(volumes, 'toolchain-node', {
      imageEnv: { PATH: '/usr/local/bin:/usr/bin:/bin' },
    });
  });

  after(async () => {
    toolchain?.stop();
    await Promise.all([
      gateway?.close(),
      withheld?.close(),
      canary?.close(),
      ...backends.map((b) => b.api?.close()),
    ]);
    if (base) rmSync(base, { recursive: true, force: true });
  });

  it('git in a backend container, with the rendered env, runs no hook and no fsmonitor planted in the workspace', async () => {
    const git = (env: string) =>
      runContainer(volumes, 'claude', {
        argv: [
          'sh',
          '-c',
          `${env} git status --short >/dev/null && ${env} git -c user.name=t -c user.email=t@t commit -q --allow-empty -m x`,
        ],
        cwd: WORKSPACE,
        imageMounts,
        imageEnv: { PATH: '/usr/local/bin:/usr/bin:/bin' },
        secretEnv: backendSecrets,
        timeoutMs: 60_000,
      });
    const hardened = await git('');
    assert.equal(hardened.code, 0, hardened.stderr);
    const ran = markers(workspace);
    // The same commands with only the workspace declared safe run every planted command: the plants are live.
    const control = await git(
      `env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0=${WORKSPACE}`,
    );
    assert.equal(control.code, 0, control.stderr);
    const controlRan = markers(workspace);
    for (const name of controlRan) rmSync(join(workspace, name));
    assert.deepEqual(ran, []);
    assert.deepEqual(controlRan.sort(), [
      '.planted-git-fsmonitor',
      '.planted-git-post-commit',
      '.planted-git-post-index-change',
      '.planted-git-pre-commit',
    ]);
  });

  /** The backend image's own command: the CLI's plain headless invocation, in the workspace. */
  const runCli = (backend: Backend) =>
    runStockCli(volumes, backend.cli, PROMPT, {
      cliDir,
      secretEnv: backendSecrets,
      hosts: [`127.0.0.1 ${AGENT}-${GATEWAY}.${NAMESPACE}.svc ${AGENT}-${WITHHELD}.${NAMESPACE}.svc`],
      timeoutMs: CLI_TIMEOUT_MS,
    });

  for (const backend of backends) {
    it(`${backend.name}: \`${backend.cli.argv(PROMPT).join(' ')}\` calls the toolchain and the gateway and ignores the planted files`, async () => {
      const canaryBefore = canary.requests.length;
      const result = await runCli(backend);
      const context = `exit ${result.code}\nstdout: ${result.stdout.slice(-2000)}\nstderr: ${result.stderr.slice(-3000)}`;
      assert.ok(
        backend.script.offeredTools.some((name) => /exec_allowed/.test(name)),
        `${backend.name} offered no toolchain tool; offered: ${backend.script.offeredTools.join(', ')}\n${context}`,
      );
      assert.deepEqual(backend.script.problems(), [], context);
      assert.equal(result.code, 0, context);
      const ran = markers(workspace);
      for (const name of ran) rmSync(join(workspace, name));
      assert.deepEqual(ran, [], `planted commands ran\n${context}`);
      assert.deepEqual(canary.requests.slice(canaryBefore), [], 'the planted MCP server was contacted');
      assert.ok(
        gateway.requests.every((r) => r.authorized),
        'a gateway request came without the bearer token',
      );
      assert.deepEqual(withheld.calls, [], 'the withheld gateway ran a tool without an approval');
    });
  }

  /**
   * The timeout each format states is the one the CLI applies: with the rendered value lowered to 3 s, a 20 s call
   * comes back as the CLI's own timeout, long before the command ends. (Rendered, it is maxTimeoutSeconds + 60.)
   */
  const LOWERED: Record<string, { volume: string; file: string; lower: (text: string) => string }> = {
    claude: {
      volume: 'claude-mcp',
      file: 'managed-mcp.json',
      lower: (text) => text.replace(/"timeout": 1860000/, '"timeout": 3000'),
    },
    codex: {
      volume: 'codex-mcp',
      file: 'config.toml',
      lower: (text) => text.replace(/tool_timeout_sec = 1860\n/, 'tool_timeout_sec = 3\n'),
    },
    gemini: {
      volume: 'gemini-mcp',
      file: 'settings.json',
      lower: (text) => text.replace(/"timeout": 1860000/, '"timeout": 3000'),
    },
  };
  for (const backend of backends) {
    it(`${backend.name}: gives up on a tool call at the timeout its config states`, async () => {
      const lowered = LOWERED[backend.name] as (typeof LOWERED)[string];
      // Through `..data`, as a ConfigMap update lands; the subPath file is bound again at each start.
      const file = join(volumes.hostPath(lowered.volume), '..data', lowered.file);
      const original = readFileSync(file, 'utf8');
      const changed = lowered.lower(original);
      assert.notEqual(changed, original, `no toolchain timeout of 1860 s in ${lowered.file}`);
      writeFileSync(file, changed);
      backend.script.restart([
        {
          tool: (backend.script.plan[0] as { tool: RegExp }).tool,
          args: { command: ['sleep', '20'] },
          expect: '',
        },
      ]);
      const started = Date.now();
      try {
        await runCli(backend);
      } finally {
        writeFileSync(file, original);
      }
      const seconds = (Date.now() - started) / 1000;
      const result = backend.script.calls[0]?.result;
      assert.ok(result !== undefined, `${backend.name} returned no result for the call`);
      assert.doesNotMatch(result, /exitCode|exit 0 in/, `the call ran to its end: ${result}`);
      assert.ok(seconds < 20, `${backend.name} took ${seconds} s, the whole sleep`);
    });
  }

  it('known limit (Gemini CLI 0.61, docs/security-model.md): a planted .gemini/settings.json with its own mcp.allowed adds its servers', async () => {
    const settings = join(workspace, '.gemini', 'settings.json');
    const canaryBefore = canary.requests.length;
    writeFileSync(
      settings,
      JSON.stringify(
        plantedGeminiSettings(`http://127.0.0.1:${canary.port}/mcp`, { mcp: { allowed: ['planted'] } }),
      ),
    );
    try {
      await runCli(backends.find((b) => b.name === 'gemini') as Backend);
    } finally {
      writeFileSync(settings, JSON.stringify(plantedGeminiSettings(`http://127.0.0.1:${canary.port}/mcp`)));
      for (const name of markers(workspace)) rmSync(join(workspace, name));
    }
    // When this fails, Gemini CLI no longer lets a workspace lift the system allowlist: drop the caveat.
    assert.ok(canary.requests.length > canaryBefore, 'the planted server was not contacted');
  });
});
