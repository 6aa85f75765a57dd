/**
 * Structured preset tools: the argv each builds (checked with stub binaries that echo their arguments), flag
 * injection through positional parameters, path confinement, npm_run script checks and missing binaries.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Toolchain } from '../../toolchain-server/src/toolchain.ts';
import { makeConfig, makeWorkspace, type Workspace } from './helpers.ts';

const STUBS = ['go', 'pytest', 'ruff', 'cargo', 'npm', 'node', 'terraform', 'helm'];

describe('preset tools', () => {
  let ws: Workspace;
  let toolchain: Toolchain;
  before(() => {
    ws = makeWorkspace();
    const bin = join(ws.outside, 'bin');
    mkdirSync(bin);
    for (const name of STUBS) {
      writeFileSync(join(bin, name), `#!/bin/sh\nprintf '%s\\n' ${name} "$@"\n`);
      chmodSync(join(bin, name), 0o755);
    }
    mkdirSync(join(ws.root, 'tests'));
    writeFileSync(join(ws.root, 'tests', 'test_a.py'), '');
    mkdirSync(join(ws.root, 'chart'));
    writeFileSync(join(ws.root, 'chart', 'values-ci.yaml'), '');
    writeFileSync(join(ws.outside, 'values.yaml'), '');
    mkdirSync(join(ws.root, 'node_modules', 'typescript', 'bin'), { recursive: true });
    writeFileSync(join(ws.root, 'node_modules', 'typescript', 'bin', 'tsc'), '');
    writeFileSync(
      join(ws.root, 'package.json'),
      JSON.stringify({ scripts: { build: 'tsc', lint: 'biome check' } }),
    );
    toolchain = new Toolchain({
      config: makeConfig(ws, {
        tools: {
          mode: 'structured',
          presets: ['go', 'python', 'cargo', 'node', 'terraform', 'helm'],
          allowedCommands: [],
        },
      }),
      env: { PATH: `${bin}:/usr/bin:/bin` },
      log: () => {},
      probeVersions: false,
    });
  });
  after(() => ws.cleanup());

  async function argvOf(tool: string, args: Record<string, unknown>): Promise<string[]> {
    const result = await toolchain.callTool(tool, args);
    assert.equal(result.isError, false, JSON.stringify(result.content));
    const s = result.structuredContent as { stdout: string; argv: string[] };
    const printed = s.stdout.trimEnd().split('\n');
    assert.deepEqual(printed, s.argv, 'the stub received exactly the reported argv');
    return s.argv;
  }

  const expectations: ReadonlyArray<readonly [string, Record<string, unknown>, string[]]> = [
    ['go_test', {}, ['go', 'test', './...']],
    [
      'go_test',
      { packages: ['./pkg/...'], run: '^TestX$', short: true, race: true, count: 1 },
      ['go', 'test', '-run=^TestX$', '-short', '-race', '-count=1', './pkg/...'],
    ],
    ['go_test', { run: '-bench=.' }, ['go', 'test', '-run=-bench=.', './...']],
    ['go_vet', { packages: ['./cmd/...'] }, ['go', 'vet', './cmd/...']],
    ['go_build', {}, ['go', 'build', './...']],
    ['pytest', {}, ['pytest', '-p', 'no:cacheprovider', '--color=no']],
    [
      'pytest',
      { paths: ['tests/test_a.py::test_x'], keyword: 'fast and not slow', failFast: true },
      [
        'pytest',
        '-p',
        'no:cacheprovider',
        '--color=no',
        '-k',
        'fast and not slow',
        '-x',
        'tests/test_a.py::test_x',
      ],
    ],
    ['ruff_check', { paths: ['tests'] }, ['ruff', 'check', '--no-fix', '--output-format=concise', 'tests']],
    ['ruff_format_check', {}, ['ruff', 'format', '--check']],
    [
      'cargo_check',
      { package: 'core', allTargets: true },
      ['cargo', 'check', '--color=never', '--package', 'core', '--all-targets'],
    ],
    [
      'cargo_test',
      { features: ['serde', 'tokio/full'], testFilter: 'parser::' },
      ['cargo', 'test', '--color=never', '--features', 'serde,tokio/full', 'parser::'],
    ],
    ['cargo_fmt_check', {}, ['cargo', 'fmt', '--all', '--check']],
    ['cargo_clippy', { denyWarnings: true }, ['cargo', 'clippy', '--color=never', '--', '-D', 'warnings']],
    ['npm_test', {}, ['npm', 'test', '--no-update-notifier', '--no-fund', '--no-audit']],
    [
      'npm_run',
      { script: 'lint', args: ['src'] },
      ['npm', 'run', '--no-update-notifier', 'lint', '--', 'src'],
    ],
    ['tsc_check', {}, ['node', '<workspace typescript>', '--noEmit', '--pretty', 'false']],
    ['fmt_check', {}, ['terraform', 'fmt', '-check', '-recursive', '-diff', '-no-color']],
    ['validate', {}, ['terraform', 'validate', '-no-color']],
    [
      'helm_lint',
      { chart: 'chart', valuesFiles: ['chart/values-ci.yaml'], strict: true },
      ['helm', 'lint', 'chart', '--values', 'chart/values-ci.yaml', '--strict'],
    ],
    [
      'helm_template',
      { chart: 'chart', releaseName: 'demo', namespace: 'agents' },
      ['helm', 'template', 'demo', 'chart', '--namespace', 'agents'],
    ],
  ];
  for (const [tool, args, expected] of expectations) {
    it(`${tool} ${JSON.stringify(args)}`, async () => {
      const argv = await argvOf(tool, args);
      if (tool === 'tsc_check') {
        assert.deepEqual(argv.slice(0, 1), ['node']);
        assert.match(argv[1]!, /node_modules\/typescript\/bin\/tsc$/);
        assert.deepEqual(argv.slice(2), expected.slice(2));
      } else {
        assert.deepEqual(argv, expected);
      }
    });
  }

  const refusals: ReadonlyArray<readonly [string, Record<string, unknown>, string, string | null]> = [
    ['go_test', { packages: ['-toolexec=/bin/sh'] }, 'TOOLYARD_FLAG_INJECTION', 'flag-injection'],
    ['go_vet', { packages: ['./...', '-vettool=/tmp/x'] }, 'TOOLYARD_FLAG_INJECTION', 'flag-injection'],
    ['pytest', { keyword: '-p evil' }, 'TOOLYARD_FLAG_INJECTION', 'flag-injection'],
    ['pytest', { markers: '--pyargs' }, 'TOOLYARD_FLAG_INJECTION', 'flag-injection'],
    ['pytest', { paths: ['--rootdir=/'] }, 'TOOLYARD_FLAG_INJECTION', 'flag-injection'],
    ['pytest', { paths: ['../outside'] }, 'TOOLYARD_CWD_OUTSIDE_ROOTS', 'cwd-confinement'],
    ['ruff_check', { paths: ['/etc'] }, 'TOOLYARD_CWD_OUTSIDE_ROOTS', 'cwd-confinement'],
    ['cargo_test', { testFilter: '--nocapture' }, 'TOOLYARD_FLAG_INJECTION', 'flag-injection'],
    ['cargo_check', { package: '--manifest-path=/x' }, 'TOOLYARD_INVALID_ARGUMENTS', null],
    ['cargo_check', { features: ['a,--x'] }, 'TOOLYARD_INVALID_ARGUMENTS', null],
    ['cargo_check', { extraFlags: ['--x'] }, 'TOOLYARD_INVALID_ARGUMENTS', null],
    ['npm_run', { script: 'deploy' }, 'TOOLYARD_SCRIPT_NOT_FOUND', null],
    [
      'npm_run',
      { script: 'lint', args: ['--require=./evil.js'] },
      'TOOLYARD_FLAG_INJECTION',
      'flag-injection',
    ],
    ['npm_run', { script: '__proto__' }, 'TOOLYARD_SCRIPT_NOT_FOUND', null],
    ['tsc_check', { project: '../outside' }, 'TOOLYARD_CWD_OUTSIDE_ROOTS', 'cwd-confinement'],
    ['helm_lint', { chart: '../outside' }, 'TOOLYARD_CWD_OUTSIDE_ROOTS', 'cwd-confinement'],
    [
      'helm_lint',
      { chart: 'chart', valuesFiles: ['../outside/values.yaml'] },
      'TOOLYARD_CWD_OUTSIDE_ROOTS',
      'cwd-confinement',
    ],
    ['helm_template', { chart: '--post-renderer=/bin/sh' }, 'TOOLYARD_FLAG_INJECTION', 'flag-injection'],
    ['helm_template', { chart: 'chart', releaseName: '--x' }, 'TOOLYARD_INVALID_ARGUMENTS', null],
    ['fmt_check', { path: '/' }, 'TOOLYARD_CWD_OUTSIDE_ROOTS', 'cwd-confinement'],
  ];
  for (const [tool, args, code, rule] of refusals) {
    it(`refuses ${tool} ${JSON.stringify(args)} with ${code}`, async () => {
      const result = await toolchain.callTool(tool, args);
      assert.equal(result.isError, true);
      const error = result._meta?.['dev.toolyard/error'] as { code: string; rule: string | null };
      assert.equal(error.code, code, JSON.stringify(result.content));
      assert.equal(error.rule, rule);
    });
  }

  it('lists every preset tool with typed inputs and no free-form flag field', () => {
    const names = toolchain.listedTools.map((t) => t.name);
    assert.deepEqual(names, [
      'go_test',
      'go_vet',
      'go_build',
      'pytest',
      'ruff_check',
      'ruff_format_check',
      'cargo_check',
      'cargo_test',
      'cargo_fmt_check',
      'cargo_clippy',
      'npm_test',
      'npm_run',
      'tsc_check',
      'fmt_check',
      'validate',
      'helm_lint',
      'helm_template',
      'describe_toolchain',
    ]);
    for (const tool of toolchain.listedTools) {
      const props = Object.keys((tool.inputSchema.properties as Record<string, unknown>) ?? {});
      const freeForm = props.filter((p) => /^(flags|args|extraArgs|options|argv)$/i.test(p));
      assert.deepEqual(
        freeForm,
        tool.name === 'npm_run' ? ['args'] : [],
        `${tool.name} has no free-form flag field`,
      );
      assert.equal(tool.inputSchema.additionalProperties, false, `${tool.name} rejects unknown fields`);
    }
  });
});
