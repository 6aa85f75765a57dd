import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planAgent } from '../../constructs/src/plan.ts';
import { routeCommand } from '../../constructs/src/routing.ts';
import { minimalAgent, rustToolchain } from './fixtures.ts';

const plan = planAgent(
  minimalAgent({
    toolchains: [
      { ...rustToolchain, handles: { commands: ['cargo', 'rustc'] } },
      {
        name: 'go-python',
        image: { repository: 'x', tag: '1' },
        port: 8701,
        tools: { presets: ['go', 'python'] },
        handles: { commands: ['make'] },
      },
    ],
  }),
);

describe('routeCommand', () => {
  it('routes by handles, presets and allowed commands, saying why', () => {
    assert.deepEqual(routeCommand(plan, 'cargo test --workspace'), {
      command: ['cargo', 'test', '--workspace'],
      candidates: [
        {
          toolchain: 'rust',
          reasons: [
            'handles.commands lists "cargo"',
            'preset "cargo" wraps "cargo"',
            'tools.allowedCommands lists "cargo"',
          ],
          runsAs: 'structured tools of preset cargo or exec_allowed',
          runsIn: 'sidecar toolchain-rust of pod tiny, egress by name through the broker: none',
        },
      ],
    });
  });

  it('says where a toolchain in its own pod runs it', () => {
    const pods = planAgent(
      minimalAgent({
        workspace: {
          volume: {
            persistentVolumeClaim: { storage: '1Gi', accessModes: ['ReadWriteMany'] as ['ReadWriteMany'] },
          },
        },
        toolchains: [
          { ...rustToolchain, placement: 'pod', auth: { bearerTokenSecret: { name: 't', key: 'k' } } },
        ],
      }),
    );
    assert.equal(
      routeCommand(pods, 'cargo build').candidates[0]!.runsIn,
      'its own pod tiny-toolchain-rust at http://tiny-toolchain-rust.agents.svc:8702/mcp, egress by name through the broker: none',
    );
  });

  it('routes a preset binary the handles do not list', () => {
    const route = routeCommand(plan, 'pytest -q');
    assert.deepEqual(
      route.candidates.map((c) => c.toolchain),
      ['go-python'],
    );
    assert.deepEqual(route.candidates[0]!.reasons, ['preset "python" wraps "pytest"']);
  });

  it('says when a routing hint has no tool behind it', () => {
    const route = routeCommand(plan, 'make all');
    assert.match(route.candidates[0]!.runsAs, /routing hint only/);
  });

  it('finds no toolchain for an unknown command', () => {
    assert.deepEqual(routeCommand(plan, 'terraform plan').candidates, []);
  });
});
