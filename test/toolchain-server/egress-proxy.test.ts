/**
 * `egressProxy`: every child gets the broker's proxy (with this toolchain's caller name and token) in the
 * conventional variables and each tool's own, callers cannot change or unset any of them, and the token is
 * read from its file at start.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseToolchainServerConfig } from '../../toolchain-server/src/config.ts';
import { refusedEnvReason } from '../../toolchain-server/src/policy/env.ts';
import {
  egressProxyEnv,
  PROXY_ENV_NAMES,
  proxyAddressForCalls,
  proxyUrl,
} from '../../toolchain-server/src/policy/proxy-env.ts';
import { Toolchain } from '../../toolchain-server/src/toolchain.ts';
import { makeConfig, makeWorkspace } from './helpers.ts';

const TOKEN = 'tok/with:odd@chars+=';
const ENCODED = encodeURIComponent(TOKEN);
const PROXY = `http://toolchain-rust:${ENCODED}@reviewer-broker.agents.svc:8480`;

describe('egressProxy', () => {
  it('builds the proxy URL with the caller name and the URL-encoded token, and NO_PROXY with loopback', () => {
    const env = egressProxyEnv(
      {
        url: 'http://reviewer-broker.agents.svc:8480/',
        user: 'toolchain-rust',
        noProxy: ['.svc.cluster.local'],
      },
      TOKEN,
    );
    assert.deepEqual(Object.keys(env).sort(), [...PROXY_ENV_NAMES].sort());
    for (const name of PROXY_ENV_NAMES.filter((n) => !/no_?proxy/i.test(n)))
      assert.equal(env[name], PROXY, name);
    assert.equal(env.NO_PROXY, 'localhost,127.0.0.1,::1,.svc.cluster.local');
    assert.equal(env.no_proxy, env.NO_PROXY);
    const url = new URL(env.HTTPS_PROXY!);
    assert.equal(decodeURIComponent(url.password), TOKEN);
    assert.equal(url.username, 'toolchain-rust');
  });

  it('gives calls the proxy by address under connect: egress, where they may not resolve names (no UDP)', async () => {
    const settings = { url: 'http://localhost:8480', user: 'toolchain-rust', noProxy: [] };
    const warnings: string[] = [];
    const warn = (m: string) => warnings.push(m);
    const address = await proxyAddressForCalls(settings.url, 'egress', warn);
    assert.ok(address === '127.0.0.1' || address === '::1', address);
    assert.equal(
      new URL(proxyUrl(settings, TOKEN, address)).host,
      address === '::1' ? '[::1]:8480' : '127.0.0.1:8480',
    );
    // With connect: pod calls resolve for themselves; an address needs no resolving.
    assert.equal(await proxyAddressForCalls(settings.url, 'pod', warn), undefined);
    assert.equal(await proxyAddressForCalls('http://10.96.0.7:8480', 'egress', warn), undefined);
    assert.deepEqual(warnings, []);
    // A name that does not resolve: the name stays, and the warning says what will fail and what to do.
    assert.equal(await proxyAddressForCalls('http://nowhere.invalid:8480', 'egress', warn), undefined);
    assert.match(
      warnings[0] ?? '',
      /egressProxy\.url names nowhere\.invalid, which did not resolve.*give egressProxy\.url an address/,
    );
    assert.equal(
      egressProxyEnv(settings, TOKEN, '10.96.0.7').HTTPS_PROXY,
      `http://toolchain-rust:${ENCODED}@10.96.0.7:8480`,
    );
  });

  it('puts the proxy in every child environment, over passthrough and fixed values', async () => {
    const ws = makeWorkspace();
    try {
      const tokenFile = join(ws.outside, 'token');
      writeFileSync(tokenFile, `${TOKEN}\n`);
      const config = makeConfig(ws, {
        env: { passthrough: ['PATH', 'HTTPS_PROXY'], set: { http_proxy: 'http://elsewhere:3128' } },
        egressProxy: { url: 'http://reviewer-broker.agents.svc:8480', user: 'toolchain-rust', tokenFile },
      });
      const toolchain = new Toolchain({
        config,
        env: { PATH: process.env.PATH, HTTPS_PROXY: 'http://attacker:1' },
        log: () => {},
        probeVersions: false,
      });
      const result = await toolchain.callTool('exec_allowed', { command: ['printenv'] });
      const out = result.structuredContent as { exitCode: number; stdout: string };
      assert.equal(out.exitCode, 0);
      const lines = new Set(out.stdout.split('\n'));
      for (const name of [
        'HTTPS_PROXY',
        'http_proxy',
        'npm_config_https_proxy',
        'PIP_PROXY',
        'CARGO_HTTP_PROXY',
      ])
        assert.ok(lines.has(`${name}=${PROXY}`), `${name} missing or wrong in:\n${out.stdout}`);
      assert.ok(lines.has('NO_PROXY=localhost,127.0.0.1,::1'));
    } finally {
      ws.cleanup();
    }
  });

  it("gives git the proxy over a repository's own http.proxy", async () => {
    const ws = makeWorkspace();
    try {
      const tokenFile = join(ws.outside, 'token');
      writeFileSync(tokenFile, TOKEN);
      execFileSync('git', ['init', '-q', ws.root]);
      execFileSync('git', ['-C', ws.root, 'config', 'http.proxy', 'http://repository-chosen:3128']);
      const toolchain = new Toolchain({
        config: makeConfig(ws, {
          egressProxy: { url: 'http://reviewer-broker.agents.svc:8480', user: 'toolchain-rust', tokenFile },
        }),
        env: { PATH: process.env.PATH },
        log: () => {},
        probeVersions: false,
      });
      const result = await toolchain.callTool('exec_allowed', {
        command: ['git', 'config', '--get', 'http.proxy'],
        cwd: ws.root,
      });
      const out = result.structuredContent as { exitCode: number; stdout: string; stderr: string };
      assert.equal(out.exitCode, 0, out.stderr);
      assert.equal(out.stdout.trim(), PROXY);
    } finally {
      ws.cleanup();
    }
  });

  it('refuses every proxy variable to callers, in any case', async () => {
    for (const name of [...PROXY_ENV_NAMES, 'ALL_PROXY', 'all_proxy', 'Https_Proxy'])
      assert.ok(refusedEnvReason(name, [name]), `${name} may be set by a caller`);
    const ws = makeWorkspace();
    try {
      const tokenFile = join(ws.outside, 'token');
      writeFileSync(tokenFile, TOKEN);
      const toolchain = new Toolchain({
        config: makeConfig(ws, {
          egressProxy: { url: 'http://broker:8480', user: 'toolchain-rust', tokenFile },
        }),
        env: { PATH: process.env.PATH },
        log: () => {},
        probeVersions: false,
      });
      const result = await toolchain.callTool('exec_allowed', {
        command: ['printenv', 'https_proxy'],
        env: { https_proxy: 'http://elsewhere:3128' },
      });
      assert.equal(result.isError, true);
      assert.match(JSON.stringify(result.content), /TOOLYARD_ENV_REFUSED/);
    } finally {
      ws.cleanup();
    }
  });

  it('refuses a deployment allowlist that names a proxy variable', () => {
    const parsed = parseToolchainServerConfig({
      name: 'x',
      listen: { port: 0 },
      workspaceRoots: ['/w'],
      env: { callerAllowed: ['NO_PROXY'] },
    });
    assert.equal(parsed.ok, false);
  });

  it('fails at start, naming the field, when the token file is empty or missing', () => {
    const ws = makeWorkspace();
    try {
      const tokenFile = join(ws.outside, 'empty');
      writeFileSync(tokenFile, '\n');
      for (const file of [tokenFile, join(ws.outside, 'missing')])
        assert.throws(
          () =>
            new Toolchain({
              config: makeConfig(ws, {
                egressProxy: { url: 'http://broker:8480', user: 'x', tokenFile: file },
              }),
              env: {},
              log: () => {},
              probeVersions: false,
            }),
          /\/egressProxy\/tokenFile/,
        );
    } finally {
      ws.cleanup();
    }
  });
});
