/**
 * Code mode in sandboxes (docs/code-mode.md#in-sandboxes): a template's `tools.codeMode` renders into its pods' server
 * config (the sandbox itself, called in process, and nothing else) and into the manager's config (the languages,
 * which turn `sandbox_run_code` on); a server that is not the template itself, confinement off, and Python on an
 * image without it are refused at their JSON paths with a hint.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkAgentDocument } from '../../constructs/src/check-agent.ts';
import { type KubeObject, renderAgent } from '../../constructs/src/render.ts';
import type { SandboxTemplate, ToolyardAgent } from '../../schema/src/types.generated.ts';
import { parseSandboxManagerConfig } from '../../toolchain-server/sandbox-manager/config.ts';
import { sandboxToolsFor } from '../../toolchain-server/sandbox-manager/tools.ts';
import { parseToolchainServerConfig } from '../../toolchain-server/src/config.ts';

function agent(templates: [SandboxTemplate, ...SandboxTemplate[]]): ToolyardAgent {
  return {
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
      toolchains: [
        {
          name: 'go',
          image: { repository: 'ghcr.io/toolyard/toolchain-go-python', tag: '0.1.0' },
          port: 8100,
          tools: { presets: ['go'] },
        },
      ],
      networkPolicy: { apiServerEgress: { cidrs: ['10.96.0.1/32'], ports: [443] } },
      sandboxes: {
        auth: { bearerTokenSecret: { name: 'analyst-sandboxes-token', key: 'token' } },
        bootstrapTokenSecret: { name: 'analyst-sandbox-bootstrap', key: 'token' },
        templates,
      },
    },
  };
}

const PYTHON: SandboxTemplate = {
  name: 'python',
  image: { repository: 'ghcr.io/toolyard/toolchain-go-python', tag: '0.1.0' },
  tools: {
    allowedCommands: ['python3'],
    codeMode: { languages: ['python', 'node'], servers: ['python'], limits: { memoryMiB: 256 } },
  },
};
const SHELL: SandboxTemplate = {
  name: 'shell',
  image: { repository: 'docker.io/library/debian', tag: '13' },
  tools: { allowedCommands: ['sh'] },
};

function configMap(objects: readonly KubeObject[], name: string): unknown {
  const found = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === name) as
    | { data: Record<string, string> }
    | undefined;
  assert.ok(found, `no ConfigMap/${name}`);
  return JSON.parse(found.data['config.json'] as string);
}

describe('code mode in sandboxes: rendered', () => {
  const objects = renderAgent(agent([PYTHON, SHELL])).objects;

  it("gives the template's server config exactly the codeMode section: itself, in process, and nothing else", () => {
    const raw = configMap(objects, 'analyst-sandbox-python') as Record<string, unknown>;
    assert.deepEqual(raw.codeMode, {
      languages: ['python', 'node'],
      servers: [{ name: 'python', kind: 'toolchain' }],
      limits: { memoryMiB: 256 },
    });
    assert.equal(raw.name, 'python', 'the alias mcp_python is the server itself');
    const parsed = parseToolchainServerConfig(raw);
    assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.issues));
    assert.ok(parsed.config.sandbox, 'still a sandbox server, bound by the manager');
    assert.equal(parsed.config.auth, undefined);
    const shell = configMap(objects, 'analyst-sandbox-shell') as Record<string, unknown>;
    assert.equal(shell.codeMode, undefined, 'a template without codeMode has no run_code');
  });

  it('tells the manager which templates run programs, and in what; it lists sandbox_run_code then', () => {
    const parsed = parseSandboxManagerConfig(configMap(objects, 'analyst-sandboxes'));
    assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.issues));
    assert.deepEqual(
      parsed.config.templates.map((t) => [t.name, t.codeMode ?? null]),
      [
        ['python', { languages: ['python', 'node'] }],
        ['shell', null],
      ],
    );
    assert.ok(sandboxToolsFor(parsed.config).some((t) => t.name === 'sandbox_run_code'));
    const without = renderAgent(agent([SHELL])).objects;
    const plain = parseSandboxManagerConfig(configMap(without, 'analyst-sandboxes'));
    assert.ok(plain.ok);
    assert.ok(!sandboxToolsFor(plain.config).some((t) => t.name === 'sandbox_run_code'));
  });

  it('mounts no token of another server into the sandbox pod for code mode', () => {
    const template = objects.find(
      (o) => o.kind === 'SandboxTemplate' && o.metadata.name === 'analyst-sandbox-python',
    );
    assert.ok(template);
    assert.doesNotMatch(JSON.stringify(template), /code-mode/);
  });
});

describe('code mode in sandboxes: validation', () => {
  const problems = (templates: [SandboxTemplate, ...SandboxTemplate[]]) => {
    const result = checkAgentDocument(agent(templates));
    return result.ok ? [] : result.problems;
  };

  it('accepts a template that lists itself, or no server', () => {
    assert.deepEqual(problems([PYTHON]), []);
    assert.deepEqual(
      problems([{ ...PYTHON, tools: { allowedCommands: ['python3'], codeMode: { languages: ['python'] } } }]),
      [],
    );
  });

  it("refuses another of the agent's servers: a sandbox holds no credential of it", () => {
    const found = problems([
      {
        ...PYTHON,
        tools: { allowedCommands: ['python3'], codeMode: { languages: ['python'], servers: ['go'] } },
      },
    ]);
    const problem = found.find((p) => p.path === '/spec/sandboxes/templates/0/tools/codeMode/servers/0');
    assert.ok(problem, JSON.stringify(found));
    assert.match(problem.message, /cannot give its programs "go": a sandbox holds no credential/);
    assert.match(problem.hint ?? '', /list only "python"/);
  });

  it('refuses an unknown server with a did-you-mean of the template itself', () => {
    const found = problems([
      {
        ...PYTHON,
        tools: { allowedCommands: ['python3'], codeMode: { languages: ['python'], servers: ['pyhton'] } },
      },
    ]);
    const problem = found.find((p) => p.path === '/spec/sandboxes/templates/0/tools/codeMode/servers/0');
    assert.ok(problem, JSON.stringify(found));
    assert.match(problem.message, /"pyhton" is not this sandbox template \(did you mean "python"\?\)/);
  });

  it('refuses code mode with confinement off, and Python on an image without python3', () => {
    const found = problems([
      {
        name: 'node',
        image: { repository: 'ghcr.io/toolyard/toolchain-node', tag: '0.1.0' },
        tools: { allowedCommands: ['node'], codeMode: { languages: ['python'] } },
        limits: { confinement: 'off' },
      },
    ]);
    const confinement = found.find((p) => p.path === '/spec/sandboxes/templates/0/limits/confinement');
    assert.ok(confinement, JSON.stringify(found));
    assert.match(confinement.message, /runs only under kernel confinement/);
    const python = found.find((p) => p.path === '/spec/sandboxes/templates/0/tools/codeMode/languages');
    assert.ok(python, JSON.stringify(found));
    assert.match(python.message, /has no python3/);
    assert.match(python.hint ?? '', /toolchain-go-python/);
    assert.deepEqual(
      problems([
        {
          name: 'node',
          image: { repository: 'ghcr.io/toolyard/toolchain-node', tag: '0.1.0' },
          tools: { allowedCommands: ['node'], codeMode: { languages: ['node'], servers: ['node'] } },
        },
      ]),
      [],
      'node alone runs on every sandbox',
    );
  });
});
