/**
 * A spec with a misspelt `kind` or `apiVersion` in a directory of specs is refused, with a did-you-mean, by
 * every command that reads directories (validate, synth, diff, site) — never left out silently, never called
 * "removed" — while other YAML in the directory (a kustomization, chart values) stays ignored. The rule for
 * "looks like a toolyard spec" is docs/fleet.md's "Which files are specs".
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { diffCommand } from '../../cli/src/commands/diff.ts';
import { main } from '../../cli/src/main.ts';
import { looksLikeSpec, nearMissDocument } from '../../cli/src/spec-files.ts';
import { REPO_ROOT } from '../support/golden.ts';
import { captureIo } from './capture-io.ts';

const temp = mkdtempSync(join(tmpdir(), 'toolyard-wrong-kind-'));
after(() => rmSync(temp, { recursive: true, force: true }));
const webInfra = readFileSync(join(REPO_ROOT, 'examples', 'web-infra.yaml'), 'utf8');
const reviewer = readFileSync(join(REPO_ROOT, 'examples', 'polyglot-reviewer.yaml'), 'utf8');
const KUSTOMIZATION =
  'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [web.yaml]\n';

const MISSPELLINGS = [
  {
    name: 'kind Agnet',
    from: 'kind: Agent',
    to: 'kind: Agnet',
    hint: 'got "Agnet"; did you mean "Agent"?',
  },
  {
    name: 'kind agent',
    from: 'kind: Agent',
    to: 'kind: agent',
    hint: 'got "agent"; did you mean "Agent"?',
  },
  {
    name: "kind AgentSpec (toolyard's apiVersion, another kind)",
    from: 'kind: Agent',
    to: 'kind: AgentSpec',
    hint: 'got "AgentSpec"; toolyard.dev/v1alpha1 has one kind, "Agent"',
  },
  {
    name: 'apiVersion v1alpa1',
    from: 'toolyard.dev/v1alpha1',
    to: 'toolyard.dev/v1alpa1',
    hint: 'got "toolyard.dev/v1alpa1"; did you mean "toolyard.dev/v1alpha1"?',
  },
  {
    name: 'apiVersion v1alpha2',
    from: 'toolyard.dev/v1alpha1',
    to: 'toolyard.dev/v1alpha2',
    hint: 'got "toolyard.dev/v1alpha2"; did you mean "toolyard.dev/v1alpha1"?',
  },
] as const;

let counter = 0;
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.test', ...args], {
    cwd,
    encoding: 'utf8',
  });

/** A git repository with fleet/web.yaml, fleet/kustomization.yaml committed; then `extra` written (uncommitted). */
function repository(extra: Record<string, string> = {}): string {
  const repo = join(temp, `repo-${++counter}`);
  mkdirSync(join(repo, 'fleet'), { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'fleet', 'web.yaml'), webInfra);
  writeFileSync(join(repo, 'fleet', 'kustomization.yaml'), KUSTOMIZATION);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'base');
  for (const [file, text] of Object.entries(extra)) writeFileSync(join(repo, 'fleet', file), text);
  return repo;
}

async function cli(cwd: string, ...argv: string[]) {
  const io = captureIo();
  const previous = process.cwd();
  process.chdir(cwd);
  try {
    const code = argv[0] === 'diff' ? await diffCommand(argv.slice(1), io, cwd) : await main(argv, io);
    return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
  } finally {
    process.chdir(previous);
  }
}

