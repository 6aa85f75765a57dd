/** The child environment: built from an allowlist, caller variables checked against the refused list. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  parseToolchainServerConfig,
  toolchainServerConfigSchema,
} from '../../toolchain-server/src/config.ts';
import { ToolError } from '../../toolchain-server/src/errors.ts';
import {
  applyCallerEnv,
  buildBaseEnv,
  refusedEnvReason,
  SERVER_OWN_ENV,
  serverProcessEnvironment,
} from '../../toolchain-server/src/policy/env.ts';
import { DEFAULT_PASSTHROUGH } from '../../toolchain-server/src/policy/env-names.ts';
import { Toolchain } from '../../toolchain-server/src/toolchain.ts';
import { makeWorkspace } from './helpers.ts';

const refused = [
  'LD_PRELOAD',
  'LD_AUDIT',
  'LD_LIBRARY_PATH',
  'ld_preload',
  'NODE_OPTIONS',
  'NODE_PATH',
  'PYTHONPATH',
  'PYTHONHOME',
  'PYTHONSTARTUP',
  'BASH_ENV',
  'ENV',
  'PERL5OPT',
  'JAVA_TOOL_OPTIONS',
  'GIT_SSH_COMMAND',
  'GIT_EXEC_PATH',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_COUNT',
  'GIT_CONFIG_KEY_0',
  'GIT_ASKPASS',
  'GIT_EXTERNAL_DIFF',
  'GIT_PAGER',
  'GIT_PROXY_COMMAND',
  'BASH_FUNC_ls%%',
  'BASH_FUNC_x',
  'PATH',
  'DYLD_INSERT_LIBRARIES',
  'RUSTC_WRAPPER',
  'MAKEFLAGS',
  'npm_config_script_shell',
  // compilers, linkers and their plugin-capable flags
  'RUSTC',
  'RUSTFLAGS',
  'CC',
  'CXX',
  'CGO_LDFLAGS',
  // configuration that can name programs, or download and run a toolchain
  'CARGO_HOME',
  'CARGO_BUILD_RUSTC',
  'TF_CLI_CONFIG_FILE',
  'TF_CLI_ARGS',
  'TF_CLI_ARGS_plan',
  'HELM_PLUGINS',
  'GOTOOLCHAIN',
  'SHELL',
  'GCONV_PATH',
  // per-user configuration directories (a .gitconfig or .npmrc there can name programs)
  'HOME',
  'XDG_CONFIG_HOME',
  // code or options by other names: warnings filters import modules, POSIXLY_CORRECT changes option
  // parsing, pagers and browsers are programs, cargo aliases are commands
  'POSIXLY_CORRECT',
  'PYTHONWARNINGS',
  'PYTEST_ADDOPTS',
  'BROWSER',
  'LESSOPEN',
  'CARGO_ALIAS_X',
  'GOFLAGS',
  'GOPROXY',
  'TMPDIR',
  // anything else is simply not on the allowlist
  'MY_PROJECT_SETTING',
  'PYTEST_ADDOPTS_X',
  'AWS_SECRET_ACCESS_KEY',
  '1BAD',
  'A-B',
  '',
];

describe('caller env policy', () => {
  for (const name of refused) {
    it(`refuses ${JSON.stringify(name)}`, () => {
      assert.ok(refusedEnvReason(name), `${name} must be refused`);
      assert.throws(
        () => applyCallerEnv({}, { [name]: 'x' }),
        (error: unknown) =>
          error instanceof ToolError &&
          error.code === 'TOOLYARD_ENV_REFUSED' &&
          error.rule === 'env-allowlist',
      );
    });
  }

  for (const name of [
    'CI',
    'RUST_BACKTRACE',
    'GOOS',
    'GIT_AUTHOR_NAME',
    'GIT_COMMITTER_EMAIL',
    'CARGO_TERM_COLOR',
    'CGO_ENABLED',
    'LANG',
  ]) {
    it(`allows ${name}`, () => {
      assert.equal(refusedEnvReason(name), undefined);
      assert.deepEqual(applyCallerEnv({ PATH: '/bin' }, { [name]: 'v' }), { PATH: '/bin', [name]: 'v' });
    });
  }

  it('allows the names a deployment adds with env.callerAllowed', () => {
    assert.match(refusedEnvReason('DATABASE_URL') ?? '', /allowlist/);
    assert.equal(refusedEnvReason('DATABASE_URL', ['DATABASE_URL']), undefined);
    assert.deepEqual(applyCallerEnv({}, { DATABASE_URL: 'x' }, ['DATABASE_URL']), { DATABASE_URL: 'x' });
    // The refused names stay refused whatever the deployment lists.
    assert.ok(refusedEnvReason('NODE_OPTIONS', ['NODE_OPTIONS']));
  });

  it('refuses NUL bytes, oversized values and too many variables', () => {
    assert.throws(() => applyCallerEnv({}, { CI: 'x'.repeat(40_000) }), /32 KiB/);
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`V${i}`, '1']));
    assert.throws(() => applyCallerEnv({}, { CI: 'x\0y' }), /NUL/);
    assert.throws(() => applyCallerEnv({}, many), /at most 64/);
  });
});

describe('base env', () => {
  it('copies only passthrough names and fixed values', () => {
    const serverEnv = {
      PATH: '/usr/bin',
      LANG: 'C.UTF-8',
      AWS_SECRET_ACCESS_KEY: 'aws-secret',
      TOOLYARD_TOKEN: 'bearer-secret',
      GITHUB_TOKEN: 'gh',
    };
    const env = buildBaseEnv(
      {
        passthrough: ['PATH', 'LANG', 'MISSING'],
        set: { HOME: '/tmp/home', CARGO_HOME: '/cache/cargo' },
      },
      serverEnv,
    );
    assert.deepEqual(env, {
      PATH: '/usr/bin',
      LANG: 'C.UTF-8',
      HOME: '/tmp/home',
      CARGO_HOME: '/cache/cargo',
    });
  });
});

describe('defaults that work', () => {
  it('without an env section, children get PATH and the locale, so make recipes find their tools', async () => {
    const ws = makeWorkspace();
    try {
      // Recipes without shell syntax are exec'd by make itself, through PATH ("echo: No such file" without it).
      writeFileSync(join(ws.root, 'Makefile'), 'all:\n\techo recipe ran\n\tprintenv LANG\n');
      const config = toolchainServerConfigSchema.parse({
        name: 'defaults',
        listen: { port: 0 },
        workspaceRoots: [ws.root],
        tools: { mode: 'exec', allowedCommands: ['make'] },
      });
      assert.deepEqual(config.env.passthrough, [...DEFAULT_PASSTHROUGH]);
      const toolchain = new Toolchain({
        config,
        env: { PATH: process.env.PATH, LANG: 'C.UTF-8', SECRET: 'x' },
        log: () => {},
        probeVersions: false,
      });
      const result = await toolchain.callTool('exec_allowed', { command: ['make', 'all'] });
      const out = result.structuredContent as { exitCode: number; stdout: string; stderr: string };
      assert.equal(out.exitCode, 0, out.stderr);
      assert.match(out.stdout, /^recipe ran\nprintenv LANG\nC\.UTF-8$/m);
    } finally {
      ws.cleanup();
    }
  });

  it('refuses a deployment allowlist that names a variable no caller may set', () => {
    const parsed = parseToolchainServerConfig({
      name: 'x',
      listen: { port: 0 },
      workspaceRoots: ['/w'],
      env: { callerAllowed: ['DATABASE_URL', 'NODE_OPTIONS'] },
    });
    assert.equal(parsed.ok, false);
    assert.match(
      JSON.stringify(!parsed.ok && parsed.issues),
      /\/env\/callerAllowed\/1.*NODE_OPTIONS can never be set/,
    );
  });
});

describe('the server process environment', () => {
  const host = { PATH: '/usr/bin', HOME: '/root', GLIBC_TUNABLES: 'glibc.malloc.arena_max=9' };
  it('is the passthrough names plus the server’s own malloc setting, which no child inherits', () => {
    const env = serverProcessEnvironment(['PATH'], host);
    assert.deepEqual(env, { PATH: '/usr/bin', ...SERVER_OWN_ENV });
    assert.deepEqual(buildBaseEnv({ passthrough: ['PATH'], set: {} }, env), { PATH: '/usr/bin' });
  });
  it('keeps the operator’s value when the passthrough names it', () => {
    const env = serverProcessEnvironment(['PATH', 'GLIBC_TUNABLES'], host);
    assert.deepEqual(env, { PATH: '/usr/bin', GLIBC_TUNABLES: 'glibc.malloc.arena_max=9' });
  });
});
