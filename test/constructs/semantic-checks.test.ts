import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planAgent } from '../../constructs/src/plan.ts';
import { checkAgentPlan } from '../../constructs/src/semantic-checks.ts';
import type { AgentSpec } from '../../schema/src/types.generated.ts';
import { minimalAgent, modelKey, rustToolchain } from './fixtures.ts';

const problemsOf = (spec: Partial<AgentSpec>, name?: string) =>
  checkAgentPlan(planAgent(minimalAgent(spec, name))).map((p) => `${p.path}: ${p.message}`);

const backend = (name: string, port: number) => ({
  name,
  type: 'claude' as const,
  image: { repository: 'x', tag: '1' },
  port,
  model: modelKey,
});

describe('semantic checks', () => {
  it('accepts a valid agent', () => {
    assert.deepEqual(problemsOf({ toolchains: [rustToolchain] }), []);
  });

  it('rejects duplicate container and MCP server names', () => {
    assert.deepEqual(problemsOf({ backends: [backend('a', 1000), backend('a', 1001)] }), [
      '/spec/backends/1/name: duplicate container name "a"',
    ]);
    assert.deepEqual(problemsOf({ toolchains: [rustToolchain, { ...rustToolchain, port: 9000 }] }), [
      '/spec/toolchains/1/name: duplicate container name "toolchain-rust"',
    ]);
    assert.deepEqual(
      problemsOf({
        gateways: [
          { name: 'gh', url: 'https://a/mcp' },
          { name: 'gh', url: 'https://b/mcp' },
        ],
      }),
      ['/spec/gateways/1/name: duplicate MCP server name "gh"'],
    );
  });

  it('rejects port collisions inside the pod, health ports included', () => {
    assert.deepEqual(problemsOf({ toolchains: [{ ...rustToolchain, port: 8080 }] }), [
      '/spec/toolchains/0/port: port 8080 of toolchain "rust" collides with backend "claude" in pod "tiny"',
    ]);
    assert.deepEqual(problemsOf({ backends: [backend('claude', 9702)], toolchains: [rustToolchain] }), [
      '/spec/toolchains/0/healthPort: port 9702 of toolchain "rust" (health) collides with backend "claude" in pod "tiny"',
    ]);
  });

  it('rejects names whose derived object names exceed 63 characters', () => {
    const long = 'g'.repeat(30);
    assert.deepEqual(
      problemsOf(
        { gateways: [{ name: long, image: { repository: 'x', tag: '1' }, port: 8000 }] },
        'a'.repeat(40),
      ),
      [
        `/spec/gateways/0/name: object name "${'a'.repeat(40)}-${long}" would be 71 characters, more than Kubernetes allows (63)`,
      ],
    );
  });

  it('rejects toolchains that expose nothing, and timeouts out of order', () => {
    assert.deepEqual(
      problemsOf({ toolchains: [{ ...rustToolchain, tools: { mode: 'structured', presets: [] } }] }),
      [
        '/spec/toolchains/0/tools/presets: toolchain "rust" exposes no tool: structured mode needs at least one preset',
      ],
    );
    assert.deepEqual(
      problemsOf({
        toolchains: [{ ...rustToolchain, limits: { defaultTimeoutSeconds: 600, maxTimeoutSeconds: 60 } }],
      }),
      [
        '/spec/toolchains/0/limits/defaultTimeoutSeconds: defaultTimeoutSeconds 600 exceeds maxTimeoutSeconds 60',
      ],
    );
  });

  it("rejects workspace and config paths over toolyard's own mounts", () => {
    assert.deepEqual(problemsOf({ workspace: { mountPath: '/tmp/work' } }), [
      '/spec/workspace/mountPath: "/tmp/work" overlaps "/tmp", which toolyard mounts itself',
    ]);
  });

  it('rejects a gateway URL into the pod that no container serves', () => {
    assert.deepEqual(problemsOf({ gateways: [{ name: 'local', url: 'http://127.0.0.1:9999/mcp' }] }), [
      '/spec/gateways/0/url: "http://127.0.0.1:9999/mcp" points into the agent pod, but no container listens on port 9999',
    ]);
    assert.deepEqual(problemsOf({ gateways: [{ name: 'local', url: 'http://localhost:8080/mcp' }] }), []);
  });

  it('rejects environment variables toolyard sets itself, and duplicates', () => {
    assert.deepEqual(
      problemsOf({
        backends: [
          {
            ...backend('claude', 8080),
            env: { HOME: '/root', A: '1' },
            secretEnv: [
              { name: 'A', secretName: 's', key: 'k' },
              { name: 'TOOLYARD_X', secretName: 's', key: 'k' },
            ],
          },
        ],
      }),
      [
        '/spec/backends/0/env/HOME: environment variable "HOME" is set by toolyard',
        '/spec/backends/0/secretEnv/0/name: environment variable "A" is defined twice',
        '/spec/backends/0/secretEnv/1/name: environment variable "TOOLYARD_X" is set by toolyard',
      ],
    );
  });
});

describe('Service port names', () => {
  it('fall back to port-<number> for long backend names, and a clash with a real name is an error', () => {
    assert.deepEqual(
      problemsOf({ backends: [backend('a-very-long-backend-name', 8080), backend('port-8080', 8081)] }),
      ['/spec/backends/1/name: duplicate Service port name "port-8080"'],
    );
    assert.deepEqual(
      problemsOf({ backends: [backend('a-very-long-backend-name', 8080), backend('claude', 8081)] }),
      [],
    );
  });
});

