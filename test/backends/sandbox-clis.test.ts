/**
 * Sandboxes through the stock agent CLIs (issue 29, docs/sandboxes.md): Claude Code, Codex CLI and Gemini CLI
 * (pinned, from npm), each run with its plain headless command in its backend container as rendered and driven by
 * its scripted fake model, find the `sandboxes` server in the config toolyard generated, and with it create a
 * sandbox for their session, upload a file, run a command that writes an artifact to outputs/, and download the
 * artifact, whose content the model must read in the tool result the CLI sends back; then, code mode (the template
 * has `tools.codeMode`), call `sandbox_run_code` with a Python program that calls the sandbox's own tool
 * (`mcp_shell.exec_allowed`), writes outputs/ and returns a value the model must read in the result, and download
 * what it wrote. The manager is the real one
 * (its rendered config, its bearer token as the backend's environment carries it, reached by its Service name);
 * its provider is the in-memory one of the manager's unit test, whose sandboxes are real sandbox servers bound by
 * the manager (the cluster path is test/cluster/e2e/sandboxes.e2e.ts). Controls: a CLI whose token is wrong gets
 * no sandbox, and the manager's audit shows each run's calls with the session hashed.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { renderAgent } from '../../constructs/src/render.ts';
import type { ToolyardAgent } from '../../schema/src/types.generated.ts';
import { memorySink } from '../../toolchain-server/kit/audit-sink.ts';
import { parseSandboxManagerConfig } from '../../toolchain-server/sandbox-manager/config.ts';
import { sessionHash, sessionObjectName } from '../../toolchain-server/sandbox-manager/records.ts';
import {
  buildSandboxManager,
  type SandboxManagerServer,
} from '../../toolchain-server/sandbox-manager/server.ts';
import { FakeProvider } from '../sandboxes/fake-provider.ts';
import { freePort } from '../support/free-port.ts';
import { requireBackendClis } from './backend-clis.ts';
import type { PlannedCall } from './fake-model.ts';
import { WORKSPACE } from './planted-workspace.ts';
import { canEmulatePods, PodVolumes, renderedPod } from './pod-emulation.ts';
import { ScriptedClis } from './scripted-clis.ts';
import { MODEL_SECRET_ENV, STOCK_CLIS, type StockCli } from './stock-clis.ts';

const AGENT = 'e2e';
const NAMESPACE = 'agents';
const POD_UID = 65532;
const PROMPT = 'Sort the numbers in a sandbox and give me the result.';
const TOKEN = `sandboxes-token-${Math.random().toString(36).slice(2)}`;
const BOOTSTRAP = `bootstrap-token-${Math.random().toString(36).slice(2)}`;

describe('sandboxes through the stock agent CLIs, as rendered', { timeout: 10 * 60_000 }, () => {
  let base: string;
  let volumes: PodVolumes;
  let cliDir: string;
  let manager: SandboxManagerServer;
  let provider: FakeProvider;
  const log = memorySink();
  let clis: ScriptedClis;
  const host = `${AGENT}-sandboxes.${NAMESPACE}.svc`;
  const hosts = [`127.0.0.1 ${host}`];

  before(async () => {
    const reason = canEmulatePods();
    if (reason) throw new Error(reason);
    cliDir = requireBackendClis();
    clis = await ScriptedClis.start([STOCK_CLIS.claude, STOCK_CLIS.codex, STOCK_CLIS.gemini]);
    const [managerPort, healthPort, serverPort] = await Promise.all([freePort(), freePort(), freePort()]);
    const spec: ToolyardAgent = {
      apiVersion: 'toolyard.dev/v1alpha1',
      kind: 'Agent',
      metadata: { name: AGENT, namespace: NAMESPACE },
      spec: {
        workspace: { mountPath: WORKSPACE },
        broker: { enabled: false },
        acknowledgedWarnings: [{ warning: 'broker-disabled', reason: 'calls the fake model APIs directly' }],
        backends: clis.backends(),
        networkPolicy: { apiServerEgress: { cidrs: ['10.96.0.1/32'], ports: [443] } },
        sandboxes: {
          port: managerPort,
          healthPort,
          auth: { bearerTokenSecret: { name: 'sandboxes-token', key: 'token' } },
          bootstrapTokenSecret: { name: 'sandbox-bootstrap', key: 'token' },
          templates: [
            {
              name: 'shell',
              image: { repository: 'ghcr.io/toolyard/toolchain-go-python', tag: '0.1.0' },
              port: serverPort,
              tools: {
                mode: 'exec',
                allowedCommands: ['sort', 'cat', 'ls'],
                // Code mode: programs call the sandbox's own tools (mcp_shell), confined.
                codeMode: { languages: ['python'], servers: ['shell'] },
              },
            },
          ],
        },
      },
    };
    const objects = renderAgent(spec).objects;
    const { pod, configMaps } = renderedPod(objects);
    const managerConfig = parseSandboxManagerConfig(
      JSON.parse(configMaps.get(`${AGENT}-sandboxes`)?.['config.json'] as string),
    );
    assert.ok(managerConfig.ok, JSON.stringify(!managerConfig.ok && managerConfig.issues));
    base = mkdtempSync(join(tmpdir(), 'toolyard-sandbox-clis-'));
    const bootstrapFile = join(base, 'bootstrap');
    writeFileSync(bootstrapFile, BOOTSTRAP);
    // The sandbox servers run the template's tools as rendered into its server config.
    const serverConfig = JSON.parse(configMaps.get(`${AGENT}-sandbox-shell`)?.['config.json'] as string);
    assert.deepEqual(serverConfig.codeMode.servers, [{ name: 'shell', kind: 'toolchain' }]);
    provider = new FakeProvider(
      join(base, 'sandboxes'),
      bootstrapFile,
      serverPort,
      { mode: 'exec', allowedCommands: serverConfig.tools.allowedCommands },
      { config: { name: serverConfig.name, codeMode: serverConfig.codeMode } },
    );
    const config = { ...managerConfig.config, listen: { ...managerConfig.config.listen, host: '127.0.0.1' } };
    manager = buildSandboxManager(config, {
      provider,
      log,
      secrets: { bearerToken: TOKEN, bootstrapToken: BOOTSTRAP },
    });
    await manager.start();
    await manager.app.listen({ host: '127.0.0.1', port: managerPort });

    volumes = new PodVolumes(join(base, 'volumes'), pod, configMaps, new Map());
    const workspace = volumes.hostPath('workspace');
    execFileSync('git', ['init', '-q', workspace]);
    execFileSync('chown', ['-R', `${POD_UID}:${POD_UID}`, join(workspace, '.git')]);
  });

  after(async () => {
    await manager?.close();
    await clis?.close();
    if (base) rmSync(base, { recursive: true, force: true });
  });

  // Gemini CLI hands the model the text content, Claude Code and Codex the structured content; either way the
  // result is JSON in the request the fake model reads, so a newline of the artifact shows as `\n`.
  const plan = (cli: StockCli, session: string): PlannedCall[] => {
    const tool = (name: string) => cli.tool('sandboxes', name);
    const sorted = `1\\n${cli.name.length}\\n30`;
    const total = 31 + cli.name.length;
    return [
      {
        tool: tool('sandbox_create'),
        args: { sessionKey: session },
        expect: sessionObjectName(AGENT, session),
      },
      {
        tool: tool('sandbox_upload'),
        args: { sessionKey: session, path: 'data/numbers.txt', content: `30\n1\n${cli.name.length}\n` },
        expect: 'data/numbers.txt',
      },
      {
        tool: tool('sandbox_exec'),
        args: {
          sessionKey: session,
          command: ['sort', '-n', 'data/numbers.txt', '-o', 'outputs/sorted.txt'],
        },
        expect: cli.name === 'gemini' ? 'exit 0' : '"exitCode":0',
      },
      {
        tool: tool('sandbox_download'),
        args: { sessionKey: session, path: 'outputs/sorted.txt' },
        expect: sorted,
      },
      // Code mode: a Python program calls the sandbox's own tool, writes outputs/ and returns a value, which the
      // model must read in the result (the value appears nowhere but as the return value).
      {
        tool: tool('sandbox_run_code'),
        args: {
          sessionKey: session,
          language: 'python',
          code: [
            'r = mcp_shell.exec_allowed(command=["sort", "-n", "data/numbers.txt"])',
            'nums = [int(x) for x in r["structuredContent"]["stdout"].split()]',
            'open("outputs/sum.txt", "w").write("sum " + str(sum(nums)))',
            'print("summed", len(nums), "numbers")',
            '"total-" + str(sum(nums)) + "-of-" + str(len(nums))',
          ].join('\n'),
          timeoutSeconds: 60,
        },
        expect: `total-${total}-of-3`,
      },
      {
        tool: tool('sandbox_download'),
        args: { sessionKey: session, path: 'outputs/sum.txt' },
        expect: `sum ${total}`,
      },
    ];
  };

  for (const cli of [STOCK_CLIS.claude, STOCK_CLIS.codex, STOCK_CLIS.gemini]) {
    it(`${cli.name}: \`${cli.argv(PROMPT).join(' ')}\` creates a sandbox, runs a command and a Python program in it and downloads the artifacts`, async () => {
      const session = `cli-${cli.name}`;
      const run = await clis.run(volumes, cli, PROMPT, plan(cli, session), {
        cliDir,
        secretEnv: { ...MODEL_SECRET_ENV, TOOLYARD_SANDBOXES_TOKEN: TOKEN },
        hosts,
      });
      const { script, result } = run;
      const context = run.context(
        `calls: ${JSON.stringify(script.calls.map((c) => ({ tool: c.tool, result: c.result?.slice(0, 400) })))}`,
      );
      assert.deepEqual(script.problems(), [], context);
      assert.equal(result.code, 0, context);
      // The manager did it: its audit shows the four calls of this session (hashed), each allowed.
      const audits = log.lines.filter(
        (l) => l.event === 'sandbox-audit' && l.session === sessionHash(session),
      );
      assert.deepEqual(
        audits.map((l) => `${l.tool}:${l.decision}`),
        [
          'sandbox_create:allowed',
          'sandbox_upload:allowed',
          'sandbox_exec:allowed',
          'sandbox_download:allowed',
          'sandbox_run_code:allowed',
          'sandbox_download:allowed',
        ],
      );
      assert.ok(!JSON.stringify(log.lines).includes(session), 'the session key is never logged');
    });
  }

  it('control: a backend with a wrong token gets no sandbox', async () => {
    const cli = STOCK_CLIS.claude;
    const before = provider.entries.size;
    const { script } = await clis.run(volumes, cli, PROMPT, plan(cli, 'cli-wrong-token'), {
      cliDir,
      secretEnv: { ...MODEL_SECRET_ENV, TOOLYARD_SANDBOXES_TOKEN: 'not-the-token' },
      hosts,
    });
    assert.notDeepEqual(script.problems(), [], 'the script must not complete without the token');
    assert.equal(provider.entries.size, before, 'no sandbox was created');
  });
});
