/**
 * What a new user reads: `--version`, the messages for files that cannot be specs (not found, a directory
 * without specs, not YAML, empty), counts as words, the did-you-means for what users type instead (synonyms,
 * a language for a preset, an unquoted version tag), and `validate` as the CI gate (warnings, --strict).
 * Every expectation is a whole line as printed.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { COMMANDS, main } from '../../cli/src/main.ts';
import { PACKAGE_VERSION } from '../../toolchain-server/src/package-version.generated.ts';
import { REPO_ROOT } from '../support/golden.ts';
import { captureIo } from './capture-io.ts';

const temp = mkdtempSync(join(tmpdir(), 'toolyard-messages-'));
after(() => rmSync(temp, { recursive: true, force: true }));
const example = (name: string) => readFileSync(join(REPO_ROOT, 'examples', `${name}.yaml`), 'utf8');
let counter = 0;

/** Writes `text` to a fresh file in the temp dir and returns its path. */
function file(text: string, name = 'spec.yaml'): string {
  const dir = join(temp, `case-${++counter}`);
  mkdirSync(dir);
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function run(...argv: string[]) {
  const io = captureIo();
  const code = await main(argv, io);
  return { code, stdout: io.stdoutText(), stderr: io.stderrText(), lines: io.stderrText().split('\n') };
}

/** web-infra with one edit made to its text. */
function webInfra(from: string, to: string): string {
  const text = example('web-infra');
  assert.ok(text.includes(from), `web-infra.yaml has no "${from}"`);
  return text.replace(from, to);
}

describe('--version', () => {
  const expected = `toolyard ${PACKAGE_VERSION}`;
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };

  it('toolyard --version prints the package version', async () => {
    assert.equal(PACKAGE_VERSION, pkg.version);
    for (const flag of ['--version', '-V']) {
      const { code, stdout, stderr } = await run(flag);
      assert.deepEqual([code, stdout, stderr], [0, expected, '']);
    }
  });

  it('every command takes --version', async () => {
    for (const command of Object.keys(COMMANDS)) {
      const { code, stdout } = await run(command, '--version');
      assert.deepEqual([code, stdout], [0, expected], command);
    }
  });

  it('chart keeps --version X as the chart version; --chart-version is its name', async () => {
    const out = join(temp, 'charts');
    const spec = join(REPO_ROOT, 'examples', 'web-infra.yaml');
    const old = await run('chart', spec, '-o', out, '--version', '2.0.0');
    assert.equal(old.code, 0, old.stderr);
    assert.match(readFileSync(join(out, 'web-infra', 'Chart.yaml'), 'utf8'), /^version: 2\.0\.0$/m);
    const named = await run('chart', spec, '-o', out, '--chart-version', '3.0.0');
    assert.equal(named.code, 0, named.stderr);
    assert.match(readFileSync(join(out, 'web-infra', 'Chart.yaml'), 'utf8'), /^version: 3\.0\.0$/m);
    const both = await run('chart', spec, '--chart-version', '1.0.0', '--version', '1.0.0');
    assert.equal(both.code, 2);
    assert.match(both.stderr, /^toolyard chart: --chart-version and --version are the same option/m);
  });
});

