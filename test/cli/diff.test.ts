/**
 * `toolyard diff` over a git repository of specs: each kind of widening and narrowing, renames, the three
 * formats and the exit codes. The base side is a commit read with git (never checked out: the working tree
 * and HEAD stay as they were); the head side is the working tree, another commit or a directory.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { diffCommand } from '../../cli/src/commands/diff.ts';
import type { FleetDiff } from '../../cli/src/fleet/fleet-diff.ts';
import { REPO_ROOT } from '../support/golden.ts';
import { captureIo } from './capture-io.ts';

// biome-ignore lint/suspicious/noExplicitAny: the tests edit parsed YAML specs freely
type Spec = Record<string, any>;
const EXAMPLES = ['polyglot-reviewer.yaml', 'cluster-operator.yaml', 'web-infra.yaml'];
const temp = mkdtempSync(join(tmpdir(), 'toolyard-diff-'));
after(() => rmSync(temp, { recursive: true, force: true }));

let repo = '';
let counter = 0;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.test', ...args], {
    cwd: repo,
    encoding: 'utf8',
  });

function example(file: string): Spec {
  return parse(readFileSync(join(REPO_ROOT, 'examples', file), 'utf8')) as Spec;
}
function write(file: string, spec: Spec | string) {
  mkdirSync(join(repo, 'fleet'), { recursive: true });
  writeFileSync(join(repo, 'fleet', file), typeof spec === 'string' ? spec : stringify(spec));
}
function edit(file: string, change: (spec: Spec) => void) {
  const spec = parse(readFileSync(join(repo, 'fleet', file), 'utf8')) as Spec;
  change(spec);
  write(file, spec);
}

async function diff(...argv: string[]) {
  const io = captureIo();
  const code = await diffCommand(argv, io, repo);
  return { code, out: io.stdoutText(), err: io.stderrText() };
}
async function json(...argv: string[]): Promise<{ code: number; diff: FleetDiff }> {
  const { code, out, err } = await diff('--format', 'json', ...argv);
  assert.notEqual(code, 1, err);
  return { code, diff: JSON.parse(out) as FleetDiff };
}

beforeEach(() => {
  repo = join(temp, `repo-${counter++}`);
  mkdirSync(repo);
  git('init', '-q', '-b', 'main');
  for (const file of EXAMPLES) write(file, example(file));
  write('README.md', 'not a spec');
  git('add', '.');
  git('commit', '-qm', 'base');
});

describe('toolyard diff', () => {
  it('nothing changed: exit 0, every agent unchanged', async () => {
    const { code, diff: d } = await json('--base', 'main');
    assert.equal(code, 0);
    assert.deepEqual(d.agents, []);
    assert.equal(d.unchanged, 3);
    assert.equal(d.widens, false);
  });

  it('a namespace added to a gateway preset widens authority: exit 3, the new grants named', async () => {
    edit('cluster-operator.yaml', (s) => {
      s['spec'].gateways[0].authority.kubernetes.namespaces.push('prod');
    });
    const { code, diff: d } = await json('--base', 'main');
    assert.equal(code, 3);
    const [agent] = d.agents;
    assert.equal(agent?.agent, 'operator');
    assert.equal(agent?.widens, true);
    assert.deepEqual(agent?.egress, { added: [], removed: [] });
    assert.equal(agent?.authority.added.length, 1);
    assert.match(
      agent!.authority.added[0]!,
      /^ServiceAccount operator-kubernetes in namespace prod: get, list, watch .*\bpods\b/,
    );
    assert.doesNotMatch(agent!.authority.added[0]!, /secrets/);
    assert.deepEqual(agent?.objects, {
      added: ['Role prod/operator-kubernetes', 'RoleBinding prod/operator-kubernetes'],
      removed: [],
      changed: [],
    });
  });

  it('a preset raised from read-only to namespace-write widens by the write verbs only', async () => {
    edit('cluster-operator.yaml', (s) => {
      s['spec'].gateways[0].authority.kubernetes.preset = 'namespace-write';
    });
    const { code, diff: d } = await json('--base', 'main');
    assert.equal(code, 3);
    const added = d.agents[0]!.authority.added;
    assert.ok(added.length > 0);
    for (const line of added) assert.match(line, /: (get, )?(create|update|patch|delete)\b/);
    assert.ok(added.some((l) => /in namespace apps: .*\bpods\b/.test(l) && l.includes('delete')));
    assert.doesNotMatch(added.join('\n'), /secrets|pods\/exec|roles/);
    assert.deepEqual(d.agents[0]!.authority.removed, []);
  });

  it('a removed gateway narrows: authority, egress and objects removed, exit 0', async () => {
    edit('cluster-operator.yaml', (s) => {
      s['spec'].gateways = s['spec'].gateways.filter((g: Spec) => g['name'] !== 'kubernetes');
    });
    const { code, diff: d } = await json('--base', 'main');
    assert.equal(code, 0);
    const agent = d.agents[0]!;
    assert.equal(agent.widens, false);
    assert.deepEqual(agent.authority.added, []);
    assert.ok(
      agent.authority.removed.some((l) => l.startsWith('ServiceAccount operator-kubernetes in namespace')),
    );
    assert.ok(
      // The broker fronts the gateway (it holds its token): the broker's pod loses its egress to it.
      agent.egress.removed.some((l) => /pod operator-broker → .*kubernetes/.test(l)),
      agent.egress.removed.join('\n'),
    );
    assert.ok(agent.objects.removed.includes('Deployment agents/operator-kubernetes'));
    assert.ok(agent.mcpServers.removed.some((l) => l.includes('kubernetes')));
  });

  it('egress: a toolchain that opens its egress widens (exit 3); closing it again narrows (exit 0)', async () => {
    // With observability the rust pod already reaches DNS and the broker (its telemetry): start without it.
    edit('polyglot-reviewer.yaml', (s) => {
      delete s['spec'].observability;
    });
    git('commit', '-qam', 'without observability');
    edit('polyglot-reviewer.yaml', (s) => {
      s['spec'].toolchains[1].network.egress = 'registries';
    });
    const widened = await json('--base', 'main');
    assert.equal(widened.code, 3);
    const agent = widened.diff.agents[0]!;
    assert.deepEqual(agent.authority, { added: [], removed: [] });
    assert.ok(agent.egress.added.length > 0);
    assert.ok(
      agent.egress.added.every((l) => l.startsWith('pod reviewer-toolchain-rust → ')),
      agent.egress.added.join('\n'),
    );
    assert.ok(
      agent.egress.added.some((l) => l.includes('53/UDP')),
      'cluster DNS',
    );
    git('commit', '-qam', 'open rust');
    edit('polyglot-reviewer.yaml', (s) => {
      s['spec'].toolchains[1].network.egress = 'none';
    });
    const narrowed = await json('--base', 'main~0');
    assert.equal(narrowed.code, 0);
    assert.deepEqual(narrowed.diff.agents[0]!.egress.added, []);
    assert.deepEqual([...narrowed.diff.agents[0]!.egress.removed].sort(), [...agent.egress.added].sort());
  });

  it('a host or an ecosystem added to a container widens its egress by name (exit 3); no pod changes', async () => {
    edit('polyglot-reviewer.yaml', (s) => {
      s['spec'].toolchains[0].network.egress.hosts = ['api.github.com'];
      s['spec'].toolchains[0].network.egress.ecosystems.push('npm');
    });
    const { code, diff: d } = await json('--base', 'main');
    assert.equal(code, 3);
    const agent = d.agents[0]!;
    assert.deepEqual(agent.egressByName.added, [
      'toolchain-go-python → host api.github.com:443',
      'toolchain-go-python → host registry.npmjs.org:443',
    ]);
    assert.deepEqual(agent.egress, { added: [], removed: [] });
  });

  it('provider keys moved from a backend into the broker are shown as moved', async () => {
    edit('web-infra.yaml', (s) => {
      const claude = s['spec'].backends[0];
      delete claude.model;
      delete claude.network;
      claude.secretEnv = [{ name: 'ANTHROPIC_API_KEY', secretName: 'claude-credentials', key: 'api-key' }];
      s['spec'].broker = { enabled: false };
    });
    git('commit', '-qam', 'broker off');
    git('checkout', '-q', 'HEAD~1', '--', 'fleet/web-infra.yaml');
    const { diff: d } = await json('--base', 'main');
    const agent = d.agents.find((a) => a.agent === 'web-infra')!;
    assert.deepEqual(agent.credentialsMoved, [
      'secret claude-credentials/api-key: now held by the broker alone',
    ]);
    assert.ok(
      agent.credentials.removed.includes('claude: secret claude-credentials/api-key as ANTHROPIC_API_KEY'),
    );
    const text = (await diff('--base', 'main')).out;
    assert.match(text, /Credentials moved to the broker:\n {4}> secret claude-credentials\/api-key/);
  });

  it('a credential mounted into a backend widens; an image tag is reported, not gated', async () => {
    edit('polyglot-reviewer.yaml', (s) => {
      s['spec'].backends[1].secretEnv = [{ name: 'EXTRA_TOKEN', secretName: 'extra', key: 'token' }];
    });
    const credential = await json('--base', 'main');
    assert.equal(credential.code, 3);
    assert.deepEqual(credential.diff.agents[0]!.credentials.added, [
      'openai: secret extra/token as EXTRA_TOKEN',
    ]);
    git('checkout', '-q', '--', '.');
    edit('web-infra.yaml', (s) => {
      s['spec'].backends[0].image.tag = '9.9.9';
    });
    const image = await json('--base', 'main');
    assert.equal(image.code, 0);
    const agent = image.diff.agents[0]!;
    assert.equal(agent.images.added.length, 1);
    assert.match(agent.images.added[0]!, /:9\.9\.9$/);
    assert.equal(agent.images.removed.length, 1);
    assert.ok(agent.objects.changed.length > 0);
  });

  it('a renamed agent pairs with its old self: nothing widens, the objects are renamed', async () => {
    edit('web-infra.yaml', (s) => {
      s['metadata'].name = 'web-platform';
    });
    const { code, diff: d } = await json('--base', 'main');
    assert.equal(code, 0);
    const agent = d.agents[0]!;
    assert.equal(agent.status, 'renamed');
    assert.equal(agent.from, 'web-infra');
    assert.equal(agent.agent, 'web-platform');
    assert.deepEqual(
      [agent.authority, agent.egress, agent.credentials],
      [
        { added: [], removed: [] },
        { added: [], removed: [] },
        { added: [], removed: [] },
      ],
    );
    assert.ok(agent.objects.added.some((id) => id.includes('/web-platform')));
    assert.ok(agent.objects.removed.some((id) => id.includes('/web-infra')));
  });

  it('a renamed agent moved to another file is recognised by its content', async () => {
    const spec = parse(readFileSync(join(repo, 'fleet', 'web-infra.yaml'), 'utf8')) as Spec;
    rmSync(join(repo, 'fleet', 'web-infra.yaml'));
    spec['metadata'].name = 'web-two';
    write('moved.yaml', spec);
    const { code, diff: d } = await json('--base', 'main');
    assert.equal(code, 0);
    assert.equal(d.agents[0]!.status, 'renamed');
  });

  it('a new agent widens by all it has; a removed agent narrows', async () => {
    const spec = example('cluster-operator.yaml');
    spec['metadata'].name = 'operator-two';
    spec['spec'].gateways[0].image.tag = '0.5.0'; // not a copy: a new agent, not a rename
    write('operator-two.yaml', spec);
    const added = await json('--base', 'main');
    assert.equal(added.code, 3);
    assert.equal(added.diff.agents[0]!.status, 'added');
    assert.ok(added.diff.agents[0]!.authority.added.length > 0);
    rmSync(join(repo, 'fleet', 'operator-two.yaml'));
    rmSync(join(repo, 'fleet', 'cluster-operator.yaml'));
    const removed = await json('--base', 'main');
    assert.equal(removed.code, 0);
    assert.equal(removed.diff.agents[0]!.status, 'removed');
    assert.deepEqual(removed.diff.agents[0]!.authority.added, []);
    assert.ok(removed.diff.agents[0]!.authority.removed.length > 0);
  });

  it('reads the base with git, never checking it out; --head takes a ref or a directory; paths select', async () => {
    edit('cluster-operator.yaml', (s) => {
      s['spec'].gateways[0].authority.kubernetes.namespaces.push('prod');
    });
    git('commit', '-qam', 'widen');
    edit('web-infra.yaml', (s) => {
      s['spec'].backends[0].image.tag = '9.9.9';
    });
    const status = git('status', '--porcelain');
    const head = git('rev-parse', 'HEAD');
    const refs = await json('--base', 'main~1', '--head', 'main');
    assert.equal(refs.code, 3);
    assert.deepEqual(
      refs.diff.agents.map((a) => a.agent),
      ['operator'],
    );
    assert.equal(git('status', '--porcelain'), status);
    assert.equal(git('rev-parse', 'HEAD'), head);
    const working = await json('--base', 'main~1', 'fleet/web-infra.yaml');
    assert.equal(working.code, 0);
    assert.deepEqual(
      working.diff.agents.map((a) => a.agent),
      ['web-infra'],
    );
    const checkout = join(temp, `checkout-${counter}`);
    mkdirSync(join(checkout, 'fleet'), { recursive: true });
    for (const file of EXAMPLES) writeFileSync(join(checkout, 'fleet', file), stringify(example(file)));
    const dirs = await json('--base', checkout, '--head', 'main', 'fleet');
    assert.equal(dirs.code, 3);
    assert.deepEqual(
      dirs.diff.agents.map((a) => a.agent),
      ['operator'],
    );
  });

  it('text and markdown say the verdict and the changes; markdown code-spans spec text', async () => {
    edit('cluster-operator.yaml', (s) => {
      s['spec'].gateways[0].authority.kubernetes.namespaces.push('prod');
    });
    const text = await diff('--base', 'main');
    assert.equal(text.code, 3);
    assert.match(text.out, /^toolyard diff main → working tree: 1 agent changed, 2 unchanged; WIDENS/);
    assert.match(
      text.out,
      /\n {4}\+ ServiceAccount operator-kubernetes in namespace prod: get, list, watch /,
    );
    assert.match(text.out, /\n {4}\+ Role prod\/operator-kubernetes/);
    const markdown = await diff('--base', 'main', '--format', 'markdown');
    assert.equal(markdown.code, 3);
    assert.match(markdown.out, /^### ⚠️ toolyard diff: main → working tree/);
    assert.match(
      markdown.out,
      /\| `agents\/operator` \| changed \*\*widens\*\* \| \+1 −0 \| — \| — \| \+2 −0 ~0 \|/,
    );
    assert.match(markdown.out, /```diff\n\+ ServiceAccount operator-kubernetes in namespace prod/);
    git('checkout', '-q', '--', '.');
    const clean = await diff('--base', 'main', '--format', 'markdown');
    assert.equal(clean.code, 0);
    assert.match(clean.out, /^### ✅ .*nothing widens$/);
  });

  it('errors exit 1 and say what is wrong: an unknown ref, an invalid spec on either side', async () => {
    const unknown = await diff('--base', 'no-such-ref');
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /"no-such-ref" is neither a directory nor a git revision/);
    edit('web-infra.yaml', (s) => {
      s['spec'].backends[0].port = 70000;
    });
    const invalid = await diff('--base', 'main');
    assert.equal(invalid.code, 1);
    assert.match(invalid.err, /fleet\/web-infra\.yaml:\d+.*\/spec\/backends\/0\/port/);
    assert.match(invalid.err, /^1 error in working tree; no diff\.$/m);
    assert.equal(invalid.out, '');
  });

  it('a new file reusing the name of an agent in an unchanged file is an error, not an added agent', async () => {
    const copy = example('web-infra.yaml');
    copy['spec'].backends[0].image.tag = '2.0.0';
    write('copy.yaml', copy);
    const { code, err } = await diff('--base', 'main');
    assert.equal(code, 1);
    assert.match(
      err,
      /copy\.yaml:\d+: \/metadata\/name: agent "web-infra" is also defined in an unchanged file/,
    );
  });

  it('on worker threads (--jobs 2) the diff is the same as in one thread', async () => {
    edit('cluster-operator.yaml', (s) => {
      s['spec'].gateways[0].authority.kubernetes.namespaces.push('prod');
    });
    edit('polyglot-reviewer.yaml', (s) => {
      s['spec'].toolchains[1].network.egress = 'registries';
    });
    const one = await diff('--base', 'main', '--format', 'json', '--jobs', '1');
    const two = await diff('--base', 'main', '--format', 'json', '--jobs', '2');
    assert.equal(two.code, 3);
    assert.equal(two.out, one.out);
    assert.equal(JSON.parse(two.out).agents.length, 2);
  });

  it('problems read the same in one thread and on workers: an invalid spec, a name in two changed files', async () => {
    edit('web-infra.yaml', (s) => {
      s['spec'].backends[0].port = 70000;
    });
    // Two new files with one agent name: with --jobs 2 they land in different slices (this thread, a worker).
    for (const file of ['a-copy.yaml', 'z-copy.yaml']) {
      const copy = example('polyglot-reviewer.yaml');
      copy['metadata'].name = 'twin';
      write(file, copy);
    }
    const one = await diff('--base', 'main', '--jobs', '1');
    const two = await diff('--base', 'main', '--jobs', '2');
    assert.equal(one.code, 1);
    assert.equal(two.code, 1);
    assert.equal(two.err, one.err);
    assert.match(one.err, /fleet\/web-infra\.yaml:\d+.*\/spec\/backends\/0\/port/);
    assert.match(
      one.err,
      /fleet\/z-copy\.yaml:\d+: \/metadata\/name: agent "twin" is also defined in fleet\/a-copy\.yaml/,
    );
    assert.match(one.err, /^2 errors in working tree; no diff\.$/m);
  });

  it('through the real binary: exit 3 on widening, 2 without --base', () => {
    edit('cluster-operator.yaml', (s) => {
      s['spec'].gateways[0].authority.kubernetes.namespaces.push('prod');
    });
    const node = join(REPO_ROOT, 'node_modules', '.bin', 'node');
    const bin = join(REPO_ROOT, 'cli', 'bin', 'toolyard.js');
    const widen = spawnSync(node, [bin, 'diff', '--base', 'main'], { cwd: repo, encoding: 'utf8' });
    assert.equal(widen.status, 3, widen.stderr);
    assert.match(widen.stdout, /WIDENS/);
    const usage = spawnSync(node, [bin, 'diff'], { cwd: repo, encoding: 'utf8' });
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /diff needs --base/);
  });
});
