/** `toolyard` end to end, in process: `main(argv, io)` with a capturing io, real files in a temp dir. */
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { main } from '../../cli/src/main.ts';
import { GOLDEN_DIR, REPO_ROOT } from '../support/golden.ts';
import { captureIo } from './capture-io.ts';

const example = (name: string) => join(REPO_ROOT, 'examples', `${name}.yaml`);
const invalid = (name: string) => join(REPO_ROOT, 'test', 'invalid-specs', `${name}.yaml`);
const ALL_EXAMPLES = ['cluster-operator', 'polyglot-reviewer', 'web-infra'].map(example);
const temp = mkdtempSync(join(tmpdir(), 'toolyard-cli-'));
after(() => rmSync(temp, { recursive: true, force: true }));
let counter = 0;
const freshDir = () => join(temp, `out-${++counter}`);

async function run(...argv: string[]) {
  const io = captureIo();
  const code = await main(argv, io);
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}

describe('toolyard (usage)', () => {
  it('--help prints every command and exits 0', async () => {
    const { code, stdout, stderr } = await run('--help');
    assert.equal(code, 0);
    for (const command of ['validate', 'synth', 'explain'])
      assert.match(stdout, new RegExp(`^  ${command} `, 'm'));
    assert.equal(stderr, '');
  });

  it('no command prints usage and exits 2; an unknown command exits 2 on stderr', async () => {
    assert.equal((await run()).code, 2);
    const unknown = await run('deploy');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command "deploy"\n/);
  });

  it('suggests the command or option a typo meant', async () => {
    const command = await run('vaildate', 'a.yaml');
    assert.equal(command.code, 2);
    assert.match(command.stderr, /^toolyard: unknown command "vaildate"; did you mean "validate"\?$/m);
    const option = await run('synth', example('web-infra'), '--ouput', 'x');
    assert.equal(option.code, 2);
    assert.match(option.stderr, /^toolyard synth: unknown option "--ouput"; did you mean "--output"\?$/m);
    const unrelated = await run('chart', example('web-infra'), '--frobnicate');
    assert.match(unrelated.stderr, /^toolyard chart: unknown option "--frobnicate"$/m);
  });

  it('<command> --help prints that command’s usage and exits 0', async () => {
    for (const [command, usage] of [
      ['validate', /Usage: toolyard validate <spec\|directory…>/],
      ['synth', /Usage: toolyard synth <spec\|directory…> \[-o DIR\] \[--stdout\]/],
      ['explain', /Usage: toolyard explain <spec> \[--command "cargo test"\]/],
    ] as const) {
      const { code, stdout } = await run(command, '--help');
      assert.equal(code, 0, command);
      assert.match(stdout, usage);
    }
  });

  it('bad arguments exit 2 with the usage', async () => {
    for (const argv of [
      ['validate'],
      ['synth'],
      ['explain'],
      ['explain', 'a.yaml', 'b.yaml'],
      ['synth', '--bogus', 'a.yaml'],
    ]) {
      const { code, stderr } = await run(...argv);
      assert.equal(code, 2, argv.join(' '));
      assert.match(stderr, /Usage: toolyard /, argv.join(' '));
    }
  });
});