describe('files that cannot be specs', () => {
  it('not found: the file and "not found", no line, no JSON path', async () => {
    const missing = join(temp, 'nope.yaml');
    const { code, lines } = await run('validate', missing);
    assert.equal(code, 1);
    assert.deepEqual(lines, [`${missing}: not found`, '1 error; nothing is valid until all are fixed.']);
  });

  it('a directory without specs says so', async () => {
    const dir = join(temp, 'no-specs');
    mkdirSync(dir);
    writeFileSync(join(dir, 'values.yaml'), 'replicas: 2\n');
    const { code, lines } = await run('validate', dir);
    assert.equal(code, 1);
    assert.deepEqual(lines, [
      `${dir}: a directory with no Agent spec in it`,
      '  hint: specs are *.yaml or *.yml files with a top-level "kind: Agent", found in subdirectories too',
      '1 error; nothing is valid until all are fixed.',
    ]);
  });

  it('not YAML: the parser’s line and message', async () => {
    const bad = file('apiVersion: toolyard.dev/v1alpha1\nkind: Agent\nmetadata: { name: x\nspec: {}\n');
    const { code, lines } = await run('validate', bad);
    assert.equal(code, 1);
    assert.match(lines[0]!, /^.*spec\.yaml:4: not YAML: Flow map in block collection must be sufficiently/);
  });

  it('an empty file, and one of comments only', async () => {
    const empty = file('');
    const comments = file('# nothing yet\n\n');
    const { code, lines } = await run('validate', empty, comments);
    assert.equal(code, 1);
    assert.deepEqual(lines, [
      `${empty}: empty file`,
      '  hint: write an Agent spec (apiVersion: toolyard.dev/v1alpha1, kind: Agent)',
      `${comments}: no YAML document in this file, only comments`,
      '  hint: write an Agent spec (apiVersion: toolyard.dev/v1alpha1, kind: Agent)',
      '2 errors; nothing is valid until all are fixed.',
    ]);
  });

  it('no message carries a fake line 0 or a "/" path for a whole file', async () => {
    const outputs = await Promise.all([
      run('validate', join(temp, 'nope.yaml')),
      run('synth', join(temp, 'nope.yaml'), '--stdout'),
      run('explain', join(temp, 'nope.yaml')),
      run('chart', file(''), '-o', join(temp, 'c')),
    ]);
    for (const { code, stderr } of outputs) {
      assert.equal(code, 1);
      assert.doesNotMatch(stderr, /:0:|\/: cannot read|error\(s\)/);
    }
  });
});

describe('counts read as words', () => {
  it('"1 error", "2 errors", "no warnings", "1 warning"', async () => {
    const one = await run('synth', file(webInfra('port: 8080', 'port: 80800')), '--stdout');
    assert.match(one.stderr, /^1 error; nothing was written\.$/m);
    const two = await run(
      'synth',
      file(webInfra('port: 8080', 'port: 80800').replace('port: 8703', 'port: 87030')),
      '--stdout',
    );
    assert.match(two.stderr, /^2 errors; nothing was written\.$/m);
    const valid = await run('validate', join(REPO_ROOT, 'examples', 'web-infra.yaml'));
    assert.match(valid.stdout, /web-infra\.yaml: agent "web-infra" is valid, no warnings$/);
  });
});

