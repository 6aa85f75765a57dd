/** The real binary: `cli/bin/toolyard.js` under the project's Node 24, exit codes and streams as users see them. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { GOLDEN_DIR, REPO_ROOT } from '../support/golden.ts';

const NODE = join(REPO_ROOT, 'node_modules', '.bin', 'node');
const BIN = join(REPO_ROOT, 'cli', 'bin', 'toolyard.js');
const temp = mkdtempSync(join(tmpdir(), 'toolyard-bin-'));
after(() => rmSync(temp, { recursive: true, force: true }));

function toolyard(...args: string[]) {
  const result = spawnSync(NODE, [BIN, ...args], { cwd: temp, encoding: 'utf8', timeout: 60_000 });
  assert.equal(result.error, undefined);
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('cli/bin/toolyard.js as a subprocess', () => {
  it('--help exits 0 on stdout; no arguments exits 2', () => {
    const help = toolyard('--help');
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: toolyard <command> \[options\]/);
    assert.equal(toolyard().code, 2);
  });

  it('synth writes dist/<name>.k8s.yaml relative to the working directory, matching the golden file', () => {
    const { code, stderr } = toolyard('synth', join(REPO_ROOT, 'examples', 'web-infra.yaml'));
    assert.equal(code, 0, stderr);
    assert.deepEqual(readdirSync(join(temp, 'dist')), ['web-infra.k8s.yaml']);
    assert.equal(
      readFileSync(join(temp, 'dist', 'web-infra.k8s.yaml'), 'utf8'),
      readFileSync(join(GOLDEN_DIR, 'web-infra.k8s.yaml'), 'utf8'),
    );
  });

  it('validate exits 1 with errors on stderr; synth of a bad input writes nothing', () => {
    const bad = join(REPO_ROOT, 'test', 'invalid-specs', 'port-out-of-range.yaml');
    const validate = toolyard('validate', bad);
    assert.equal(validate.code, 1);
    assert.match(
      validate.stderr,
      /port-out-of-range\.yaml:16: \/spec\/toolchains\/0\/port: must be <= 65535/,
    );
    const synth = toolyard('synth', join(REPO_ROOT, 'examples', 'polyglot-reviewer.yaml'), bad, '-o', 'out');
    assert.equal(synth.code, 1);
    assert.equal(existsSync(join(temp, 'out')), false);
  });
});

describe('npm run toolyard (node cli/src/main.ts)', () => {
  it('runs the CLI: cli/src/main.ts is an entry point as well as a module', () => {
    const result = spawnSync(NODE, [join(REPO_ROOT, 'cli', 'src', 'main.ts'), 'validate', 'examples'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /examples\/polyglot-reviewer\.yaml: agent "reviewer" is valid/);
    const typo = spawnSync(NODE, [join(REPO_ROOT, 'cli', 'src', 'main.ts'), 'vaildate'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(typo.status, 2);
    assert.match(typo.stderr, /did you mean "validate"\?/);
  });
});