describe('placement: pod', () => {
  const rustPod = {
    ...rustToolchain,
    placement: 'pod' as const,
    auth: { bearerTokenSecret: { name: 'rust-token', key: 'token' } },
  };
  const rwx = {
    volume: {
      persistentVolumeClaim: { storage: '10Gi', accessModes: ['ReadWriteMany'] as ['ReadWriteMany'] },
    },
  };

  it('accepts a toolchain pod on a ReadWriteMany claim, new or declared', () => {
    assert.deepEqual(problemsOf({ workspace: rwx, toolchains: [rustPod] }), []);
    assert.deepEqual(
      problemsOf({
        workspace: { volume: { persistentVolumeClaim: { claimName: 'src', readWriteMany: true } } },
        toolchains: [rustPod],
      }),
      [],
    );
  });

  it('needs a workspace every pod can mount, and says which field and what to do', () => {
    const problems = checkAgentPlan(planAgent(minimalAgent({ toolchains: [rustPod] })));
    assert.deepEqual(
      problems.map((p) => `${p.path}: ${p.message}`),
      [
        '/spec/workspace/volume: toolchain "rust" has placement: pod, so the workspace must be a volume every pod can mount; an emptyDir lives inside one pod',
      ],
    );
    assert.match(problems[0]!.hint ?? '', /accessModes: \[ReadWriteMany\].*readWriteMany: true/);
    assert.deepEqual(
      problemsOf({
        workspace: { volume: { persistentVolumeClaim: { storage: '10Gi' } } },
        toolchains: [
          rustPod,
          { ...rustPod, name: 'go', port: 8710, auth: { bearerTokenSecret: { name: 'g', key: 't' } } },
        ],
      }),
      [
        '/spec/workspace/volume/persistentVolumeClaim/accessModes: toolchains "rust", "go" have placement: pod, so the workspace claim must be ReadWriteMany; its accessModes are [ReadWriteOnce]',
      ],
    );
    assert.deepEqual(
      problemsOf({
        workspace: { volume: { persistentVolumeClaim: { claimName: 'src' } } },
        toolchains: [rustPod],
      }),
      [
        '/spec/workspace/volume/persistentVolumeClaim/readWriteMany: toolchain "rust" has placement: pod, so the existing claim "src" must be ReadWriteMany, which toolyard cannot check',
      ],
    );
  });

  it('needs a bearer token unless explicitly waived, and the waiver only where it means something', () => {
    const { auth: _auth, ...noAuth } = rustPod;
    assert.deepEqual(problemsOf({ workspace: rwx, toolchains: [noAuth] }), [
      '/spec/toolchains/0/auth: toolchain "rust" has placement: pod: its server listens on the pod IP and needs a bearer token',
    ]);
    assert.deepEqual(
      problemsOf({ workspace: rwx, toolchains: [{ ...noAuth, insecureAllowUnauthenticated: true }] }),
      [],
    );
    assert.deepEqual(
      problemsOf({ workspace: rwx, toolchains: [{ ...rustPod, insecureAllowUnauthenticated: true }] }),
      [
        '/spec/toolchains/0/insecureAllowUnauthenticated: toolchain "rust" has auth, so insecureAllowUnauthenticated would change nothing',
      ],
    );
    assert.deepEqual(problemsOf({ toolchains: [{ ...rustToolchain, insecureAllowUnauthenticated: true }] }), [
      '/spec/toolchains/0/insecureAllowUnauthenticated: toolchain "rust" is a sidecar: insecureAllowUnauthenticated applies only to placement: pod',
    ]);
  });

  it('checks ports per pod: a toolchain pod may reuse a backend port, not its own health port', () => {
    assert.deepEqual(problemsOf({ workspace: rwx, toolchains: [{ ...rustPod, port: 8080 }] }), []);
    assert.deepEqual(problemsOf({ workspace: rwx, toolchains: [{ ...rustPod, healthPort: 8702 }] }), [
      '/spec/toolchains/0/healthPort: port 8702 of toolchain "rust" (health) collides with toolchain "rust" in pod "tiny-toolchain-rust"',
    ]);
  });

  it("rejects a gateway whose objects would be the toolchain pod's, and names too long", () => {
    assert.deepEqual(
      problemsOf({
        workspace: rwx,
        toolchains: [rustPod],
        gateways: [{ name: 'toolchain-rust', image: { repository: 'g', tag: '1' }, port: 8000 }],
      }),
      [
        // Its objects would be tiny-toolchain-rust too; the MCP server names already clash.
        '/spec/gateways/0/name: duplicate MCP server name "toolchain-rust"',
      ],
    );
    const long = 'r'.repeat(40);
    assert.deepEqual(
      problemsOf({ workspace: rwx, toolchains: [{ ...rustPod, name: long }] }, 'a'.repeat(20)),
      [
        `/spec/toolchains/0/name: object name "${'a'.repeat(20)}-toolchain-${long}" would be 71 characters, more than Kubernetes allows (63)`,
      ],
    );
  });

  it('rejects ReadWriteOncePod combined with other access modes', () => {
    assert.deepEqual(
      problemsOf({
        workspace: {
          volume: {
            persistentVolumeClaim: { storage: '1Gi', accessModes: ['ReadWriteOncePod', 'ReadWriteMany'] },
          },
        },
      }),
      [
        '/spec/workspace/volume/persistentVolumeClaim/accessModes: ReadWriteOncePod cannot be combined with other access modes',
      ],
    );
  });
});
