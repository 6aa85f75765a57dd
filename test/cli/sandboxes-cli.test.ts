/**
 * `spec.sandboxes` through the CLI (docs/sandboxes.md): `toolyard explain` shows the sandbox manager's pod with its
 * ServiceAccount token and its egress (the API server and the sandbox pods, no DNS), and each template's sandbox
 * pods with no token but the bootstrap one, and a template's code mode (languages, servers, confinement, limits);
 * `toolyard chart` writes its chart, with the manager's config built from values and the quota and each template's
 * lifecycle as values (test/chart/sandboxes.test.ts renders it with real Helm). The control: the same agent without sandboxes gets its chart too.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { main } from '../../cli/src/main.ts';
import { captureIo } from './capture-io.ts';

const temp = mkdtempSync(join(tmpdir(), 'toolyard-sbx-cli-'));
after(() => rmSync(temp, { recursive: true, force: true }));

function spec(withSandboxes: boolean, codeMode = false): string {
  return stringify({
    apiVersion: 'toolyard.dev/v1alpha1',
    kind: 'Agent',
    metadata: { name: 'analyst', namespace: 'agents' },
    spec: {
      backends: [
        {
          name: 'claude',
          type: 'claude',
          image: { repository: 'ghcr.io/example/claude', tag: '1' },
          port: 8080,
          model: { apiKeySecret: { name: 'claude-key', key: 'api-key' } },
        },
      ],
      ...(withSandboxes
        ? {
            networkPolicy: { apiServerEgress: { cidrs: ['10.96.0.1/32'], ports: [443] } },
            sandboxes: {
              auth: { bearerTokenSecret: { name: 'analyst-sandboxes-token', key: 'token' } },
              bootstrapTokenSecret: { name: 'analyst-sandbox-bootstrap', key: 'token' },
              templates: [
                {
                  name: 'python',
                  image: { repository: 'ghcr.io/toolyard/toolchain-go-python', tag: '0.1.0' },
                  tools: {
                    allowedCommands: ['python3'],
                    ...(codeMode
                      ? {
                          codeMode: {
                            languages: ['python', 'node'],
                            servers: ['python'],
                            limits: { memoryMiB: 256, processes: 32 },
                          },
                        }
                      : {}),
                  },
                },
              ],
            },
          }
        : {}),
    },
  });
}

async function run(...argv: string[]) {
  const io = captureIo();
  const code = await main(argv, io);
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}

describe('spec.sandboxes through the CLI', () => {
  const withSandboxes = join(temp, 'with.yaml');
  const without = join(temp, 'without.yaml');
  writeFileSync(withSandboxes, spec(true));
  writeFileSync(without, spec(false));
  const withCodeMode = join(temp, 'code-mode.yaml');
  writeFileSync(withCodeMode, spec(true, true));

  it('explain shows the manager with its token and egress, and the sandbox pods without a token', async () => {
    const result = await run('explain', withSandboxes);
    assert.equal(result.code, 0, result.stderr);
    const text = result.stdout;
    const block = (header: string) => {
      const start = text.indexOf(header);
      assert.ok(start >= 0, `explain shows ${header}:\n${text}`);
      return text.slice(start, text.indexOf('\n\n', start));
    };
    const manager = block('Deployment analyst-sandboxes (ServiceAccount analyst-sandboxes)');
    assert.match(
      manager,
      /ServiceAccount token of "analyst-sandboxes" \(sandbox-manager: sandboxclaims, sandboxes\)/,
    );
    assert.match(manager, /10\.96\.0\.1\/32 on 443\/TCP — Kubernetes API server/);
    assert.match(manager, /pods of analyst-sandbox-python on 8800\/TCP/);
    assert.doesNotMatch(manager, /DNS/, 'the manager resolves no names');
    const pods = block('SandboxTemplate analyst-sandbox-python (ServiceAccount analyst-sandbox)');
    assert.match(
      pods,
      /credentials: secret analyst-sandbox-bootstrap\/token as file \(read by the server alone, once\)$/m,
    );
    assert.match(pods, /none \(not even DNS\)/);
    assert.match(text, /analyst-sandbox: no token mounted\n\s+can do: nothing in the Kubernetes API/);
  });

  it("explain reports a template's code mode: languages, servers, confinement, limits (exact)", async () => {
    const result = await run('explain', withCodeMode);
    assert.equal(result.code, 0, result.stderr);
    const text = result.stdout;
    const header = 'SandboxTemplate analyst-sandbox-python (ServiceAccount analyst-sandbox)';
    const start = text.indexOf(header);
    assert.ok(start >= 0, text);
    assert.equal(
      text.slice(start, text.indexOf('\n\n', start)),
      [
        header,
        '  containers:',
        '    sandbox [sandboxes] ghcr.io/toolyard/toolchain-go-python:0.1.0',
        "      listens: pod IP :8800 (the sandbox's server, for its manager alone, one token per sandbox), pod IP :9800 (probes only)",
        '      credentials: secret analyst-sandbox-bootstrap/token as file (read by the server alone, once)',
        "      code mode: sandbox_run_code (through the manager) → run_code of the session's sandbox server",
        '        languages: python, javascript, typescript',
        '        servers: mcp_python (the sandbox itself, in process, no token)',
        "        confinement: each run a fresh child under kernel confinement: no network at all (not even the pod's egress), writes only its scratch dir and outputs/ in the workspace, cannot read the bootstrap token, killed with its descendants at the timeout",
        '        limits: memory 256 MiB, 32 processes; timeout at most 1800 s',
        '  effective egress (pod-wide: NetworkPolicy selects pods, not containers):',
        '    none (not even DNS)',
      ].join('\n'),
    );
    // The control: the same template without code mode reports none.
    const plain = await run('explain', withSandboxes);
    assert.doesNotMatch(plain.stdout, /code mode/);
  });

  it('chart writes a chart for an agent with sandboxes: the manager, its config from values, the template and pool', async () => {
    const out = join(temp, 'charts-with');
    const result = await run('chart', withSandboxes, '-o', out);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /wrote .*analyst\//);
    const chart = join(out, 'analyst');
    for (const file of [
      'templates/_sandboxes.tpl',
      'templates/sandboxes-configmap.yaml',
      'templates/sandboxes-deployment.yaml',
      'templates/sandboxes-role.yaml',
      'templates/sandboxes-networkpolicy.yaml',
      'templates/sandbox-python-sandboxtemplate.yaml',
      'templates/sandbox-python-sandboxwarmpool.yaml',
    ])
      assert.ok(existsSync(join(chart, file)), `${file} in the chart`);
    const values = parse(readFileSync(join(chart, 'values.yaml'), 'utf8')) as {
      sandboxes: { quota: Record<string, unknown>; templates: Record<string, Record<string, unknown>> };
    };
    assert.deepEqual(values.sandboxes.quota, { maxSandboxes: 10, maxSessions: 100, cpu: '', memory: '' });
    assert.deepEqual(values.sandboxes.templates['python'], {
      warmPool: { replicas: 1 },
      idleTimeoutMinutes: 15,
      retentionHours: 24,
    });
  });

  it('site offers the chart of an agent with sandboxes for download, in the chart repository index', async () => {
    const out = join(temp, 'site');
    const result = await run('site', withSandboxes, '-o', out);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(existsSync(join(out, 'charts', 'analyst-0.1.0.tgz')));
    assert.match(readFileSync(join(out, 'charts', 'index.yaml'), 'utf8'), /analyst-0\.1\.0\.tgz/);
    assert.match(readFileSync(join(out, 'agents', 'analyst', 'index.html'), 'utf8'), /analyst-0\.1\.0\.tgz/);
  });

  it('control: the same agent without sandboxes gets its chart', async () => {
    const result = await run('chart', without, '-o', join(temp, 'charts-without'));
    assert.equal(result.code, 0, result.stderr);
  });
});