describe('a misspelt kind or apiVersion in a directory', () => {
  for (const m of MISSPELLINGS) {
    const misspelt = reviewer.replace(m.from, m.to);
    const line = misspelt.split('\n').findIndex((l) => l.includes(m.to)) + 1;
    const error = new RegExp(
      `reviewer\\.yaml:${line}: /${m.to.startsWith('kind') ? 'kind' : 'apiVersion'}: must be .*\\n {2}hint: ${m.hint.replace(/[.?/]/g, '\\$&')}`,
    );

    it(`${m.name}: validate, synth, diff and site refuse it`, async () => {
      const repo = repository({ 'reviewer.yaml': misspelt });
      const validate = await cli(repo, 'validate', 'fleet');
      assert.equal(validate.code, 1);
      assert.match(validate.stderr, error);
      assert.match(validate.stderr, /^1 error; nothing is valid until all are fixed\.$/m);

      const synth = await cli(repo, 'synth', 'fleet', '-o', 'dist');
      assert.equal(synth.code, 1);
      assert.match(synth.stderr, error);
      assert.equal(existsSync(join(repo, 'dist')), false, 'synth wrote files');

      const diff = await cli(repo, 'diff', '--base', 'HEAD', 'fleet');
      assert.equal(diff.code, 1, diff.stdout);
      assert.match(diff.stderr, error);
      assert.match(diff.stderr, /^1 error in working tree; no diff\.$/m);
      assert.doesNotMatch(diff.stdout, /removed/);

      const site = await cli(repo, 'site', 'fleet', '-o', 'site');
      assert.equal(site.code, 1);
      assert.match(site.stderr, error);
      assert.equal(existsSync(join(repo, 'site')), false, 'site wrote files');
    });
  }

  it('a committed misspelt spec is refused by diff even where the change does not touch it', async () => {
    const repo = repository({ 'reviewer.yaml': reviewer.replace('kind: Agent', 'kind: Agnet') });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'misspelt');
    const diff = await cli(repo, 'diff', '--base', 'HEAD', '--head', 'HEAD', 'fleet');
    assert.equal(diff.code, 1);
    assert.match(
      diff.stderr,
      /^HEAD: fleet\/reviewer\.yaml:\d+: \/kind: must be "Agent"\n {2}hint: got "Agnet"; did you mean "Agent"\?$/m,
    );
  });

  it('an agent whose file changed to kind AgentSpec is refused, never reported removed (issue 31)', async () => {
    const repo = repository({ 'reviewer.yaml': reviewer });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'reviewer');
    writeFileSync(join(repo, 'fleet', 'reviewer.yaml'), reviewer.replace('kind: Agent', 'kind: AgentSpec'));
    for (const argv of [
      ['validate', '--strict', 'fleet'],
      ['synth', 'fleet', '-o', 'dist'],
    ]) {
      const result = await cli(repo, ...argv);
      assert.equal(result.code, 1, argv.join(' '));
      assert.match(result.stderr, /reviewer\.yaml:\d+: \/kind: must be "Agent"/);
    }
    const diff = await cli(repo, 'diff', '--base', 'HEAD', 'fleet');
    assert.equal(diff.code, 1, diff.stdout);
    assert.doesNotMatch(diff.stdout, /removed/);
  });

  it('an agent whose file still exists but holds no spec any more is an error in diff; deleting it is a removal', async () => {
    const repo = repository({ 'reviewer.yaml': reviewer });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'reviewer');
    writeFileSync(
      join(repo, 'fleet', 'reviewer.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\n',
    );
    const diff = await cli(repo, 'diff', '--base', 'HEAD', 'fleet');
    assert.equal(diff.code, 1, diff.stdout);
    assert.match(
      diff.stderr,
      /^working tree: fleet\/reviewer\.yaml: held agent "reviewer" in the base, and no longer declares a toolyard Agent/m,
    );
    assert.doesNotMatch(diff.stdout, /removed/);
    // The control: the file deleted, the agent is removed (and a removal narrows: exit 0).
    rmSync(join(repo, 'fleet', 'reviewer.yaml'));
    const removed = await cli(repo, 'diff', '--base', 'HEAD', 'fleet');
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, /reviewer.*removed|removed.*reviewer/i);
  });

  it('without it, the same directory is fine: the kustomization is not a spec', async () => {
    const repo = repository({ 'reviewer.yaml': reviewer });
    const validate = await cli(repo, 'validate', '--strict', 'fleet');
    assert.equal(validate.code, 0, validate.stderr);
    assert.doesNotMatch(validate.stdout + validate.stderr, /kustomization/);
    const diff = await cli(repo, 'diff', '--base', 'HEAD', 'fleet');
    assert.notEqual(diff.code, 1, diff.stderr);
    assert.match(diff.stdout, /reviewer/);
  });
});

describe('which files look like toolyard specs', () => {
  const doc = (apiVersion: unknown, kind: unknown, spec: unknown = { backends: [] }) => ({
    apiVersion,
    kind,
    spec,
  });

  it('near misses: the toolyard.dev group or a typo of it; an Agent-like kind with backends or toolchains', () => {
    for (const value of [
      doc('toolyard.dev/v1alpa1', 'Agent'),
      doc('toolyard.dev/v1alpha2', 'Agent'),
      doc('toolyard.dev/v1', 'Anything'),
      doc('toolyard.io/v1alpha1', 'Agent'),
      doc('toolyrad.dev/v1alpha1', 'Agent'),
      doc('toolyard.dev/v1alpha1', 'Agnet'),
      doc('toolyard.dev/v1alpha1', 'agent'),
      doc('toolyard.dev/v1alpha1', 'AgentSpec', undefined),
      doc('example.com/v1', 'Agents', { toolchains: [] }),
    ])
      assert.equal(nearMissDocument(value), true, JSON.stringify(value));
  });

  it('not near misses: a valid spec, other kinds, an Agent-like kind without backends or toolchains', () => {
    for (const value of [
      doc('toolyard.dev/v1alpha1', 'Agent'),
      doc('kustomize.config.k8s.io/v1beta1', 'Kustomization', undefined),
      doc('v1', 'ConfigMap', undefined),
      doc('v2', undefined, undefined),
      doc('agents.example.com/v1', 'Agent', { model: 'x' }),
      doc('example.com/v1', 'Agency', { backends: [] }),
      'a string',
      null,
    ])
      assert.equal(nearMissDocument(value), false, JSON.stringify(value));
  });

  it('whole files: kind: Agent, or any near-miss document; chart values and manifests are not', () => {
    assert.equal(looksLikeSpec(webInfra), true);
    assert.equal(looksLikeSpec(webInfra.replace('kind: Agent', 'kind: Agnet')), true);
    assert.equal(
      looksLikeSpec(`${KUSTOMIZATION}---\n${webInfra.replace('kind: Agent', 'kind: AGENT')}`),
      true,
    );
    assert.equal(looksLikeSpec(KUSTOMIZATION), false);
    assert.equal(looksLikeSpec('apiVersion: v2\nname: chart\nversion: 0.1.0\n'), false);
    assert.equal(looksLikeSpec('apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: 1\n'), false);
    assert.equal(looksLikeSpec('image:\n  kind: Agnet\n'), false, 'only top-level lines count');
    assert.equal(looksLikeSpec(webInfra.replace('kind: Agent', 'kind: AgentSpec')), true);
  });
});