describe('toolyard validate', () => {
  it('exits 0 for valid specs and names each agent', async () => {
    const { code, stdout, stderr } = await run('validate', ...ALL_EXAMPLES);
    assert.equal(code, 0);
    assert.equal(stderr, '');
    for (const agent of ['operator', 'reviewer', 'web-infra'])
      assert.match(stdout, new RegExp(`agent "${agent}" is valid`));
  });

  it('exits 1 listing every error of every file as file:line: path: message (with hints)', async () => {
    const files = [
      invalid('reserved-env'),
      example('web-infra'),
      invalid('port-out-of-range'),
      join(temp, 'missing.yaml'),
    ];
    const { code, stdout, stderr } = await run('validate', ...files);
    assert.equal(code, 1);
    assert.equal(stdout, '');
    const lines = stderr.split('\n');
    assert.ok(
      lines.includes(
        `${files[0]}:15: /spec/backends/0/env/HOME: environment variable "HOME" is set by toolyard`,
      ),
      stderr,
    );
    assert.ok(
      lines.includes(
        `${files[0]}:17: /spec/backends/0/secretEnv/0/name: environment variable "TOOLYARD_MCP_CONFIG" is set by toolyard`,
      ),
    );
    assert.ok(lines.includes(`${files[2]}:15: /spec/toolchains/0/port: must be <= 65535`));
    assert.ok(lines.includes(`${files[3]}: not found`), stderr);
    assert.ok(lines.some((l) => l.startsWith('  hint: HOME, TMPDIR and TOOLYARD_*')));
    assert.match(stderr, /^4 errors; nothing is valid until all are fixed\.$/m);
    assert.doesNotMatch(stderr, /web-infra\.yaml:/);
  });

  it('rejects the same agent in two files', async () => {
    const dir = join(REPO_ROOT, 'test', 'invalid-specs', 'duplicate-agents');
    const { code, stderr } = await run('validate', join(dir, 'first.yaml'), join(dir, 'second.yaml'));
    assert.equal(code, 1);
    assert.match(
      stderr,
      /second\.yaml:6: \/metadata\/name: agent "reviewer" is also defined in .*first\.yaml/,
    );
  });
});

