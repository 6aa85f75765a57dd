/**
 * `tools.codeMode` from spec to rendered objects: the server config (parsed by the server's own schema), the token
 * mounts, the broker caller and its routes, and the checks with their hints.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planAgent } from '../../constructs/src/plan.ts';
import { checkAgentPlan } from '../../constructs/src/semantic-checks.ts';
import type { AgentSpec, Toolchain } from '../../schema/src/types.generated.ts';
import { parseToolchainServerConfig } from '../../toolchain-server/src/config.ts';
import { find, type Json, minimalAgent, objectsOf, podSpecOf } from './fixtures.ts';

const python = (
  codeMode: Toolchain['tools'] extends infer T ? (T extends { codeMode?: infer C } ? C : never) : never,
  extra: Partial<Toolchain> = {},
): Toolchain => ({
  name: 'python',
  image: { repository: 'ghcr.io/toolyard/toolchain-go-python', tag: '0.1.0' },
  port: 8701,
  tools: { mode: 'structured', presets: ['python'], codeMode },
  ...extra,
});
const go: Toolchain = {
  name: 'go',
  image: { repository: 'ghcr.io/toolyard/toolchain-go-python', tag: '0.1.0' },
  port: 8702,
  tools: { mode: 'structured', presets: ['go'] },
  auth: { bearerTokenSecret: { name: 'go-token', key: 'token' } },
};
const gateways: AgentSpec['gateways'] = [
  {
    name: 'tickets',
    image: { repository: 'example/tickets', tag: '1' },
    port: 8000,
    auth: { bearerTokenSecret: { name: 'tickets-token', key: 'token' } },
  },
  { name: 'deploys', image: { repository: 'example/deploys', tag: '1' }, port: 8001, preApproved: false },
];
const problems = (spec: Partial<AgentSpec>) =>
  checkAgentPlan(planAgent(minimalAgent(spec))).map(
    (p) => `${p.path}: ${p.message}${p.hint ? ` (${p.hint})` : ''}`,
  );

describe('code mode in the spec', () => {
  it('renders the server config the server parses: itself, a toolchain with its token, a gateway by its route', () => {
    const agent = minimalAgent({
      toolchains: [python({ languages: ['python', 'node'], servers: ['python', 'go', 'tickets'] }), go],
      gateways,
    });
    const objects = objectsOf(agent);
    const configMap = find(objects, 'ConfigMap', 'tiny-toolchain-python') as Json;
    const config = JSON.parse(configMap.data['config.json']);
    const parsed = parseToolchainServerConfig(config);
    assert.ok(parsed.ok, JSON.stringify(parsed));
    assert.deepEqual(config.codeMode.servers, [
      { name: 'python', kind: 'toolchain' },
      {
        name: 'go',
        kind: 'toolchain',
        url: 'http://127.0.0.1:8702/mcp',
        tokenFile: '/etc/toolyard/code-mode/go/token',
      },
      {
        name: 'tickets',
        kind: 'gateway',
        url: 'http://tiny-broker.agents.svc:8480/gateway-tickets',
        tokenFile: '/etc/toolyard/broker/token',
      },
    ]);
    const container = (podSpecOf(objects, 'tiny').containers as Json[]).find(
      (c) => c.name === 'toolchain-python',
    );
    const mounts = container.volumeMounts.map((m: Json) => m.mountPath);
    assert.ok(mounts.includes('/etc/toolyard/code-mode/go'));
    assert.ok(mounts.includes('/etc/toolyard/broker'));
    // The gateway's own token is the broker's alone; this toolchain is a broker caller of that route only.
    assert.ok(!JSON.stringify(container).includes('tickets-token'));
    const broker = JSON.parse((find(objects, 'ConfigMap', 'tiny-broker') as Json).data['config.json']);
    const caller = broker.callers.find((c: Json) => c.name === 'toolchain-python');
    assert.deepEqual(caller.routes, ['gateway-tickets']);
    // The go toolchain, which has no code mode, gets no token of anyone else.
    const goContainer = (podSpecOf(objects, 'tiny').containers as Json[]).find(
      (c) => c.name === 'toolchain-go',
    );
    assert.ok(!goContainer.volumeMounts.some((m: Json) => m.mountPath.startsWith('/etc/toolyard/code-mode')));
  });

  it('without the broker, a gateway is called at its Service with its own token, mounted in that toolchain', () => {
    const agent = minimalAgent({
      broker: { enabled: false },
      acknowledgedWarnings: [{ warning: 'broker-disabled', reason: 'test' }],
      toolchains: [python({ languages: ['node'], servers: ['tickets'] })],
      gateways,
    });
    const config = JSON.parse(
      (find(objectsOf(agent), 'ConfigMap', 'tiny-toolchain-python') as Json).data['config.json'],
    );
    assert.deepEqual(config.codeMode.servers, [
      {
        name: 'tickets',
        kind: 'gateway',
        url: 'http://tiny-tickets.agents.svc:8000/mcp',
        tokenFile: '/etc/toolyard/code-mode/tickets/token',
      },
    ]);
  });

  it("refuses servers that are not the agent's (did you mean), approvals, pods, confinement off, Python without Python", () => {
    assert.deepEqual(
      problems({
        toolchains: [python({ languages: ['python'], servers: ['tickts', 'deploys'] }), go],
        gateways,
      }),
      [
        '/spec/toolchains/0/tools/codeMode/servers/0: "tickts" is neither a toolchain nor a gateway of agent "tiny" (did you mean "tickets"?) (toolchains: python, go; gateways: tickets, deploys)',
        '/spec/toolchains/0/tools/codeMode/servers/1: gateway "deploys" has preApproved: false, and a program cannot ask for an approval (leave it out of codeMode.servers (backends still call it with an approval), or set preApproved: true)',
      ],
    );
    const node = { repository: 'ghcr.io/toolyard/toolchain-node', tag: '0.1.0' };
    const found = problems({
      toolchains: [
        python({ languages: ['python'], servers: [] }, { image: node, limits: { confinement: 'off' } }),
      ],
    });
    assert.equal(found.length, 2, found.join('\n'));
    assert.match(
      found[0] as string,
      /limits\/confinement: toolchain "python" has code mode, which runs only under kernel confinement/,
    );
    assert.match(found[1] as string, /codeMode\/languages: .*toolchain-node:0.1.0, which has no python3/);
    const pod = problems({
      workspace: { volume: { persistentVolumeClaim: { storage: '1Gi', accessModes: ['ReadWriteMany'] } } },
      toolchains: [
        python(
          { languages: ['node'], servers: [] },
          { placement: 'pod', auth: { bearerTokenSecret: { name: 'p', key: 't' } } },
        ),
      ],
    });
    assert.ok(
      pod.some((p) => /code mode runs in sidecar toolchains only/.test(p)),
      pod.join('\n'),
    );
  });
});
