/**
 * The CI recipes of docs/fleet.md, held to what they claim: each is valid YAML, pins the package's own version,
 * and its toolyard commands, run as written (the `npx --yes toolyard@<version>` prefix mapped to this
 * checkout's bin, CI's variables set as the CI system sets them), work against a git repository of specs with
 * a base branch: the validate line passes the specs and fails a misspelt kind or an unacknowledged warning; exit 0
 * and a ✅ comment for a change that widens nothing, exit 3 and a ⚠️ comment for one that widens; the site line
 * builds the site into the directory the recipe publishes.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { REPO_ROOT } from '../support/golden.ts';

const doc = readFileSync(join(REPO_ROOT, 'docs/fleet.md'), 'utf8');
const blocks = [...doc.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;
const NODE = join(REPO_ROOT, 'node_modules', '.bin', 'node');
const BIN = join(REPO_ROOT, 'cli', 'bin', 'toolyard.js');
const temp = mkdtempSync(join(tmpdir(), 'toolyard-recipes-'));
after(() => rmSync(temp, { recursive: true, force: true }));

type Json = Record<string, unknown>;
const github = parse(blocks.find((b) => b.includes('.github/workflows/'))!) as Json;
const gitlab = parse(blocks.find((b) => b.includes('.gitlab-ci.yml'))!) as Json;

/** Every shell line of both recipes that runs toolyard. */
function toolyardLines(): { ci: string; line: string }[] {
  const out: { ci: string; line: string }[] = [];
  for (const job of Object.values(github['jobs'] as Record<string, Json>)) {
    for (const step of job['steps'] as Json[]) {
      for (const line of String(step['run'] ?? '').split('\n'))
        if (line.includes('toolyard@')) out.push({ ci: 'github', line: line.trim() });
    }
  }
  for (const job of Object.values(gitlab).filter((j): j is Json => typeof j === 'object' && j !== null)) {
    for (const line of (job['script'] as string[] | undefined) ?? [])
      if (line.includes('toolyard@')) out.push({ ci: 'gitlab', line: line.trim() });
  }
  return out;
}

function repoWithBase(): string {
  const repo = join(temp, `repo-${Math.random().toString(36).slice(2)}`);
  mkdirSync(join(repo, 'agents'), { recursive: true });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.test', ...args], { cwd: repo });
  git('init', '-q', '-b', 'main');
  for (const file of ['cluster-operator.yaml', 'web-infra.yaml'])
    writeFileSync(join(repo, 'agents', file), readFileSync(join(REPO_ROOT, 'examples', file)));
  git('add', '.');
  git('commit', '-qm', 'base');
  git('update-ref', 'refs/remotes/origin/main', 'HEAD'); // what `git fetch origin main` leaves
  return repo;
}

/** Runs one recipe line in bash, `npx --yes toolyard@V` being this checkout's bin. */
function runLine(line: string, repo: string) {
  const script = `npx() { shift 2; "${NODE}" "${BIN}" "$@"; }\n${line}\necho "code=\${code:-0}"`;
  return spawnSync('bash', ['-c', script], {
    cwd: repo,
    encoding: 'utf8',
    env: {
      PATH: process.env['PATH'] ?? '',
      GITHUB_BASE_REF: 'main',
      CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
    },
  });
}

describe('the CI recipes of docs/fleet.md', () => {
  it('are YAML, and pin the package version', () => {
    assert.equal(blocks.length >= 2, true);
    const lines = toolyardLines();
    assert.ok(lines.some((l) => l.ci === 'github' && l.line.includes(' diff ')));
    assert.ok(lines.some((l) => l.ci === 'gitlab' && l.line.includes(' diff ')));
    assert.ok(lines.some((l) => l.ci === 'github' && l.line.includes(' site ')));
    assert.ok(lines.some((l) => l.ci === 'gitlab' && l.line.includes(' site ')));
    for (const { line } of lines)
      assert.match(line, new RegExp(`npx --yes toolyard@${version.replace(/\./g, '\\.')} `));
  });

  for (const { ci, line } of toolyardLines().filter((l) => l.line.includes(' diff '))) {
    it(`${ci}: the diff line posts ✅ and exits 0 without widening, ⚠️ and 3 with it`, () => {
      const repo = repoWithBase();
      const clean = runLine(line, repo);
      assert.equal(clean.status, 0, clean.stderr);
      assert.match(clean.stdout, /code=0/);
      assert.match(
        readFileSync(join(repo, 'toolyard-diff.md'), 'utf8'),
        /^### ✅ toolyard diff: origin\/main → working tree/,
      );
      const spec = join(repo, 'agents', 'cluster-operator.yaml');
      writeFileSync(
        spec,
        readFileSync(spec, 'utf8').replace('namespaces: [apps]', 'namespaces: [apps, prod]'),
      );
      const widened = runLine(line, repo);
      assert.equal(widened.status, 0, widened.stderr);
      assert.match(widened.stdout, /code=3/);
      assert.match(
        readFileSync(join(repo, 'toolyard-diff.md'), 'utf8'),
        /^### ⚠️ .*WIDENS[\s\S]*in namespace prod/,
      );
    });
  }

  it('both recipes gate on validate --strict', () => {
    const lines = toolyardLines().filter((l) => l.line.includes(' validate '));
    assert.deepEqual(lines.map((l) => l.ci).sort(), ['github', 'gitlab']);
    for (const { line } of lines) assert.match(line, / validate --strict agents\/$/);
  });

  for (const { ci, line } of toolyardLines().filter((l) => l.line.includes(' validate '))) {
    it(`${ci}: the validate line passes the specs, fails a misspelt kind and an unacknowledged warning`, () => {
      const repo = repoWithBase();
      const clean = runLine(`${line} && code=0 || code=$?`, repo);
      assert.match(clean.stdout, /code=0/, clean.stderr);
      const spec = join(repo, 'agents', 'web-infra.yaml');
      const text = readFileSync(spec, 'utf8');
      writeFileSync(spec, text.replace('kind: Agent', 'kind: Agnet'));
      const misspelt = runLine(`${line} && code=0 || code=$?`, repo);
      assert.match(misspelt.stdout, /code=1/);
      assert.match(
        misspelt.stderr,
        /web-infra\.yaml:\d+: \/kind: must be "Agent"\n {2}hint: got "Agnet"; did you mean "Agent"\?/,
      );
      writeFileSync(spec, text);
      // The broker turned off without an acknowledgement: a spec that renders with a warning.
      const operator = join(repo, 'agents', 'cluster-operator.yaml');
      writeFileSync(operator, `${readFileSync(operator, 'utf8')}  broker:\n    enabled: false\n`);
      const warned = runLine(`${line} && code=0 || code=$?`, repo);
      assert.match(warned.stdout, /code=1/);
      assert.match(warned.stderr, /^warning: agents\/cluster-operator\.yaml:\d+: /m);
    });
  }

  for (const { ci, line } of toolyardLines().filter((l) => l.line.includes(' site '))) {
    it(`${ci}: the site line builds the fleet site into the directory the host publishes`, () => {
      const repo = repoWithBase();
      const run = runLine(line, repo);
      assert.equal(run.status, 0, run.stderr);
      const target = /-o (\S+)/.exec(line)![1]!;
      assert.match(readFileSync(join(repo, target, 'index.html'), 'utf8'), /Fleet catalog/);
      assert.ok(
        readFileSync(join(repo, target, 'charts', 'index.yaml'), 'utf8').includes('operator-0.1.0.tgz'),
      );
    });
  }
});