describe('toolyard synth', () => {
  it('writes <name>.k8s.yaml per agent, identical to the golden files, warnings on stderr', async () => {
    const out = freshDir();
    const { code, stdout, stderr } = await run('synth', ...ALL_EXAMPLES, '-o', out);
    assert.equal(code, 0);
    assert.equal(stdout, '');
    assert.deepEqual(readdirSync(out).sort(), [
      'operator.k8s.yaml',
      'reviewer.k8s.yaml',
      'web-infra.k8s.yaml',
    ]);
    for (const file of readdirSync(out))
      assert.equal(readFileSync(join(out, file), 'utf8'), readFileSync(join(GOLDEN_DIR, file), 'utf8'), file);
    // The examples acknowledge the warnings they would raise (spec.acknowledgedWarnings).
    assert.doesNotMatch(stderr, /warning/);
    assert.match(stderr, /^wrote .*reviewer\.k8s\.yaml$/m);
  });

  it('prints a warning the spec does not acknowledge, with file and line', async () => {
    const dir = freshDir();
    mkdirSync(dir);
    const file = join(dir, 'unacknowledged.yaml');
    const text = readFileSync(example('cluster-operator'), 'utf8');
    writeFileSync(file, text.slice(0, text.indexOf('  acknowledgedWarnings:')));
    const { code, stderr } = await run('synth', file, '--stdout');
    assert.equal(code, 0);
    assert.match(
      stderr,
      /^warning: .*unacknowledged\.yaml:\d+: \/spec\/toolchains\/0\/network\/egress: toolchain "helm" asks for egress "none".*placement: pod gives it a pod and NetworkPolicy of its own/m,
    );
  });

  it('takes directories: every *.yaml/*.yml with kind: Agent below them, nothing else', async () => {
    const specs = freshDir();
    mkdirSync(join(specs, 'team-a', 'nested'), { recursive: true });
    mkdirSync(join(specs, 'node_modules', 'pkg'), { recursive: true });
    mkdirSync(join(specs, '.hidden'), { recursive: true });
    writeFileSync(join(specs, 'team-a', 'reviewer.yaml'), readFileSync(example('polyglot-reviewer')));
    writeFileSync(join(specs, 'team-a', 'nested', 'web.yml'), readFileSync(example('web-infra')));
    writeFileSync(join(specs, 'values.yaml'), 'replicas: 2\nkind: Deployment\n');
    writeFileSync(join(specs, 'notes.txt'), 'kind: Agent\n');
    const broken = 'apiVersion: toolyard.dev/v1alpha1\nkind: Agent\nmetadata: { name: x }\n';
    writeFileSync(join(specs, 'node_modules', 'pkg', 'agent.yaml'), broken);
    writeFileSync(join(specs, '.hidden', 'agent.yaml'), broken);
    const out = freshDir();
    const { code, stderr } = await run('synth', specs, '-o', out);
    assert.equal(code, 0, stderr);
    assert.deepEqual(readdirSync(out).sort(), ['reviewer.k8s.yaml', 'web-infra.k8s.yaml']);
    for (const file of readdirSync(out))
      assert.equal(readFileSync(join(out, file), 'utf8'), readFileSync(join(GOLDEN_DIR, file), 'utf8'));
    const validate = await run('validate', specs);
    assert.equal(validate.code, 0);
    assert.match(validate.stdout, /team-a\/nested\/web\.yml: agent "web-infra" is valid/);
    const chart = await run('chart', join(specs, 'team-a'), '-o', freshDir());
    assert.equal(chart.code, 0, chart.stderr);
    // Depth-first in name order: team-a/nested/web.yml before team-a/reviewer.yaml.
    assert.match(chart.stderr, /wrote .*\/web-infra\/\nwrote .*\/reviewer\//);
  });

  it('a directory without any Agent spec is an error', async () => {
    const empty = freshDir();
    mkdirSync(empty);
    writeFileSync(join(empty, 'values.yaml'), 'kind: Deployment\n');
    const { code, stderr } = await run('synth', empty, '-o', freshDir());
    assert.equal(code, 1);
    assert.match(
      stderr,
      /-\d+: a directory with no Agent spec in it\n {2}hint: specs are \*\.yaml or \*\.yml files/,
    );
  });

  it('is deterministic: a second run writes the same bytes', async () => {
    const first = freshDir();
    const second = freshDir();
    await run('synth', ...ALL_EXAMPLES, '--output', first);
    await run('synth', ...[...ALL_EXAMPLES].reverse(), '--output', second);
    for (const file of readdirSync(first))
      assert.equal(readFileSync(join(second, file), 'utf8'), readFileSync(join(first, file), 'utf8'), file);
  });

  it('--stdout prints the documents and writes nothing', async () => {
    const out = freshDir();
    const { code, stdout } = await run('synth', example('polyglot-reviewer'), '--stdout', '-o', out);
    assert.equal(code, 0);
    assert.equal(existsSync(out), false);
    assert.equal(`${stdout}`, readFileSync(join(GOLDEN_DIR, 'reviewer.k8s.yaml'), 'utf8'));
    const documents = parseAllDocuments(stdout);
    assert.ok(Array.isArray(documents) && documents.length > 5);
    assert.ok(documents.every((d) => d.errors.length === 0));
  });

  it('writes nothing when one input among good ones is invalid (directory absent, or left as it was)', async () => {
    const absent = freshDir();
    const bad = await run(
      'synth',
      example('polyglot-reviewer'),
      invalid('port-collision'),
      example('web-infra'),
      '-o',
      absent,
    );
    assert.equal(bad.code, 1);
    assert.equal(existsSync(absent), false, 'output directory must not be created');
    assert.match(
      bad.stderr,
      /port-collision\.yaml:16: \/spec\/toolchains\/0\/port: port 8080 of toolchain "rust" collides/,
    );
    assert.match(bad.stderr, /nothing was written/);

    const existing = freshDir();
    mkdirSync(existing);
    writeFileSync(join(existing, 'keep.txt'), 'untouched');
    const alsoBad = await run('synth', example('web-infra'), invalid('bad-yaml'), '-o', existing);
    assert.equal(alsoBad.code, 1);
    assert.deepEqual(readdirSync(existing), ['keep.txt']);

    const missing = await run('synth', example('web-infra'), join(temp, 'nope.yaml'), '-o', absent);
    assert.equal(missing.code, 1);
    assert.equal(existsSync(absent), false);
  });

  it('writes nothing when two specs define the same agent', async () => {
    const dir = join(REPO_ROOT, 'test', 'invalid-specs', 'duplicate-agents');
    const out = freshDir();
    const { code } = await run('synth', join(dir, 'first.yaml'), join(dir, 'second.yaml'), '-o', out);
    assert.equal(code, 1);
    assert.equal(existsSync(out), false);
  });

  it('leaves no staging files behind', async () => {
    const out = freshDir();
    assert.equal((await run('synth', ...ALL_EXAMPLES, '-o', out)).code, 0);
    assert.deepEqual(
      readdirSync(out).filter((f) => !f.endsWith('.k8s.yaml')),
      [],
    );
  });
});

describe('toolyard explain', () => {
  it('prints per pod its containers, effective egress and credentials, and the ServiceAccounts', async () => {
    const { code, stdout } = await run('explain', example('cluster-operator'));
    assert.equal(code, 0);
    assert.match(stdout, /^Agent agents\/operator$/m);
    for (const pod of ['operator', 'operator-kubernetes', 'operator-helm'])
      assert.match(stdout, new RegExp(`^Deployment ${pod} \\(ServiceAccount ${pod}\\)$`, 'm'));
    assert.match(stdout, /codex \[backend\] ghcr\.io\/example\/openai-backend:1\.2\.3/);
    assert.match(
      stdout,
      /toolchain-helm \[toolchain\] docker\.io\/alpine\/helm:3\.16\.2\n\s+listens: 127\.0\.0\.1:8705 \(MCP\), pod IP :9705 \(probes only\)\n\s+credentials: none/,
    );
    assert.match(
      stdout,
      /credentials: secret openai-credentials\/api-key as OPENAI_API_KEY; secret mcp-kubernetes-token\/token as TOOLYARD_GATEWAY_KUBERNETES_TOKEN/,
    );
    assert.match(stdout, /effective egress/);
    assert.match(stdout, /0\.0\.0\.0\/0 on 443\/TCP — model providers; needed by codex/);
    assert.match(stdout, /10\.96\.0\.1\/32 on 443\/TCP — Kubernetes API server; needed by kubernetes/);
    assert.match(stdout, /operator: no token mounted\n\s+can do: nothing in the Kubernetes API/);
    assert.match(stdout, /in namespace apps \(namespace-write\):/);
    assert.doesNotMatch(stdout, /^Warnings:/m);
    assert.match(
      stdout,
      /Acknowledged warnings \(spec\.acknowledgedWarnings\):\n\s+\/spec\/toolchains\/0\/network\/egress: toolchain "helm" asks for egress "none".*\n\s+reason: NetworkPolicy selects pods: the helm toolchain/,
    );
  });

  it('--command routes "cargo test" to the rust toolchain and says why', async () => {
    const { code, stdout } = await run('explain', example('polyglot-reviewer'), '--command', 'cargo test');
    assert.equal(code, 0);
    assert.match(stdout, /^"cargo test" → toolchain "rust" because handles\.commands lists "cargo"/);
    assert.match(stdout, /runs as: /);
    assert.match(
      stdout,
      /runs in: its own pod reviewer-toolchain-rust at http:\/\/reviewer-toolchain-rust\.agents\.svc:8702\/mcp, egress exactly none/,
    );
  });

  it('--command says when no toolchain handles a command', async () => {
    const { code, stdout } = await run(
      'explain',
      example('polyglot-reviewer'),
      '--command',
      'terraform plan',
    );
    assert.equal(code, 0);
    assert.match(stdout, /^"terraform plan": no toolchain handles "terraform"/);
  });

  it('exits 1 on an invalid spec', async () => {
    const { code, stdout, stderr } = await run('explain', invalid('exec-without-commands'));
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.match(
      stderr,
      /exec-without-commands\.yaml:17: \/spec\/toolchains\/0\/tools\/allowedCommands: toolchain "rust" is in exec mode but allows no command/,
    );
  });
});
