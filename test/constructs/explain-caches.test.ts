/** `explain` lists each toolchain container's caches (path, access, shared or own, kind, verified) and phase. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { explainAgent, formatExplainReport } from '../../constructs/src/explain.ts';
import { planAgent } from '../../constructs/src/plan.ts';
import { minimalAgent, rustToolchain } from './fixtures.ts';

const agent = minimalAgent({
  workspace: {
    caches: [
      {
        name: 'npm',
        ecosystem: 'npm',
        volume: { persistentVolumeClaim: { claimName: 'team-npm', readWriteMany: true } },
      },
      { name: 'target', ecosystem: 'cargo-target' },
    ],
  },
  toolchains: [
    {
      ...rustToolchain,
      caches: [{ name: 'target' }],
      network: { egress: { ecosystems: ['crates'], phase: 'fetch' } },
    },
    {
      name: 'node',
      image: { repository: 'docker.io/library/node', tag: '22' },
      port: 8703,
      tools: { presets: ['node'] },
      caches: [{ name: 'npm', access: 'read-only' }],
    },
  ],
});

describe('explain: caches', () => {
  const report = explainAgent(planAgent(agent));

  it('reports each consuming container, its phase and its caches as data', () => {
    assert.deepEqual(report.caches, [
      {
        container: 'toolchain-rust',
        pod: 'tiny',
        phase: 'fetch',
        offlineEnv: { CARGO_NET_OFFLINE: 'true' },
        caches: [
          {
            name: 'target',
            ecosystem: 'cargo-target',
            kind: 'build',
            path: '/var/cache/toolyard/target',
            access: 'read-write',
            sharing: 'own',
            storage: 'emptyDir (5Gi)',
            verifiesOnRead: false,
          },
        ],
      },
      {
        container: 'toolchain-node',
        pod: 'tiny',
        phase: 'always',
        caches: [
          {
            name: 'npm',
            ecosystem: 'npm',
            kind: 'download',
            path: '/var/cache/toolyard/npm',
            access: 'read-only',
            sharing: 'shared',
            storage: 'existing claim team-npm (ReadWriteMany)',
            verifiesOnRead: true,
          },
        ],
      },
    ]);
  });

  it('prints them', () => {
    const text = formatExplainReport(report);
    assert.match(text, /toolchain-rust \(pod tiny\), phase fetch: only fetch tools get egress/);
    assert.match(text, /offline settings of other calls: CARGO_NET_OFFLINE=true/);
    assert.match(
      text,
      /\/var\/cache\/toolyard\/npm: npm \(npm, download\), read-only, shared with other agents, existing claim team-npm \(ReadWriteMany\), verified on read/,
    );
  });

  it('says nothing about caches for an agent without any', () => {
    const plain = explainAgent(planAgent(minimalAgent({ toolchains: [rustToolchain] })));
    assert.equal(plain.caches, undefined);
    assert.doesNotMatch(formatExplainReport(plain), /Caches/);
  });
});
