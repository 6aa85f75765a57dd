/**
 * Code mode end to end through the stock agent CLIs (issue 30, docs/code-mode.md#proof): Claude Code, Codex CLI and
 * Gemini CLI (pinned, from npm), each run with its plain headless command in its backend container as rendered and
 * driven by its scripted fake model, call `run_code` on a toolchain whose `tools.codeMode` lists another toolchain
 * and a gateway. The program — Python for Claude, JavaScript for Codex, TypeScript for Gemini — calls the other
 * toolchain's `exec_allowed` and the gateway's tool, tries to read every token the code-mode toolchain holds, writes
 * a report to outputs/ and prints one line made of both results (the other toolchain's output upper-cased, the
 * gateway's answer, which the program's source does not contain); the model must read that line in the tool result
 * the CLI sends back. Everything runs as the pod would run it: the agent spec rendered, its MCP configs read by the
 * CLIs, both toolchain servers started from their rendered sidecar configs as uid 65532 from the init container's
 * bundle (Node, the server, `toolyard-confine`, `toolyard-codebox`) with their Secret-mounted tokens, the gateway a
 * fake MCP server behind its own bearer token, reached by its Service name.
 *
 * Each run must show: run_code called and its result carrying the line; the code-mode server's audit with one
 * confined run and one `code-call` per target; the other toolchain running the command; the gateway receiving the
 * call with its token; each of the program's token reads refused, and no token (planted canaries) anywhere in the
 * model's tool results, the CLI's output or outputs/. Controls: the same file is readable as the pod's uid outside a
 * call, and the same checks fail for a model that calls both tools directly instead of run_code, and for a run_code
 * whose program makes the calls but prints nothing.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { renderAgent } from '../../constructs/src/render.ts';
import type { ToolyardAgent } from '../../schema/src/types.generated.ts';
import { freePort } from '../support/free-port.ts';
import { requireBackendClis } from './backend-clis.ts';
import { type FakeGateway, startFakeGateway } from './fake-gateway.ts';
import type { ModelScript, PlannedCall } from './fake-model.ts';
import { WORKSPACE } from './planted-workspace.ts';
import {
  canEmulatePods,
  installServerBundle,
  PodVolumes,
  type RunResult,
  renderedPod,
  runContainer,
  type StartedServer,
  startServer,
} from './pod-emulation.ts';
import { ScriptedClis, type ScriptedRun } from './scripted-clis.ts';
import { type CliName, MODEL_SECRET_ENV, STOCK_CLIS, type StockCli } from './stock-clis.ts';

const AGENT = 'e2e';
const NAMESPACE = 'agents';
/** The toolchain with code mode, the toolchain its programs call, the gateway they call. */
const CODE = 'python';
const OTHER = 'builder';
const GATEWAY = 'tickets';
const POD_UID = 65532;
const IMAGE_PATH = '/usr/local/bin:/usr/bin:/bin';
const PROMPT = 'Use run_code to ask the builder and the tickets gateway, and report.';

const random = () => Math.random().toString(36).slice(2, 12);
/** Canary tokens: each Secret's value, which nothing the program produces may ever contain. */
const TOKENS = {
  [CODE]: `canary-${CODE}-token-${random()}`,
  [OTHER]: `canary-${OTHER}-token-${random()}`,
  [GATEWAY]: `canary-${GATEWAY}-token-${random()}`,
};
/** What the gateway's tool answers: the program learns it only by calling the gateway. */
const GATEWAY_ANSWER = `gateway-answer-${random()}`;
const RESULT_PREFIX = 'CODE-MODE-RESULT';

type Language = 'python' | 'javascript' | 'typescript';
const LANGUAGE: Readonly<Record<CliName, Language>> = {
  claude: 'python',
  codex: 'javascript',
  gemini: 'typescript',
};

/** One scripted run: what the program is told, and what must come back. */
interface Run {
  readonly label: string;
  /** Echoed by the other toolchain; the printed line carries it upper-cased (lower-case letters in the source). */
  readonly nonce: string;
  readonly ticket: string;
  /** outputs/<report>: the program's calls' results, its token reads and its environment. */
  readonly report: string;
  /** The line the model must read in run_code's result. */
  readonly line: string;
}