describe('did you mean: what users type instead', () => {
  const hintFor = async (text: string) => {
    const { code, stderr } = await run('validate', file(text));
    assert.equal(code, 1, stderr);
    return stderr;
  };

  for (const typed of ['enviroment', 'environment', 'envs', 'environmentVariables']) {
    it(`${typed} → env`, async () => {
      const stderr = await hintFor(
        webInfra('      port: 8080\n', `      port: 8080\n      ${typed}: { A: b }\n`),
      );
      assert.match(
        stderr,
        new RegExp(`/spec/backends/0/${typed}: unknown field "${typed}"\\n  hint: did you mean "env"\\?`),
      );
    });
  }

  for (const [typed, preset] of [
    ['rust', 'cargo'],
    ['golang', 'go'],
    ['python3', 'python'],
    ['py', 'python'],
    ['javascript', 'node'],
    ['typescript', 'node'],
    ['npm', 'node'],
    ['tf', 'terraform'],
  ] as const) {
    it(`preset ${typed} → ${preset}`, async () => {
      const stderr = await hintFor(webInfra('presets: [node]', `presets: [${typed}]`));
      assert.match(
        stderr,
        new RegExp(
          `/spec/toolchains/0/tools/presets/0: must be one of .*\\n  hint: got "${typed}"; did you mean "${preset}"\\?`,
        ),
      );
    });
  }

  it('an unrelated word gets no synonym: the allowed values are listed', async () => {
    const stderr = await hintFor(webInfra('presets: [node]', 'presets: [cobol]'));
    assert.match(stderr, /hint: got "cobol"$/m);
  });

  it('an unquoted tag YAML read as a number: quote it, as typed', async () => {
    const plain = await hintFor(webInfra('tag: "1.9.8"', 'tag: 1.83'));
    assert.match(
      plain,
      /\/spec\/toolchains\/1\/image\/tag: must be a string\n {2}hint: quote it: tag: "1\.83" \(unquoted, YAML reads 1\.83 as a number\)/,
    );
    const changed = await hintFor(webInfra('tag: "1.9.8"', 'tag: 1.20'));
    assert.match(changed, /hint: quote it: tag: "1\.20" \(unquoted, YAML reads 1\.20 as the number 1\.2\)/);
    const flow = await hintFor(webInfra('tag: "1.9.8"', 'tag: 22'));
    assert.match(flow, /hint: quote it: tag: "22" \(unquoted, YAML reads 22 as a number\)/);
  });

  it('misspelt kind and apiVersion: did you mean', async () => {
    const kind = await hintFor(webInfra('kind: Agent', 'kind: Agnet'));
    assert.match(kind, /:4: \/kind: must be "Agent"\n {2}hint: got "Agnet"; did you mean "Agent"\?/);
    const api = await hintFor(webInfra('toolyard.dev/v1alpha1', 'toolyard.dev/v1alpa1'));
    assert.match(
      api,
      /:3: \/apiVersion: must be "toolyard\.dev\/v1alpha1"\n {2}hint: got "toolyard\.dev\/v1alpa1"; did you mean "toolyard\.dev\/v1alpha1"\?/,
    );
  });
});

describe('validate is the CI gate', () => {
  // With the broker off, a spec renders with the broker-disabled warning (the examples have none).
  const unacknowledged = `${example('web-infra')}  broker:\n    enabled: false\n`;
  const acknowledged = `${unacknowledged}  acknowledgedWarnings:\n    - warning: broker-disabled\n      reason: a cluster without the broker image yet\n`;
  const stale = `${example('web-infra')}  acknowledgedWarnings:\n    - warning: shared-egress\n      toolchain: node\n      reason: was shared once\n`;

  it('prints the warnings synth prints, and passes without --strict', async () => {
    const spec = file(unacknowledged);
    const validate = await run('validate', spec);
    assert.equal(validate.code, 0);
    assert.match(validate.stdout, /agent "web-infra" is valid, 1 warning$/);
    const synth = await run('synth', spec, '--stdout');
    const warnings = (text: string) => text.split('\n').filter((l) => l.startsWith('warning: '));
    assert.equal(warnings(validate.stderr).length, 1);
    assert.deepEqual(warnings(validate.stderr), warnings(synth.stderr));
  });

  it('--strict fails on an unacknowledged warning', async () => {
    const { code, stderr } = await run('validate', '--strict', file(unacknowledged));
    assert.equal(code, 1);
    assert.match(stderr, /^warning: .*spec\.yaml:\d+: \/spec\/broker\/enabled: the broker is disabled/m);
    assert.match(
      stderr,
      /^1 warning; --strict fails on warnings: fix each, or acknowledge it with a reason in spec\.acknowledgedWarnings$/m,
    );
  });

  it('--strict passes a warning the spec acknowledges', async () => {
    const { code, stdout, stderr } = await run('validate', '--strict', file(acknowledged));
    assert.equal(code, 0, stderr);
    assert.equal(stderr, '');
    assert.match(stdout, /agent "web-infra" is valid, no warnings \(1 acknowledged warning\)$/);
  });

  it('--strict fails on a stale acknowledgement', async () => {
    const spec = file(stale);
    const lenient = await run('validate', spec);
    assert.equal(lenient.code, 0);
    assert.match(
      lenient.stderr,
      /^warning: .*\/spec\/acknowledgedWarnings\/0: acknowledges a "shared-egress" warning for "node" that does not occur: remove it$/m,
    );
    const strict = await run('validate', '--strict', spec);
    assert.equal(strict.code, 1);
  });
});
