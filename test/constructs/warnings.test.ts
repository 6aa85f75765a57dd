/** Render warnings and their acknowledgement in the spec (`spec.acknowledgedWarnings`). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkAgentDocument } from '../../constructs/src/check-agent.ts';
import { planAgent } from '../../constructs/src/plan.ts';
import { renderAgent } from '../../constructs/src/render.ts';
import { agentWarnings } from '../../constructs/src/warnings.ts';
import type { AgentSpec } from '../../schema/src/types.generated.ts';
import { brokerOff, minimalAgent, rustToolchain } from './fixtures.ts';

/**
 * With the broker off, a rust toolchain with no egress in a pod whose backend needs model egress: a
 * shared-egress warning (`brokerOff` acknowledges broker-disabled, so it is the only warning).
 */
const sharing = (extra: Partial<AgentSpec> = {}) =>
  minimalAgent(brokerOff({ toolchains: [rustToolchain], ...extra }));

describe('render warnings', () => {
  it('with the broker on, a sidecar toolchain shares nothing: each container reaches only its own list', () => {
    assert.deepEqual(agentWarnings(planAgent(minimalAgent({ toolchains: [rustToolchain] }))).warnings, []);
  });

  it('a disabled broker is warned about, and can be acknowledged', () => {
    const off = minimalAgent({ broker: { enabled: false } });
    assert.deepEqual(
      agentWarnings(planAgent(off)).warnings.map((w) => [w.code, w.path]),
      [['broker-disabled', '/spec/broker/enabled']],
    );
    const acknowledged = agentWarnings(planAgent(minimalAgent(brokerOff())));
    assert.deepEqual(acknowledged.warnings, []);
    assert.deepEqual(
      acknowledged.acknowledged.map((w) => w.code),
      ['broker-disabled'],
    );
  });

  it('the deprecated registries alias is warned about, naming the ecosystems it stands for', () => {
    const agent = minimalAgent({
      toolchains: [{ ...rustToolchain, network: { egress: 'registries' } }],
    });
    assert.deepEqual(
      agentWarnings(planAgent(agent)).warnings.map((w) => `${w.code} ${w.path}: ${w.message}`),
      [
        'deprecated-registries-egress /spec/toolchains/0/network/egress: toolchain "rust": egress "registries" is deprecated; it stands for the ecosystems of its presets: write { ecosystems: [crates] }',
      ],
    );
  });

  it('a toolchain sharing its pod’s egress is warned about, with a code and the toolchain', () => {
    const { warnings, acknowledged } = agentWarnings(planAgent(sharing()));
    assert.deepEqual(
      warnings.map((w) => [w.code, w.subject, w.path]),
      [['shared-egress', 'rust', '/spec/toolchains/0/network/egress']],
    );
    assert.deepEqual(
      acknowledged.map((a) => a.code),
      ['broker-disabled'],
    );
  });

  it('an acknowledgement moves the warning to the acknowledged list, with its reason', () => {
    const agent = sharing({
      acknowledgedWarnings: [{ warning: 'shared-egress', toolchain: 'rust', reason: 'builds are offline' }],
    });
    const result = renderAgent(agent);
    assert.deepEqual(result.warnings, []);
    const shared = result.acknowledgedWarnings.filter((a) => a.code === 'shared-egress');
    assert.equal(shared.length, 1);
    assert.equal(shared[0]!.reason, 'builds are offline');
    assert.equal(shared[0]!.acknowledgedAt, '/spec/acknowledgedWarnings/0');
    assert.equal(shared[0]!.path, '/spec/toolchains/0/network/egress');
    // Acknowledging changes no object.
    assert.deepEqual(result.objects, renderAgent(sharing()).objects);
  });

  it('an acknowledgement for another toolchain does not hide the warning, and is itself stale', () => {
    const agent = sharing({
      toolchains: [rustToolchain, { ...rustToolchain, name: 'go', port: 8703, network: { egress: 'open' } }],
      acknowledgedWarnings: [{ warning: 'shared-egress', toolchain: 'go', reason: 'x' }],
    });
    const { warnings } = agentWarnings(planAgent(agent));
    assert.deepEqual(
      warnings.map((w) => [w.code, w.path]),
      [
        ['shared-egress', '/spec/toolchains/0/network/egress'],
        ['stale-acknowledgement', '/spec/acknowledgedWarnings/0'],
      ],
    );
    assert.match(warnings[1]!.message, /acknowledges a "shared-egress" warning for "go" that does not occur/);
  });

  it('disabled NetworkPolicies can be acknowledged', () => {
    const agent = minimalAgent({
      networkPolicy: { enabled: false },
      acknowledgedWarnings: [{ warning: 'network-policies-disabled', reason: 'the CNI enforces none' }],
    });
    const { warnings, acknowledged } = agentWarnings(planAgent(agent));
    assert.deepEqual(warnings, []);
    assert.deepEqual(
      acknowledged.map((w) => w.code),
      ['network-policies-disabled'],
    );
  });

  it('an acknowledgement must name a toolchain or gateway of the spec, once, and say why', () => {
    const checked = checkAgentDocument(
      sharing({
        acknowledgedWarnings: [
          { warning: 'shared-egress', toolchain: 'rsut', reason: 'x' },
          { warning: 'unreachable-gateway', gateway: 'github', reason: 'x' },
          { warning: 'shared-egress', toolchain: 'rsut', reason: 'x' },
        ],
      }),
    );
    assert.equal(checked.ok, false);
    assert.deepEqual(!checked.ok && checked.problems.map((p) => `${p.path}: ${p.message}`), [
      '/spec/acknowledgedWarnings/0/toolchain: no toolchain "rsut" in this spec',
      '/spec/acknowledgedWarnings/1/gateway: no gateway "github" in this spec',
      '/spec/acknowledgedWarnings/2: acknowledges the same "shared-egress" warning twice',
      '/spec/acknowledgedWarnings/2/toolchain: no toolchain "rsut" in this spec',
    ]);
    const unnamed = checkAgentDocument(
      sharing({ acknowledgedWarnings: [{ warning: 'shared-egress', reason: '' } as never] }),
    );
    assert.deepEqual(!unnamed.ok && unnamed.problems.map((p) => `${p.path}: ${p.message}`), [
      '/spec/acknowledgedWarnings/0/toolchain: missing required field "toolchain"',
      '/spec/acknowledgedWarnings/0/reason: must not be empty',
    ]);
  });
});