function newRun(label: string): Run {
  const nonce = `${OTHER}-nonce-${label}-${random()}`;
  return {
    label,
    nonce,
    ticket: `T-${label}`,
    report: `report-${label}.json`,
    line: `${RESULT_PREFIX} ${OTHER}=${nonce.toUpperCase()} gateway=${GATEWAY_ANSWER}`,
  };
}

/** The program, in each language: the same calls, reads and report; `print: false` leaves out the one line. */
function program(language: Language, run: Run, tokenFiles: readonly string[], print = true): string {
  const q = JSON.stringify;
  if (language === 'python')
    return [
      'import json, os',
      `other = mcp_${OTHER}.exec_allowed(command=["echo", ${q(run.nonce)}])`,
      `ticket = mcp_${GATEWAY}.lookup_ticket(id=${q(run.ticket)})`,
      'reads = {}',
      `for path in ${q(tokenFiles)}:`,
      '    try:',
      '        reads[path] = open(path).read()',
      '    except OSError as error:',
      '        reads[path] = type(error).__name__',
      'report = {"other": other, "ticket": ticket, "reads": reads, "environ": dict(os.environ)}',
      `open("outputs/${run.report}", "w").write(json.dumps(report))`,
      `line = "${RESULT_PREFIX} ${OTHER}=" + other["structuredContent"]["stdout"].strip().upper() + " gateway=" + ticket["text"]`,
      ...(print ? ['print(line)'] : []),
      'reads',
    ].join('\n');
  const ts = language === 'typescript';
  return [
    "import { readFileSync, writeFileSync } from 'node:fs';",
    ...(ts ? ['interface ToolResult { text: string; structuredContent?: { stdout: string } }'] : []),
    `const [other, ticket]${ts ? ': ToolResult[]' : ''} = await Promise.all([`,
    `  mcp_${OTHER}.exec_allowed({ command: ['echo', ${q(run.nonce)}] }),`,
    `  mcp_${GATEWAY}.lookup_ticket({ id: ${q(run.ticket)} }),`,
    ']);',
    `const reads${ts ? ': Record<string, string>' : ''} = {};`,
    `for (const path of ${q(tokenFiles)}) {`,
    "  try { reads[path] = readFileSync(path, 'utf8'); }",
    `  catch (error) { reads[path] = String((error${ts ? ' as NodeJS.ErrnoException' : ''}).code); }`,
    '}',
    `writeFileSync(${q(`outputs/${run.report}`)}, JSON.stringify({ other, ticket, reads, environ: process.env }));`,
    `const line = \`${RESULT_PREFIX} ${OTHER}=\${other.structuredContent${ts ? '!' : ''}.stdout.trim().toUpperCase()} gateway=\${ticket.text}\`;`,
    ...(print ? ['console.log(line);'] : []),
    'export default reads;',
  ].join('\n');
}

/** How far each observer had got before a run, so that a run's checks see only its own traffic. */
interface Mark {
  readonly code: number;
  readonly other: number;
  readonly gatewayRequests: number;
  readonly gatewayCalls: number;
}

