/**
 * `toolyard diff` on caches: a new read-write user of an existing claim (a cache other agents may mount), or a
 * read-only use that becomes read-write, widens (exit 3); a new cache of the agent's own and a new reader do not.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { diffCommand } from '../../cli/src/commands/diff.ts';
import type { FleetDiff } from '../../cli/src/fleet/fleet-diff.ts';
import { captureIo } from './capture-io.ts';

const temp = mkdtempSync(join(tmpdir(), 'toolyard-diff-caches-'));
after(() => rmSync(temp, { recursive: true, force: true }));
let counter = 0;

const GOMOD =
  '      - { name: gomod, ecosystem: go, volume: { persistentVolumeClaim: { claimName: team-gomod, readWriteMany: true } } }';
const GOBUILD = '      - { name: gobuild, ecosystem: go-build }';

function spec(caches: string[], uses: string, egress = 'none'): string {
  return `apiVersion: toolyard.dev/v1alpha1
kind: Agent
metadata: { name: alpha, namespace: agents }
spec:
${caches.length > 0 ? `  workspace:\n    caches:\n${caches.join('\n')}\n` : ''}  backends:
    - name: claude
      type: claude
      image: { repository: ghcr.io/example/claude, tag: "1.2.3" }
      port: 8080
      model: { apiKeySecret: { name: model-credentials, key: api-key } }
  toolchains:
    - name: go
      image: { repository: docker.io/library/golang, tag: "1.23" }
      port: 8702
      tools: { presets: [go] }
      network: { egress: ${egress} }
${uses ? `      caches: ${uses}\n` : ''}`;
}

function side(text: string): string {
  const dir = join(temp, `side-${++counter}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'alpha.yaml'), text);
  return dir;
}

async function diff(base: string, head: string): Promise<{ code: number; diff: FleetDiff; text: string }> {
  const io = captureIo();
  const code = await diffCommand(['--base', side(base), '--head', side(head), '--format', 'json'], io, temp);
  assert.notEqual(code, 1, io.stderrText());
  const textIo = captureIo();
  await diffCommand(['--base', side(base), '--head', side(head)], textIo, temp);
  return { code, diff: JSON.parse(io.stdoutText()) as FleetDiff, text: textIo.stdoutText() };
}

const fetching = '{ ecosystems: [go], phase: fetch }';

describe('diff: caches', () => {
  it('read-only → read-write on a shared claim widens', async () => {
    const {
      code,
      diff: d,
      text,
    } = await diff(
      spec([GOMOD], '[{ name: gomod, access: read-only }]', fetching),
      spec([GOMOD], '[{ name: gomod }]', fetching),
    );
    assert.equal(code, 3);
    assert.deepEqual(d.agents[0]!.caches, {
      added: [
        'toolchain go writes (fetch calls only) cache gomod (go, download) on claim team-gomod, shared with other agents',
      ],
      removed: [
        'toolchain go reads cache gomod (go, download) on claim team-gomod, shared with other agents',
      ],
    });
    assert.match(text, /Caches \(a new writer of an existing claim widens\):\n\s+\+ toolchain go writes/);
  });

  it('a new writer of a shared claim widens', async () => {
    const { code } = await diff(spec([], ''), spec([GOMOD], '[{ name: gomod }]', fetching));
    assert.equal(code, 3);
  });

  it('control: a new reader of a shared claim does not widen', async () => {
    const { code, diff: d } = await diff(spec([], ''), spec([GOMOD], '[{ name: gomod, access: read-only }]'));
    assert.equal(code, 0);
    assert.equal(d.agents[0]!.caches.added.length, 1);
  });

  it("control: a new cache of the agent's own does not widen", async () => {
    const { code, diff: d } = await diff(spec([], ''), spec([GOBUILD], '[{ name: gobuild }]'));
    assert.equal(code, 0);
    assert.deepEqual(d.agents[0]!.caches.added, [
      'toolchain go writes cache gobuild (go-build, build) on its own gobuild',
    ]);
  });
});
