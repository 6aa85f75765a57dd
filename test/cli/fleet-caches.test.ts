/**
 * Caches across a fleet, through `toolyard validate dir/`: agents that mount the same existing claim are
 * reported with who writes and who reads; a build cache two agents write is refused (at the second writer, with
 * its file and line), and so is a download cache written without verification or a fetch phase on a claim
 * another agent mounts. Controls: the same specs with one writer, or the writer fetching in a phase, pass.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { siteCommand } from '../../cli/src/commands/site.ts';
import { main } from '../../cli/src/main.ts';
import { captureIo } from './capture-io.ts';

const temp = mkdtempSync(join(tmpdir(), 'toolyard-fleet-caches-'));
after(() => rmSync(temp, { recursive: true, force: true }));
let counter = 0;

function spec(name: string, caches: string, uses: string, egress = 'none'): string {
  return `apiVersion: toolyard.dev/v1alpha1
kind: Agent
metadata: { name: ${name}, namespace: agents }
spec:
  workspace:
    caches:
${caches}
  backends:
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
      caches: ${uses}
`;
}

function fleet(specs: Record<string, string>): string {
  const dir = join(temp, `fleet-${++counter}`);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(specs)) writeFileSync(join(dir, file), text);
  return dir;
}

async function validate(dir: string) {
  const io = captureIo();
  const code = await main(['validate', dir], io);
  return { code, out: io.stdoutText(), err: io.stderrText() };
}

// An existing claim, not declared ReadWriteMany in either spec: each spec alone thinks it is its own.
const gobuild =
  '      - { name: gobuild, ecosystem: go-build, volume: { persistentVolumeClaim: { claimName: team-gobuild } } }';
const gomod =
  '      - { name: gomod, ecosystem: go, volume: { persistentVolumeClaim: { claimName: team-gomod } } }';

describe('fleet caches (validate dir/)', () => {
  it('reports the agents that share a claim, who writes and who reads', async () => {
    const sharedGomod =
      '      - { name: gomod, ecosystem: go, volume: { persistentVolumeClaim: { claimName: team-gomod, readWriteMany: true } } }';
    const dir = fleet({
      'a.yaml': spec('alpha', sharedGomod, '[{ name: gomod }]', '{ ecosystems: [go], phase: fetch }'),
      'b.yaml': spec('beta', sharedGomod, '[{ name: gomod, access: read-only }]'),
    });
    const { code, out, err } = await validate(dir);
    assert.equal(code, 0, err);
    assert.match(out, /claim agents\/team-gomod, shared by alpha, beta:/);
    assert.match(out, /alpha\/go: writes \(fetch calls only\) cache gomod \(go, download\)/);
    assert.match(out, /beta\/go: reads cache gomod \(go, download\)/);
  });

  it('refuses a build cache two agents write, at the second writer', async () => {
    const dir = fleet({
      'a.yaml': spec('alpha', gobuild, '[{ name: gobuild }]'),
      'b.yaml': spec('beta', gobuild, '[{ name: gobuild }]'),
    });
    const { code, err } = await validate(dir);
    assert.equal(code, 1);
    assert.match(
      err,
      /b\.yaml:\d+: \/spec\/toolchains\/0\/caches\/0\/access: toolchain "go" writes the build cache "gobuild" on claim team-gobuild, which agent "alpha" writes too/,
    );
    assert.doesNotMatch(err, /a\.yaml/);
  });

  it('control: one agent alone on that claim is valid', async () => {
    const { code } = await validate(fleet({ 'a.yaml': spec('alpha', gobuild, '[{ name: gobuild }]') }));
    assert.equal(code, 0);
  });

  it('refuses a download cache another agent mounts, written without verification or fetch phase', async () => {
    const dir = fleet({
      'a.yaml': spec('alpha', gomod, '[{ name: gomod }]', '{ ecosystems: [go] }'),
      'b.yaml': spec('beta', gomod, '[{ name: gomod, access: read-only }]'),
    });
    const { code, err } = await validate(dir);
    assert.equal(code, 1);
    assert.match(
      err,
      /a\.yaml:\d+: .*writes the go cache "gomod" on claim team-gomod, which agent\(s\) beta also mount/,
    );
  });

  it('control: the writer fetches in a phase of its own', async () => {
    const dir = fleet({
      'a.yaml': spec('alpha', gomod, '[{ name: gomod }]', '{ ecosystems: [go], phase: fetch }'),
      'b.yaml': spec('beta', gomod, '[{ name: gomod, access: read-only }]'),
    });
    const { code, err } = await validate(dir);
    assert.equal(code, 0, err);
  });
});

describe('fleet site: caches page', () => {
  it('lists each claim used as a cache with who writes and who reads, and each agent’s own caches', async () => {
    const sharedGomod =
      '      - { name: gomod, ecosystem: go, volume: { persistentVolumeClaim: { claimName: team-gomod, readWriteMany: true } } }';
    const dir = fleet({
      'a.yaml': spec(
        'alpha',
        `${sharedGomod}\n      - { name: gobuild, ecosystem: go-build }`,
        '[{ name: gomod }, { name: gobuild }]',
        '{ ecosystems: [go], phase: fetch }',
      ),
      'b.yaml': spec('beta', sharedGomod, '[{ name: gomod, access: read-only }]'),
    });
    const out = join(temp, `site-${++counter}`);
    const io = captureIo();
    assert.equal(await siteCommand([dir, '-o', out, '--title', 'Fleet'], io), 0, io.stderrText());
    const page = readFileSync(join(out, 'caches', 'index.html'), 'utf8');
    assert.match(page, /<code>agents\/team-gomod<\/code>.*shared by 2 agents/s);
    assert.match(
      page,
      /alpha<\/a>\/go: <span class="warn">writes \(fetch calls only\)<\/span> <code>gomod<\/code>/,
    );
    assert.match(page, /beta<\/a>\/go: <span class="yes">reads<\/span> <code>gomod<\/code>/);
    assert.match(page, /id="own-caches".*alpha.*<code>gobuild<\/code>/s);
    assert.match(readFileSync(join(out, 'index.html'), 'utf8'), /<a href="\.\/caches\/">Caches<\/a>/);
    // Without the spans that keep hyphenated words whole in table cells (whole-words.ts).
    const alpha = readFileSync(join(out, 'agents', 'alpha', 'index.html'), 'utf8').replace(
      /<span class=w>([^<]*)<\/span>/g,
      '$1',
    );
    assert.match(alpha, /<h2>Caches<\/h2>/);
    assert.match(
      alpha,
      /<code>\/var\/cache\/toolyard\/gomod<\/code><\/td><td data-label="Cache">gomod <span class="muted">\(go, download\)<\/span><\/td><td data-label="Access">read-write for fetch calls, read-only for the others<\/td><td data-label="Shared"><strong>shared with other agents<\/strong>/,
    );
  });
});