describe('code mode through the stock agent CLIs, as rendered', { timeout: 10 * 60_000 }, () => {
  let base: string;
  let volumes: PodVolumes;
  let workspace: string;
  let cliDir: string;
  let code: StartedServer;
  let other: StartedServer;
  let gateway: FakeGateway;
  /** Every token file the code-mode toolchain holds, from its rendered config. */
  let tokenFiles: string[];
  let clis: ScriptedClis;
  const secretEnv = {
    ...MODEL_SECRET_ENV,
    [`TOOLYARD_TOOLCHAIN_${CODE.toUpperCase()}_TOKEN`]: TOKENS[CODE],
    [`TOOLYARD_TOOLCHAIN_${OTHER.toUpperCase()}_TOKEN`]: TOKENS[OTHER],
    [`TOOLYARD_GATEWAY_${GATEWAY.toUpperCase()}_TOKEN`]: TOKENS[GATEWAY],
  };
  const hosts = [`127.0.0.1 ${AGENT}-${GATEWAY}.${NAMESPACE}.svc`];

  before(async () => {
    const reason = canEmulatePods();
    if (reason) throw new Error(reason);
    cliDir = requireBackendClis();
    clis = await ScriptedClis.start([STOCK_CLIS.claude, STOCK_CLIS.codex, STOCK_CLIS.gemini]);
    const ports = {
      code: await freePort(),
      codeHealth: await freePort(),
      other: await freePort(),
      otherHealth: await freePort(),
      gateway: await freePort(),
    };
    gateway = await startFakeGateway({
      token: TOKENS[GATEWAY],
      toolName: 'lookup_ticket',
      answer: GATEWAY_ANSWER,
      port: ports.gateway,
    });
    const tokenSecret = (name: string) => ({ bearerTokenSecret: { name: `${name}-token`, key: 'token' } });
    const spec: ToolyardAgent = {
      apiVersion: 'toolyard.dev/v1alpha1',
      kind: 'Agent',
      metadata: { name: AGENT, namespace: NAMESPACE },
      spec: {
        workspace: { mountPath: WORKSPACE },
        // The pre-broker shape, as in backends.test.ts: model APIs called directly, a gateway at its Service with
        // its own token, which code mode mounts into the code-mode toolchain alone.
        broker: { enabled: false },
        acknowledgedWarnings: [{ warning: 'broker-disabled', reason: 'calls the fake model APIs directly' }],
        backends: clis.backends(),
        toolchains: [
          {
            name: CODE,
            image: { repository: 'docker.io/library/python', tag: '3.13' },
            port: ports.code,
            healthPort: ports.codeHealth,
            tools: {
              mode: 'exec',
              allowedCommands: ['echo'],
              codeMode: { languages: ['python', 'node'], servers: [OTHER, GATEWAY] },
            },
            auth: tokenSecret(CODE),
          },
          {
            name: OTHER,
            image: { repository: 'docker.io/library/debian', tag: '13' },
            port: ports.other,
            healthPort: ports.otherHealth,
            tools: { mode: 'exec', allowedCommands: ['echo'] },
            auth: tokenSecret(OTHER),
          },
        ],
        gateways: [
          {
            name: GATEWAY,
            image: { repository: 'example/tickets-mcp', tag: '1.0.0' },
            port: ports.gateway,
            auth: tokenSecret(GATEWAY),
          },
        ],
      },
    };
    const { pod, configMaps } = renderedPod(renderAgent(spec).objects);
    const configs = [...configMaps.values()].flatMap((data) =>
      data['config.json'] ? [JSON.parse(data['config.json']) as Record<string, unknown>] : [],
    );
    const codeConfig = configs.find((c) => c.name === CODE) as {
      auth: { bearerTokenFile: string };
      codeMode: { servers: { name: string; url?: string; tokenFile?: string }[] };
    };
    assert.ok(codeConfig?.codeMode, `no rendered code-mode config for toolchain ${CODE}`);
    tokenFiles = [
      codeConfig.auth.bearerTokenFile,
      ...codeConfig.codeMode.servers.flatMap((s) => (s.tokenFile ? [s.tokenFile] : [])),
    ];
    assert.equal(tokenFiles.length, 3, `token files: ${tokenFiles.join(', ')}`);

    base = mkdtempSync(join(tmpdir(), 'toolyard-code-mode-clis-'));
    const secrets = new Map(
      Object.entries(TOKENS).map(([name, value]) => [`${name}-token`, { token: value }]),
    );
    volumes = new PodVolumes(join(base, 'volumes'), pod, configMaps, secrets);
    installServerBundle(volumes);
    // The workspace is a git checkout (codex exec requires one), owned by the pod's uid.
    workspace = volumes.hostPath('workspace');
    execFileSync('git', ['init', '-q', workspace]);
    execFileSync('chown', ['-R', `${POD_UID}:${POD_UID}`, join(workspace, '.git')]);

    const serverOptions = { imageEnv: { PATH: IMAGE_PATH }, hosts };
    [code, other] = await Promise.all([
      startServer(volumes, `toolchain-${CODE}`, serverOptions),
      startServer(volumes, `toolchain-${OTHER}`, serverOptions),
    ]);
  });

  after(async () => {
    code?.stop();
    other?.stop();
    await Promise.all([gateway?.close(), clis?.close()]);
    if (base) rmSync(base, { recursive: true, force: true });
  });

  const mark = (): Mark => ({
    code: code.lines.length,
    other: other.lines.length,
    gatewayRequests: gateway.requests.length,
    gatewayCalls: gateway.calls.length,
  });

  /** Runs `cli` with `plan` from a clean outputs/; returns the run and where the observers were before it. */
  const runCli = async (
    cli: StockCli,
    plan: readonly PlannedCall[],
  ): Promise<ScriptedRun & { since: Mark }> => {
    rmSync(join(workspace, 'outputs'), { recursive: true, force: true });
    const since = mark();
    return { ...(await clis.run(volumes, cli, PROMPT, plan, { cliDir, secretEnv, hosts })), since };
  };

  /** The planned run_code call of `run` in `language`. */
  const runCodeCall = (cli: StockCli, language: Language, run: Run, print = true): PlannedCall => ({
    tool: cli.tool(`toolchain-${CODE}`, 'run_code'),
    args: { language, code: program(language, run, tokenFiles, print), timeoutSeconds: 60 },
    expect: run.line,
  });

  /**
   * Everything a code-mode run through `cli` must show, as a list of what is missing (empty: all of it). The
   * controls run these same checks against runs that must fail them.
   */
  const problems = (
    cli: StockCli,
    run: Run,
    observed: { script: ModelScript; since: Mark; result: RunResult },
  ): string[] => {
    const out: string[] = [];
    const { script, since, result } = observed;
    // The model called run_code, and the program's line came back in the result the CLI sent.
    const runCode = cli.tool(`toolchain-${CODE}`, 'run_code');
    const call = script.calls.find((c) => c.tool !== undefined && runCode.test(c.tool));
    if (!call) out.push('run_code was not called');
    else if (call.result === undefined) out.push('run_code returned no result to the model');
    else if (!call.result.includes(run.line)) out.push("run_code's result lacks the program's line");
    // The code-mode server ran one confined program, which made one call to each target.
    const lines = code.lines.slice(since.code);
    const runs = lines.filter((l) => l.event === 'audit' && l.tool === 'run_code');
    if (runs.length !== 1) out.push(`the code-mode toolchain audited ${runs.length} run_code calls`);
    else {
      const audited = runs[0] as Record<string, unknown>;
      const confinement = audited.confinement as { abi: number } | undefined;
      if (audited.decision !== 'allowed' || audited.exitCode !== 0)
        out.push(`run_code ended ${audited.decision} with exit ${audited.exitCode}`);
      if (!(confinement && confinement.abi > 0)) out.push('run_code ran unconfined');
      const codeCalls = lines
        .filter((l) => l.event === 'code-call' && l.run === audited.run)
        .map((l) => `${l.server}.${l.tool}:${l.ok}`)
        .sort();
      const wanted = [`${OTHER}.exec_allowed:true`, `${GATEWAY}.lookup_ticket:true`].sort();
      if (JSON.stringify(codeCalls) !== JSON.stringify(wanted))
        out.push(`the run's calls were ${JSON.stringify(codeCalls)}, not ${JSON.stringify(wanted)}`);
    }
    // The other toolchain ran the command; the gateway got the call, every request with its own token.
    if (
      !other.lines
        .slice(since.other)
        .some(
          (l) =>
            l.event === 'audit' &&
            l.tool === 'exec_allowed' &&
            l.exitCode === 0 &&
            JSON.stringify(l.argv) === JSON.stringify(['echo', run.nonce]),
        )
    )
      out.push(`toolchain ${OTHER} did not run echo ${run.nonce}`);
    if (!gateway.calls.slice(since.gatewayCalls).some((c) => c.id === run.ticket))
      out.push(`the gateway got no lookup of ${run.ticket}`);
    const requests = gateway.requests.slice(since.gatewayRequests);
    if (requests.some((r) => !r.authorized)) out.push('a gateway request came without the gateway token');
    // The program read no token: each read refused, and no token in anything it produced or the CLI got back.
    const reportFile = join(workspace, 'outputs', run.report);
    if (!existsSync(reportFile)) out.push(`the program wrote no outputs/${run.report}`);
    else {
      const reads = (JSON.parse(readFileSync(reportFile, 'utf8')) as { reads: Record<string, string> }).reads;
      for (const file of tokenFiles)
        if (!/^(PermissionError|EACCES)$/.test(reads[file] ?? ''))
          out.push(`the program's read of ${file} was not refused: ${reads[file]?.slice(0, 40)}`);
    }
    const outputsDir = join(workspace, 'outputs');
    const produced = [
      ...script.calls.map((c) => c.result ?? ''),
      result.stdout,
      result.stderr,
      ...(existsSync(outputsDir)
        ? readdirSync(outputsDir).map((f) => readFileSync(join(outputsDir, f), 'utf8'))
        : []),
    ].join('\n');
    for (const [name, token] of Object.entries(TOKENS))
      if (produced.includes(token)) out.push(`${name}'s token reached the program's output`);
    return out;
  };

  it("control: the token files are the pod's, readable by its uid outside a call", async () => {
    // The code-mode toolchain's container as the emulation runs its server: the rendered uid, then the files.
    const read = await runContainer(volumes, `toolchain-${CODE}`, {
      argv: ['sh', '-c', 'id -u && cat "$@"', 'sh', ...tokenFiles],
      imageEnv: { PATH: IMAGE_PATH },
    });
    assert.equal(read.code, 0, read.stderr);
    assert.equal(read.stdout, `${POD_UID}\n${TOKENS[CODE]}${TOKENS[OTHER]}${TOKENS[GATEWAY]}`);
  });

  for (const cli of [STOCK_CLIS.claude, STOCK_CLIS.codex, STOCK_CLIS.gemini]) {
    const language = LANGUAGE[cli.name];
    it(`${cli.name}: \`${cli.argv(PROMPT).join(' ')}\` runs a ${language} program through run_code that calls toolchain ${OTHER} and gateway ${GATEWAY}, and reads its output`, async () => {
      const run = newRun(cli.name);
      const observed = await runCli(cli, [runCodeCall(cli, language, run)]);
      const { script, result } = observed;
      const context = observed.context(`result: ${script.calls[0]?.result?.slice(0, 3000)}`);
      assert.deepEqual(script.problems(), [], context);
      assert.deepEqual(problems(cli, run, observed), [], context);
      assert.equal(result.code, 0, context);
    });
  }

  it('control: the checks fail when the model calls both tools directly instead of run_code', async () => {
    const cli = STOCK_CLIS.claude;
    const run = newRun('control-direct');
    const observed = await runCli(cli, [
      {
        tool: cli.tool(`toolchain-${OTHER}`, 'exec_allowed'),
        args: { command: ['echo', run.nonce] },
        expect: run.nonce,
      },
      { tool: cli.tool(GATEWAY, 'lookup_ticket'), args: { id: run.ticket }, expect: GATEWAY_ANSWER },
    ]);
    // Both calls went through and came back: only code mode's part is missing.
    assert.deepEqual(observed.script.problems(), [], observed.result.stderr);
    assert.deepEqual(problems(cli, run, observed), [
      'run_code was not called',
      'the code-mode toolchain audited 0 run_code calls',
      `the program wrote no outputs/${run.report}`,
    ]);
  });

  it("control: the checks fail when the program's output does not come back", async () => {
    const cli = STOCK_CLIS.claude;
    const run = newRun('control-silent');
    const observed = await runCli(cli, [runCodeCall(cli, 'python', run, false)]);
    // The program ran, called both targets and wrote its report: only the printed line is missing.
    assert.deepEqual(problems(cli, run, observed), ["run_code's result lacks the program's line"]);
    assert.match(readFileSync(join(workspace, 'outputs', run.report), 'utf8'), new RegExp(run.nonce));
  });
});
